/**
 * The protobuf JSON codec of the call pipeline, over protobufjs
 * `ext/protojson` (not `Type.fromObject`, which coerces and drops keys).
 */
import type { Root, Type, Field, Message } from 'protobufjs'
import { loadProtobuf } from './load-protobuf.ts'
import { checkProtoJson } from './protojson-checks.ts'
import { isRecord } from '../contract/is-record.ts'
import { jsonKeyOf } from '../contract/extension-key.ts'
import { bracketed, unbracketed } from './extension-keys.ts'

/**
 * Builds the reflection root of a protobufjs JSON descriptor, resolved once,
 * every message type given a constructor made without code generation.
 */
export function loadRoot(descriptor: Record<string, unknown>): Root {
  const root = loadProtobuf().protobuf.Root.fromJSON(descriptor)
  root.resolveAll()
  presetConstructors(root)
  return root
}

type Constructor = new (properties?: Record<string, unknown>) => object

interface Nested {
  nestedArray?: readonly unknown[]
}

/**
 * Gives every message type under `namespace` a constructor that does what
 * the one protobufjs generates does (fresh `{}` and `[]` for map and
 * repeated fields, then the non-null properties), without `Function()`:
 * protobufjs would otherwise generate it on first use, inside a request,
 * where Workers forbid code generation.
 */
function presetConstructors(namespace: Nested): void {
  for (const nested of namespace.nestedArray ?? []) {
    if (nested instanceof loadProtobuf().protobuf.Type) (nested as Type).ctor = interpretedConstructor(nested as unknown as Type)
    presetConstructors(nested as Nested)
  }
}

function interpretedConstructor(type: Type): Constructor {
  const maps: string[] = []
  const lists: string[] = []
  for (const field of type.fieldsArray) {
    if (field.map) maps.push(field.name)
    else if (field.repeated) lists.push(field.name)
  }
  return function (this: Record<string, unknown>, properties?: Record<string, unknown>) {
    for (const name of maps) this[name] = {}
    for (const name of lists) this[name] = []
    if (properties) {
      for (const key of Object.keys(properties)) if (properties[key] != null && key !== '__proto__') this[key] = properties[key]
    }
  } as unknown as Constructor
}

/** A decode failure with the path of the offending field (`vibeScalar.vibeInt32`, `""` for the message itself). */
export interface DecodeFailure {
  path: string
  reason: string
}

/**
 * Decodes protobuf JSON into a message; throws what protojson throws, and
 * for the inputs protojson lets through but protobuf JSON rejects
 * (see protojson-checks.ts).
 */
export function fromJson(type: Type, json: unknown): Message<object> {
  const message = loadProtobuf().protojson.fromJson(type, bracketed(type, json))
  // After protojson, so that its errors (and their texts) come first.
  checkProtoJson(type, json)
  return message
}

/** Encodes a message as canonical protobuf JSON (docs/calls.md, "Result encoding and structured content"). */
export function toJson(type: Type, message: object): unknown {
  return unbracketed(type, loadProtobuf().protojson.toJson(type, message))
}

// protojson prefixes its messages with the full name of the type or field.
const NAME_PREFIX_RE = /^\.?[A-Za-z_][\w.]*: /

/** A reason longer than this quotes a long value (protojson quotes what it refused, whole): it is cut, its length said. */
const MAX_REASON = 200

function reasonOf(error: unknown): string {
  const reason = (error instanceof Error ? error.message : String(error)).replace(NAME_PREFIX_RE, '')
  return reason.length <= MAX_REASON ? reason : `${reason.slice(0, MAX_REASON)}... (${reason.length} characters)`
}

function failure(type: Type, json: unknown): string | undefined {
  try {
    fromJson(type, json)
    return undefined
  } catch (error) {
    return reasonOf(error)
  }
}

function findField(type: Type, key: string): Field | undefined {
  for (const field of type.fieldsArray) if (jsonKeyOf(field) === key || field.name === key) return field
  return undefined
}

const isWellKnown = (type: Type): boolean => type.fullName.startsWith('.google.protobuf.')
const isMessage = (field: Field): field is Field & { resolvedType: Type } =>
  field.resolvedType instanceof loadProtobuf().protobuf.Type && !isWellKnown(field.resolvedType as Type)

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`)

// protojson's text when messages nest deeper than protobufjs's `util.recursionLimit`.
const MAX_DEPTH = 'max depth exceeded'
const ONEOF_RE = /^multiple values for oneof /
// A number protojson takes for an integer but BigInt cannot parse (`1e+30`).
const BIGINT_RE = /^Cannot convert .* to a BigInt$/

const FLOAT_TYPES = new Set(['double', 'float'])

/**
 * The reason a scalar `value` of `field` fails, in the decoder's range-error
 * wording where the decoder had none. A JSON number past the double range
 * (`1e400`) parses as `Infinity`, which the decoder's text shows as `null`.
 */
function scalarReason(field: Field | undefined, value: unknown, reason: string): string {
  if (typeof value === 'number' && !Number.isFinite(value) && !Number.isNaN(value)) {
    const hint = field === undefined || FLOAT_TYPES.has(field.type) ? '; an infinite float is written "Infinity" or "-Infinity"' : ''
    return `number out of range: a JSON number beyond ±1.8e308 (such as ${value > 0 ? '' : '-'}1e400) is not a number${hint}`
  }
  return field !== undefined && BIGINT_RE.test(reason) ? `out of range for ${field.type}: ${JSON.stringify(value)}` : reason
}

/** The second member of a oneof set in `json`, and the oneof's name; `undefined` if none is. */
function secondOneofMember(type: Type, json: object): { key: string; field: Field | undefined; oneof: string } | undefined {
  const seen = new Set<string>()
  for (const [key, value] of Object.entries(json)) {
    const field = findField(type, key)
    const oneof = field?.partOf?.name
    if (oneof === undefined || value === null) continue
    if (seen.has(oneof)) return { key, field, oneof }
    seen.add(oneof)
  }
  return undefined
}

/**
 * Finds which field of `json` makes decoding as `type` fail, and why. Only
 * runs after a failure, so it may decode parts of the value again. Descends
 * no deeper than the decoder does: a value nested too deeply is reported at
 * the field where it starts.
 */
export function locateFailure(type: Type, json: unknown, path = ''): DecodeFailure {
  const whole = failure(type, json) ?? 'cannot decode'
  if (!isRecord(json) || isWellKnown(type)) return { path, reason: whole }
  for (const [key, value] of Object.entries(json)) {
    const field = findField(type, key)
    const fieldPath = join(path, field === undefined ? key : jsonKeyOf(field))
    const reason = failure(type, { [key]: value })
    if (reason === undefined) continue
    if (!field || value === null || typeof value !== 'object') return { path: fieldPath, reason: scalarReason(field, value, reason) }
    if (Array.isArray(value) && field.repeated) {
      for (let i = 0; i < value.length; i++) {
        const itemReason = failure(type, { [key]: [value[i]] })
        if (itemReason === undefined) continue
        return isMessage(field) && itemReason !== MAX_DEPTH
          ? locateFailure(field.resolvedType, value[i], `${fieldPath}[${i}]`)
          : { path: `${fieldPath}[${i}]`, reason: scalarReason(field, value[i], itemReason) }
      }
    } else if (field.map) {
      for (const [k, v] of Object.entries(value)) {
        const entryReason = failure(type, { [key]: { [k]: v } })
        if (entryReason === undefined) continue
        const entryPath = `${fieldPath}[${JSON.stringify(k)}]`
        return isMessage(field) && entryReason !== MAX_DEPTH
          ? locateFailure(field.resolvedType, v, entryPath)
          : { path: entryPath, reason: scalarReason(field, v, entryReason) }
      }
    } else if (isMessage(field) && reason !== MAX_DEPTH) {
      // Not descending past the decoder's depth limit: locating restarts the count.
      return locateFailure(field.resolvedType, value, fieldPath)
    }
    return { path: fieldPath, reason }
  }
  // Every field decodes alone: two members of one oneof are set.
  if (ONEOF_RE.test(whole)) {
    const second = secondOneofMember(type, json)
    if (second) return { path: join(path, second.field?.jsonName ?? second.key), reason: `multiple values for oneof "${second.oneof}"` }
  }
  return { path, reason: whole }
}

const base64 = (bytes: Uint8Array): string =>
  (loadProtobuf().protobuf.util as unknown as { base64: { encode(b: Uint8Array, start: number, end: number): string } }).base64.encode(
    bytes,
    0,
    bytes.length,
  )

/** Thrown by {@link jsonFromJs} for a value that contains itself. */
export class CyclicValueError extends Error {
  constructor(readonly path: string) {
    super('cyclic value')
    this.name = 'CyclicValueError'
  }
}

/** Whether `error` is a {@link CyclicValueError} (by name: the runtime may be bundled twice). */
export function isCyclicValueError(error: unknown): error is CyclicValueError {
  return error instanceof Error && error.name === 'CyclicValueError'
}

/**
 * Rewrites JavaScript values a backend naturally returns but protobuf JSON
 * does not allow: non-finite numbers and bigints become strings, byte arrays
 * base64, and a key whose value is `undefined` is left out (JavaScript's
 * "not set", as protobufjs's `fromObject` and protobuf-es's `create` read
 * it), at any depth. Returns `value` itself when there is nothing to rewrite. Throws a
 * {@link CyclicValueError} (with the path of the repeated value) for a value
 * that contains itself; a value nested deeper than the stack allows throws a
 * `RangeError`.
 */
export function jsonFromJs(value: unknown): unknown {
  return rewrite(value, '', [])
}

function rewrite(value: unknown, path: string, ancestors: object[]): unknown {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? value : String(value)
    case 'bigint':
      return value.toString()
    case 'object': {
      if (value === null) return value
      if (value instanceof Uint8Array) return base64(value)
      if (ancestors.includes(value)) throw new CyclicValueError(path)
      ancestors.push(value)
      let out: Record<string, unknown> | unknown[] | undefined
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i]
          const next = rewrite(item, `${path}[${i}]`, ancestors)
          if (next !== item) ((out as unknown[] | undefined) ??= value.slice())[i] = next
        }
      } else {
        for (const [key, item] of Object.entries(value)) {
          if (item === undefined) {
            delete ((out as Record<string, unknown> | undefined) ??= { ...value })[key]
            continue
          }
          const next = rewrite(item, join(path, key), ancestors)
          if (next !== item) ((out as Record<string, unknown> | undefined) ??= { ...value })[key] = next
        }
      }
      ancestors.pop()
      return out ?? value
    }
    default:
      return value
  }
}

/** `<path>: <reason>`, or just the reason when the message itself is at fault. */
export function describeFailure(failure: DecodeFailure): string {
  return failure.path === '' ? failure.reason : `${failure.path}: ${failure.reason}`
}
