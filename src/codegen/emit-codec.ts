/**
 * Emits build-time protobuf JSON codecs: one straight-line function per
 * message a tool reaches, turning a value into the canonical protobuf JSON
 * the reflection codec (protobufjs `ext/protojson`) would give. Anything a
 * codec does not handle exactly (another spelling, a string for an int32, a
 * well-known type, ...) answers `CODEC_BAIL` and the runtime falls back to
 * reflection, so results and error texts never change.
 */
import protobuf from 'protobufjs/light.js'
import type { Enum, Field, ReflectionObject, Root, Type } from 'protobufjs'
import { WRAPPER_NAMES } from '../contract/index.ts'
import type { GeneratedImport } from '../contract/index.ts'

/** Types protojson converts by hand (WKT_FROM/WKT_TO): a codec bails on them. */
const SPECIAL_TYPES = new Set(
  ['Any', 'Duration', 'Timestamp', 'FieldMask', 'Value', 'Struct', 'ListValue', 'NullValue', ...WRAPPER_NAMES].map(
    (name) => `.google.protobuf.${name}`,
  ),
)

const LONG_KEYS = new Set(['int64', 'sint64', 'sfixed64', 'uint64', 'fixed64'])

/** The codegen entry's exports generated codecs use (the contract's table), by the local name they get. */
const HELPERS = {
  $B: 'CODEC_BAIL',
  $D: 'CODEC_MAX_DEPTH',
  $n: 'codecKeyCount',
  $p: 'codecIsPlain',
  $w: 'codecWellFormed',
  $k32: 'CODEC_INT32_KEY_RE',
  $ku32: 'CODEC_UINT32_KEY_RE',
  $str: 'codecString',
  $bool: 'codecBool',
  $bytes: 'codecBytes',
  $i32: 'codecInt32',
  $u32: 'codecUint32',
  $i64: 'codecInt64',
  $u64: 'codecUint64',
  $f64: 'codecDouble',
  $f32: 'codecFloat',
  $enum: 'codecEnum',
} as const satisfies Record<string, GeneratedImport>

/** The helper converting each scalar kind. */
const SCALAR_HELPERS: Record<string, keyof typeof HELPERS> = {
  string: '$str',
  bool: '$bool',
  bytes: '$bytes',
  int32: '$i32',
  sint32: '$i32',
  sfixed32: '$i32',
  uint32: '$u32',
  fixed32: '$u32',
  int64: '$i64',
  sint64: '$i64',
  sfixed64: '$i64',
  uint64: '$u64',
  fixed64: '$u64',
  double: '$f64',
  float: '$f32',
}

/** The result of {@link emitCodecs}. */
export interface EmittedCodecs {
  /** Module-level declarations: the codec functions and their enum tables. */
  code: string
  /** Import specifiers for `unplugin-proto-mcp/codegen-v1` (`CODEC_BAIL as $B`, ...), sorted. */
  imports: string[]
  /** For each tool, the codec names of its request and response (undefined for a hand-converted well-known root). */
  tools: { decode?: string; encode?: string }[]
}

const str = (value: string): string => JSON.stringify(value)
const IDENT_RE = /^[A-Za-z_$][\w$]*$/
/** `.key` when `key` is an identifier, else `["key"]`. */
const prop = (key: string): string => (IDENT_RE.test(key) ? `.${key}` : `[${str(key)}]`)

class CodecWriter {
  readonly #root: Root
  readonly #names = new Map<string, string>()
  readonly #queue: Type[] = []
  readonly #enums = new Map<string, string>()
  readonly #out: string[] = []
  readonly #used = new Set<keyof typeof HELPERS>(['$B', '$D', '$n', '$p'])

  constructor(root: Root) {
    this.#root = root
  }

  /** The name of the codec of message `fullName` (no leading dot), queuing it; undefined for special types. */
  codecOf(fullName: string): string | undefined {
    const type = this.#root.lookupType(fullName)
    if (SPECIAL_TYPES.has(type.fullName)) return undefined
    let name = this.#names.get(type.fullName)
    if (name === undefined) {
      name = `codec${this.#names.size}`
      this.#names.set(type.fullName, name)
      this.#queue.push(type)
    }
    return name
  }

  /** Writes every queued codec (and the ones they queue). */
  drain(): void {
    for (let i = 0; i < this.#queue.length; i++) this.#writeMessage(this.#queue[i]!)
  }

  get code(): string {
    return this.#out.join('\n')
  }

  get imports(): string[] {
    return [...this.#used].map((local) => `${HELPERS[local]} as ${local}`).sort()
  }

  #use(local: keyof typeof HELPERS): string {
    this.#used.add(local)
    return local
  }

  /** Whether protojson can index this type's fields at all (it throws on colliding spellings) and codecs can read them. */
  #supported(type: Type): boolean {
    const seen = new Map<string, Field>()
    for (const field of type.fieldsArray) {
      if (field.declaringField || field.name.startsWith('.')) return false
      for (const key of [field.name, field.jsonName, (field as Field & { protoName?: string }).protoName ?? field.name]) {
        if (seen.has(key) && seen.get(key) !== field) return false
        seen.set(key, field)
      }
      if (field.jsonName === '__proto__') return false
      // A required well-known field bails whether set (hand-converted) or not (required).
      if (field.required && this.#special(field.resolve())) return false
    }
    return true
  }

  #writeMessage(type: Type): void {
    const name = this.#names.get(type.fullName)!
    const lines = [`// ${type.fullName.slice(1)}`, `function ${name}(m, d) {`]
    if (!this.#supported(type)) {
      lines.push('  return $B', '}')
      this.#out.push(lines.join('\n'))
      return
    }
    lines.push('  if (d > $D || !$p(m)) return $B')
    const fields = type.fieldsArray.map((f) => f.resolve())
    const oneofs = new Map<string, string>()
    for (const field of fields) {
      const oneof = field.partOf
      // Synthetic oneofs (proto3 optional) have one member: never two set.
      if (oneof && oneof.fieldsArray.length > 1 && !oneofs.has(oneof.name)) oneofs.set(oneof.name, `s${oneofs.size}`)
    }
    lines.push(`  const o = {}`, `  let n = 0, v, c${[...oneofs.values()].map((s) => `, ${s} = false`).join('')}`)
    for (const field of fields) {
      const key = prop(field.jsonName)
      // A key Object.prototype also has must be an own key to count.
      const read = field.jsonName in Object.prototype ? `Object.hasOwn(m, ${str(field.jsonName)}) ? m${key} : undefined` : `m${key}`
      if (!field.map && !field.repeated && this.#special(field)) {
        // protojson reads null as a value for Value and NullValue, as absent otherwise.
        const nullIsValue =
          field.resolvedType!.fullName === '.google.protobuf.Value' || field.resolvedType!.fullName === '.google.protobuf.NullValue'
        lines.push(
          `  if ((v = ${read}) !== undefined) {`,
          nullIsValue ? '    return $B' : '    if (v !== null) return $B',
          '    n++',
          '  }',
        )
        continue
      }
      if (field.required) {
        // A message without a proto2 `required` field is no protobuf JSON: reflection reports it.
        lines.push(`  if ((v = ${read}) === undefined || v === null) return $B`, '  n++')
        lines.push(...this.#fieldBody(field, key).map((line) => `  ${line}`))
        continue
      }
      lines.push(`  if ((v = ${read}) !== undefined) {`, '    n++', '    if (v !== null) {')
      const oneof = field.partOf && oneofs.get(field.partOf.name)
      if (oneof) lines.push(`      if (${oneof}) return $B`, `      ${oneof} = true`)
      lines.push(...this.#fieldBody(field, key).map((line) => `      ${line}`), '    }', '  }')
    }
    lines.push('  if ($n(m) !== n) return $B', '  return o', '}')
    this.#out.push(lines.join('\n'))
  }

  /** Code that checks `v` (not null) and stores its canonical form at `o<key>` (`key` from {@link prop}), or bails. */
  #fieldBody(field: Field, key: string): string[] {
    if (field.map) return this.#mapBody(field, key)
    if (this.#special(field)) return ['return $B']
    if (field.repeated) {
      return [
        'if (!Array.isArray(v)) return $B',
        'if (v.length !== 0) {',
        '  const a = new Array(v.length)',
        `  for (let i = 0; i < v.length; i++) if ((a[i] = ${this.#expr(field, 'v[i]')}) === $B) return $B`,
        `  o${key} = a`,
        '}',
      ]
    }
    const set = field.hasPresence ? undefined : this.#setTest(field, 'c')
    return [`if ((c = ${this.#expr(field, 'v')}) === $B) return $B`, set === undefined ? `o${key} = c` : `if (${set}) o${key} = c`]
  }

  #mapBody(field: Field, key: string): string[] {
    const keyType = (field as Field & { keyType: string }).keyType
    if (this.#special(field) || LONG_KEYS.has(keyType)) return ['if (!$p(v)) return $B', 'for (const _ in v) return $B']
    let keyCheck: string
    switch (keyType) {
      case 'string':
        keyCheck = `k === '__proto__' || !${this.#use('$w')}(k)`
        break
      case 'bool':
        keyCheck = `k !== 'true' && k !== 'false'`
        break
      case 'uint32':
      case 'fixed32':
        keyCheck = `!${this.#use('$ku32')}.test(k)`
        break
      default:
        keyCheck = `!${this.#use('$k32')}.test(k)`
    }
    return [
      'if (!$p(v)) return $B',
      'const ks = Object.keys(v)',
      'if (ks.length !== 0) {',
      '  const mo = {}',
      '  for (const k of ks) {',
      `    if (${keyCheck}) return $B`,
      `    if ((mo[k] = ${this.#expr(field, 'v[k]')}) === $B) return $B`,
      '  }',
      `  o${key} = mo`,
      '}',
    ]
  }

  #special(field: Field): boolean {
    const resolved = field.resolvedType
    return resolved !== null && SPECIAL_TYPES.has(resolved.fullName)
  }

  /** Whether a canonical value `c` of an implicit-presence field is set (not the proto3 default), as code. */
  #setTest(field: Field, c: string): string | undefined {
    const resolved = field.resolvedType
    if (resolved instanceof protobuf.Type) return undefined
    if (resolved instanceof protobuf.Enum) {
      const zero = (resolved as Enum).valuesById[0]
      return zero === undefined ? `${c} !== 0` : `${c} !== ${str(zero)}`
    }
    switch (field.type) {
      case 'bool':
        return c
      case 'string':
      case 'bytes':
        return `${c} !== ''`
      case 'int64':
      case 'sint64':
      case 'sfixed64':
      case 'uint64':
      case 'fixed64':
        return `${c} !== '0'`
      default:
        return `${c} !== 0`
    }
  }

  /** An expression giving the canonical form of one value `x` (singular, list item or map value), or `$B`. */
  #expr(field: Field, x: string): string {
    const resolved = field.resolvedType
    if (resolved instanceof protobuf.Type) return `${this.codecOf(resolved.fullName.slice(1))!}(${x}, d + 1)`
    if (resolved instanceof protobuf.Enum) return this.#enumExpr(resolved as Enum, x)
    const helper = SCALAR_HELPERS[field.type]
    return helper === undefined ? '$B' : `${this.#use(helper)}(${x})`
  }

  #enumExpr(enm: Enum, x: string): string {
    const options = (enm as Enum & { valuesOptions?: Record<string, Record<string, unknown>> }).valuesOptions
    const customNames = options !== undefined && Object.values(options).some((o) => o && '(pb.enumvalue.json).string' in o)
    if (customNames) return '$B'
    let table = this.#enums.get(enm.fullName)
    if (table === undefined) {
      table = `enum${this.#enums.size}`
      this.#enums.set(enm.fullName, table)
      // name → the name protojson writes back (aliases write the first name of their number).
      const byName = Object.keys(enm.values).map((n) => `${str(n)}: ${str(enm.valuesById[enm.values[n]!]!)}`)
      const byNumber = Object.keys(enm.valuesById).map((k) => `${str(k)}: ${str(enm.valuesById[Number(k)]!)}`)
      this.#out.push(
        `// ${enm.fullName.slice(1)}: names, then numbers, to the names protojson writes`,
        `const ${table} = { __proto__: null, ${byName.join(', ')} }`,
        `const ${table}n = { __proto__: null, ${byNumber.join(', ')} }`,
      )
    }
    return `${this.#use('$enum')}(${x}, ${table}, ${table}n, ${isClosedEnum(enm)})`
  }
}

/** The edition a top-level declaration's JSON names (absent for proto3), by declaration. */
const editions = new WeakMap<ReflectionObject, string | undefined>()

/**
 * Whether protobufjs decodes `enm` as a closed enum (an unknown number is
 * not kept, so the codec bails): the `features.enum_type` the enum, an
 * enclosing message or its file sets (protobufjs puts a file's options on
 * its top-level declarations), else its file's edition: proto2 closed,
 * proto3 and the editions open. Public members only: `options`, `parent`,
 * and the `edition` of the top-level declaration's `toJSON()`.
 */
export function isClosedEnum(enm: Enum): boolean {
  let at: ReflectionObject = enm
  for (;;) {
    const set = (at.options?.features as { enum_type?: unknown } | undefined)?.enum_type
    if (set !== undefined) return set === 'CLOSED'
    const parent = at.parent
    if (!(parent instanceof protobuf.Type)) break
    at = parent
  }
  if (!editions.has(at)) editions.set(at, (at.toJSON() as { edition?: string }).edition)
  return editions.get(at) === 'proto2'
}

/**
 * Emits the codecs of every message `tools` reach, from the protobufjs JSON
 * `descriptor` the runtime loads too (so both read the same field order,
 * JSON names, presence and enum tables). Deterministic: names follow tool
 * order, then field order.
 */
export function emitCodecs(
  descriptor: Record<string, unknown>,
  tools: readonly { requestType: string; responseType: string }[],
): EmittedCodecs {
  const root = (protobuf.Root as unknown as typeof import('protobufjs').Root).fromJSON(descriptor)
  root.resolveAll()
  const writer = new CodecWriter(root)
  const names = tools.map((tool) => ({ decode: writer.codecOf(tool.requestType), encode: writer.codecOf(tool.responseType) }))
  writer.drain()
  return { code: writer.code, imports: writer.imports, tools: names }
}
