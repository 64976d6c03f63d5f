/**
 * The reflection decoder's exact pass over a request (docs/calls.md, "Decoding"):
 * every 64-bit value protobufjs would read through a double (a number past
 * ±2^53, a string with a fraction or an exponent) becomes its exact decimal
 * string, or the call is refused with the value's path (int64.ts says how).
 * Generated codecs never see these values: they hand them to reflection.
 */
import type { Field, Type } from 'protobufjs'
import { exact64, is64Bit } from './int64.ts'
import type { NumberSource } from './number-source.ts'
import type { DecodeFailure } from './protojson.ts'
import { ANY_TYPE, isType, isWellKnown, packedType, reachPredicate } from './nested-types.ts'
import { isRecord, setOwn } from '../contract/is-record.ts'
import { jsonKeyOf } from '../contract/extension-key.ts'

/** A 64-bit value refused by the exact pass, at its field path. */
export class ExactIntegerError extends Error implements DecodeFailure {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(path === '' ? reason : `${path}: ${reason}`)
    this.name = 'ExactIntegerError'
  }
}

/** Whether `error` is an {@link ExactIntegerError} (by name: the runtime may be bundled twice). */
export const isExactIntegerError = (error: unknown): error is ExactIntegerError =>
  error instanceof Error && error.name === 'ExactIntegerError'

const WRAPPED_64: Readonly<Record<string, string>> = {
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
}

/** The 64-bit type of a field's values (a scalar, or a wrapper's), if it has one. */
function type64(field: Field): string | undefined {
  const resolved = field.resolvedType
  if (isType(resolved)) return WRAPPED_64[resolved.fullName]
  return is64Bit(field.type) ? field.type : undefined
}

/** Whether messages of a type, or ones they nest, have 64-bit fields, or an `Any` that may pack one (one lookup per type once known). */
const reaches64 = reachPredicate(
  (t) => t.fullName === ANY_TYPE || (!isWellKnown(t) && t.fieldsArray.some((f) => type64(f.resolve()) !== undefined)),
)

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`)

/** protobufjs's `util.recursionLimit`: deeper messages are its "max depth exceeded", not ours to walk. */
const MAX_DEPTH = 100

/**
 * `json` (protobuf JSON of a `type` request) with every 64-bit value read
 * exactly; `json` itself when nothing changes. Throws an
 * {@link ExactIntegerError} for a value that cannot be read exactly.
 */
export function exactIntegers(type: Type, json: unknown, source: NumberSource | undefined): unknown {
  return reaches64(type) ? message(type, json, source, '', 0) : json
}

function message(type: Type, json: unknown, source: NumberSource | undefined, path: string, depth: number): unknown {
  if (!isRecord(json) || depth > MAX_DEPTH) return json
  if (type.fullName === ANY_TYPE) return packed(type, json, source, path, depth)
  if (isWellKnown(type)) return json
  let out: Record<string, unknown> | undefined
  for (const key of Object.keys(json)) {
    const field = Object.hasOwn(type.fields, key) ? type.fields[key] : fieldByJsonName(type, key)
    if (field === undefined) continue
    const at = join(path, jsonKeyOf(field))
    const value = json[key]
    const next = fieldValue(field, value, source, at, depth)
    if (next !== value) setOwn((out ??= { ...json }), key, next)
  }
  return out ?? json
}

/** An `Any`'s JSON: its packed message's fields beside `@type`, or a packed 64-bit wrapper's `value`. */
function packed(any: Type, json: Record<string, unknown>, source: NumberSource | undefined, path: string, depth: number): unknown {
  const type = packedType(any, json)
  if (type === undefined) return json
  const wide = WRAPPED_64[type.fullName]
  if (wide === undefined) return reaches64(type) ? message(type, json, source, path, depth + 1) : json
  const exact = exact64(json.value, wide, source)
  if (exact === undefined) return json
  if ('refused' in exact) throw new ExactIntegerError(join(path, 'value'), exact.refused)
  const out = { ...json }
  setOwn(out, 'value', exact.decimal)
  return out
}

function fieldByJsonName(type: Type, key: string): Field | undefined {
  for (const field of type.fieldsArray) if (jsonKeyOf(field) === key) return field
  return undefined
}

function fieldValue(field: Field, value: unknown, source: NumberSource | undefined, at: string, depth: number): unknown {
  const wide = type64(field)
  const nested = isType(field.resolvedType) && wide === undefined && reaches64(field.resolvedType) ? field.resolvedType : undefined
  if (wide === undefined && nested === undefined) return value
  const one = (item: unknown, itemPath: string): unknown => {
    if (nested !== undefined) return message(nested, item, source, itemPath, depth + 1)
    const exact = exact64(item, wide!, source)
    if (exact === undefined) return item
    if ('refused' in exact) throw new ExactIntegerError(itemPath, exact.refused)
    return exact.decimal
  }
  if (field.map && isRecord(value)) {
    let out: Record<string, unknown> | undefined
    for (const [key, item] of Object.entries(value)) {
      const next = one(item, `${at}[${JSON.stringify(key)}]`)
      if (next !== item) setOwn((out ??= { ...value }), key, next)
    }
    return out ?? value
  }
  if (field.repeated && Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const next = one(value[i], `${at}[${i}]`)
      if (next !== value[i]) (out ??= value.slice())[i] = next
    }
    return out ?? value
  }
  return one(value, at)
}
