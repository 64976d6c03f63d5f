/**
 * Model → the TypeScript declarations of one `?mcp` module: per message the
 * canonical protobuf JSON form a handler receives (`XJson`) and the looser
 * form it may return (`XInput`), per service an implementation interface,
 * and the default export as a `Server` typed with them.
 */
import { WRAPPERS } from '../schema/well-known.ts'
import type { EnumModel, FieldModel, MessageModel, ProtoModel, ScalarType, ValueType } from '../proto/index.ts'
import { describeComment } from '../schema/index.ts'
import { CODEGEN_MODULE, RUNTIME_MODULE } from '../contract/index.ts'
import { lowerCamel } from '../contract/implementation-keys.ts'

/** The parts of a model the declarations need. */
export type DeclarationModel = Pick<ProtoModel, 'packageName' | 'services' | 'messages' | 'enums'>

/** Which of the two forms a type is written in. */
type Form = 'json' | 'input'

const SUFFIX: Record<Form, string> = { json: 'Json', input: 'Input' }

// Imported under reserved names so no generated name can shadow them.
const IMPORTS = [
  `import type { CallContext as __CallContext, RpcHandler as __RpcHandler, Server as __Server } from '${RUNTIME_MODULE}'`,
  `import type { ProtoServerSpec as __ProtoServerSpec, ProtoToolSpec as __ProtoToolSpec } from '${CODEGEN_MODULE}'`,
].join('\n')
const JSON_VALUE = 'type __JsonValue = null | boolean | number | string | __JsonValue[] | { [key: string]: __JsonValue }'
const JSON_INPUT = 'type __JsonInput = null | boolean | number | string | readonly __JsonInput[] | { readonly [key: string]: __JsonInput }'
// What a server-streaming handler may return (runtime/streaming.ts iterates each of them).
const STREAM = 'type __Stream<T> = readonly T[] | Iterable<T> | AsyncIterable<T>'

const FLOAT_JSON = `number | 'NaN' | 'Infinity' | '-Infinity'`
const LONG_INPUT = 'number | string | bigint'

/** The JSON type of a scalar: canonical (what `toJson` emits) or input (what `fromJson` accepts, plus what the runtime rewrites). */
function scalarType(scalar: ScalarType, form: Form): string {
  switch (scalar) {
    case 'bool':
      return 'boolean'
    case 'string':
      return 'string'
    // The runtime turns a byte array into base64 before decoding.
    case 'bytes':
      return form === 'json' ? 'string' : 'string | Uint8Array'
    case 'double':
    case 'float':
      return form === 'json' ? FLOAT_JSON : 'number | string'
    case 'int64':
    case 'sint64':
    case 'sfixed64':
    case 'uint64':
    case 'fixed64':
      return form === 'json' ? 'string' : LONG_INPUT
    default:
      // 32-bit integers: the decoder also takes decimal strings.
      return form === 'json' ? 'number' : 'number | string'
  }
}

/** The JSON type of a well-known message, `undefined` for any other message. */
function wellKnownType(fullName: string, form: Form): string | undefined {
  const json = form === 'json' ? '__JsonValue' : '__JsonInput'
  switch (fullName) {
    case 'google.protobuf.Timestamp':
    case 'google.protobuf.Duration':
    case 'google.protobuf.FieldMask':
      return 'string'
    case 'google.protobuf.Struct':
      return form === 'json' ? '{ [key: string]: __JsonValue }' : '{ readonly [key: string]: __JsonInput }'
    case 'google.protobuf.Value':
      return json
    case 'google.protobuf.ListValue':
      return form === 'json' ? '__JsonValue[]' : 'readonly __JsonInput[]'
    case 'google.protobuf.Empty':
      return 'Record<string, never>'
    case 'google.protobuf.Any':
      return `{ '@type': string; [key: string]: unknown }`
  }
  const wrapped = WRAPPERS[fullName]
  return wrapped === undefined ? undefined : scalarType(wrapped, form)
}

/** Identifiers of the emitted types, unique within one module. */
class Names {
  readonly #taken = new Set<string>()
  readonly #byKey = new Map<string, string>()

  constructor(private readonly packageName: string) {}

  /** The identifier for `fullName` with `suffix`, allocated once. */
  of(fullName: string, suffix: string): string {
    const key = `${fullName}\0${suffix}`
    const known = this.#byKey.get(key)
    if (known !== undefined) return known
    const local = this.packageName && fullName.startsWith(`${this.packageName}.`) ? fullName.slice(this.packageName.length + 1) : fullName
    const base = `${local.replace(/\./g, '_').replace(/[^\w$]/g, '_')}${suffix}`
    let name = base
    for (let n = 2; this.#taken.has(name); n++) name = `${base}_${n}`
    this.#taken.add(name)
    this.#byKey.set(key, name)
    return name
  }
}

const IDENTIFIER_RE = /^[A-Za-z_$][\w$]*$/
const propertyKey = (key: string): string => (IDENTIFIER_RE.test(key) ? key : JSON.stringify(key))

/** A JSDoc block of a proto comment, indented; empty when there is no comment. */
function jsDoc(raw: string | null, indent: string): string[] {
  const text = describeComment(raw)
  if (!text) return []
  return [`${indent}/** ${text.replace(/\*\//g, '*\\/')} */`]
}

/** Emits the declarations of one module body. */
class Emitter {
  readonly names: Names
  readonly #done = new Set<string>()
  readonly #queue: { fullName: string; form: Form }[] = []
  readonly #blocks = new Map<string, string[]>()

  constructor(private readonly model: DeclarationModel) {
    this.names = new Names(model.packageName)
  }

  /** The type of a message or enum in `form`, queuing its declaration. */
  ref(type: ValueType, form: Form): string {
    if (type.kind === 'scalar') return scalarType(type.scalar, form)
    if (type.kind === 'message') {
      const known = wellKnownType(type.typeName, form)
      if (known !== undefined) return known
    } else if (type.typeName === 'google.protobuf.NullValue') {
      return form === 'json' ? 'null' : `null | 'NULL_VALUE' | 0`
    }
    const name = this.names.of(type.typeName, SUFFIX[form])
    const key = `${form}:${type.typeName}`
    if (!this.#done.has(key)) {
      this.#done.add(key)
      this.#queue.push({ fullName: type.typeName, form })
    }
    return name
  }

  /** Emits everything queued (and what it reaches). */
  drain(): void {
    for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
      const name = this.names.of(next.fullName, SUFFIX[next.form])
      const message = this.model.messages.get(next.fullName)
      if (message) this.#blocks.set(name, this.#message(message, name, next.form))
      else {
        const enm = this.model.enums.get(next.fullName)
        this.#blocks.set(name, enm ? this.#enum(enm, name, next.form) : [`export type ${name} = unknown`])
      }
    }
  }

  /** The emitted type declarations, sorted by name. */
  blocks(): string[][] {
    return [...this.#blocks.keys()].sort().map((name) => this.#blocks.get(name)!)
  }

  #enum(enm: EnumModel, name: string, form: Form): string[] {
    const names = [...new Set(enm.values.map((v) => `'${v.name}'`))]
    // Requests passed the schema, which takes names only; the decoder also takes numbers.
    const union = (form === 'json' ? names : [...names, 'number']).join(' | ')
    return [...jsDoc(enm.comment, ''), `export type ${name} = ${union}`]
  }

  #field(field: FieldModel, form: Form): string {
    const value = this.ref(field.type, form)
    const wrap = (t: string): string => (t.includes(' ') ? `(${t})` : t)
    let type = value
    if (field.mapKey !== undefined) type = form === 'json' ? `{ [key: string]: ${value} }` : `{ readonly [key: string]: ${value} }`
    else if (field.repeated) type = form === 'json' ? `${wrap(value)}[]` : `readonly ${wrap(value)}[]`
    // The decoder reads `null` and `undefined` as "not set" (`undefined`
    // spelled out for `exactOptionalPropertyTypes`).
    if (form === 'input' && !/(^|\| )null( |$)/.test(type)) type = `${type} | null`
    if (form === 'input') type = `${type} | undefined`
    return type
  }

  #message(message: MessageModel, name: string, form: Form): string[] {
    const doc = jsDoc(message.comment, '')
    if (message.fields.length === 0) return [...doc, `export interface ${name} {}`]
    const lines = [...doc, `export interface ${name} {`]
    for (const field of message.fields) {
      lines.push(...jsDoc(field.comment, '  '))
      // Every field may be absent: toJson leaves out fields at their default.
      lines.push(`  ${propertyKey(field.jsonName)}?: ${this.#field(field, form)}`)
    }
    lines.push('}')
    return lines
  }
}

/**
 * The body of the `declare module` block for one `?mcp` module (without the
 * braces): the message, enum and service types, the `Services` map and the
 * module's exports. Deterministic: declarations sorted by name.
 */
export function emitModuleDeclarations(model: DeclarationModel): string {
  const emitter = new Emitter(model)
  const services: string[][] = []
  const map: string[] = []
  let streams = false
  const sorted = [...model.services].sort((a, b) => (a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0))
  for (const service of sorted) {
    const name = emitter.names.of(service.fullName, 'Implementation')
    const lines = [...jsDoc(service.comment, ''), `export interface ${name} {`]
    for (const method of service.methods) {
      let handler: string
      if (method.requestStream) {
        // Client-streaming and bidi RPCs are never tools: a handler is accepted and never called.
        handler = '__RpcHandler'
      } else if (method.responseStream) {
        streams = true
        const request = emitter.ref({ kind: 'message', typeName: method.requestType }, 'json')
        const item = emitter.ref({ kind: 'message', typeName: method.responseType }, 'input')
        handler = `(request: ${request}, context: __CallContext) => __Stream<${item}> | Promise<__Stream<${item}>>`
      } else {
        const request = emitter.ref({ kind: 'message', typeName: method.requestType }, 'json')
        let reply = emitter.ref({ kind: 'message', typeName: method.responseType }, 'input')
        // Nothing to say for an Empty response: returning nothing is `{}`.
        if (method.responseType === 'google.protobuf.Empty') reply = `${reply} | void`
        handler = `(request: ${request}, context: __CallContext) => ${reply} | Promise<${reply}>`
      }
      const keys = [...new Set([method.name, lowerCamel(method.name)])]
      for (const key of keys) lines.push(...jsDoc(method.comment, '  '), `  ${propertyKey(key)}?: ${handler}`)
    }
    lines.push('}')
    services.push(lines)
    map.push(`  ${JSON.stringify(service.name)}: ${name}`, `  ${JSON.stringify(service.fullName)}: ${name}`)
  }
  emitter.drain()
  // The services of one file share its package, so short names never clash.
  const mapLines = [...new Set(map)].sort()

  const out = [IMPORTS, JSON_VALUE, JSON_INPUT, ...(streams ? [STREAM] : []), '']
  for (const block of [...emitter.blocks(), ...services]) out.push(...block, '')
  out.push(
    // A type alias, not an interface: it gets an implicit index signature, so
    // `Server<Services>` meets a `Record<string, object>` constraint.
    '/** Every service of the proto, by short and full name, with its implementation type. */',
    mapLines.length ? `export type Services = {\n${mapLines.join('\n')}\n}` : 'export type Services = {}',
    '',
    "/** The proto's MCP server: `implement(service, impl)`, then `serveStdio()` or `serveHttp()`. */",
    'const server: __Server<Services>',
    'export default server',
    '/** One entry per tool: its schemas, the RPC it calls and its precompiled validator. */',
    'export const tools: readonly __ProtoToolSpec[]',
    '/** The protobufjs JSON descriptor of every type the tools reach. */',
    `export const descriptor: __ProtoServerSpec['descriptor']`,
  )
  return out.join('\n')
}
