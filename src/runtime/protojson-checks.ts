/**
 * Checks protobuf JSON input for what protobufjs `ext/protojson` lets
 * through but the protobuf JSON mapping (and Go's protojson) rejects:
 * malformed base64, an `Any` with fields but no `@type`, and keys that are
 * neither a field's JSON name nor its proto name. Found by the differential
 * tests against @bufbuild/protobuf (test/protojson/).
 */
import { WRAPPER_NAMES } from '../contract/index.ts'
import { isBase64, shownString } from './base64-check.ts'
import { isType, isWellKnown, reachPredicate } from './nested-types.ts'
import type { Field, Type } from 'protobufjs'
import { isRecord } from '../contract/is-record.ts'
import { extensionName, jsonKeyOf } from '../contract/extension-key.ts'

const ANY = '.google.protobuf.Any'
const BYTES_VALUE = '.google.protobuf.BytesValue'
// Well-known types packed in an Any as `{"@type": ..., "value": <their JSON>}` (protojson's own list).
const VALUE_FORM = new Set(
  ['Duration', 'Timestamp', 'FieldMask', 'Struct', 'Value', 'ListValue', 'Any', ...WRAPPER_NAMES].map((name) => `.google.protobuf.${name}`),
)

/** The field a key names, and whether the key is a spelling protobuf JSON does not allow. */
interface KeyEntry {
  field: Field
  alias: boolean
}

const keysOf = new WeakMap<Type, Map<string, KeyEntry>>()

/** Keys protojson accepts for `type`'s fields; its extra one (the lowerCamel `name` of a field with another JSON name) is an alias. */
function keyIndex(type: Type): Map<string, KeyEntry> {
  let index = keysOf.get(type)
  if (index) return index
  index = new Map()
  for (const field of type.fieldsArray) {
    field.resolve()
    // An extension has its tool key and protobuf JSON's bracketed full name (the lenient pass's alias).
    if (field.declaringField !== null) {
      index.set(jsonKeyOf(field), { field, alias: false })
      index.set(`[${extensionName(field.declaringField)}]`, { field, alias: false })
      continue
    }
    const proper = [field.jsonName, (field as Field & { protoName?: string }).protoName ?? field.name]
    for (const key of proper) index.set(key, { field, alias: false })
    if (!proper.includes(field.name)) index.set(field.name, { field, alias: true })
  }
  keysOf.set(type, index)
  return index
}

/** Whether values of `type` itself hold something to check (bytes, an Any, an alias key), not counting nested messages. */
function checksDirectly(type: Type): boolean {
  if (type.fullName === ANY || type.fullName === BYTES_VALUE) return true
  if (isWellKnown(type)) return false
  for (const { field, alias } of keyIndex(type).values()) if (alias || (field.type === 'bytes' && !field.resolvedType)) return true
  return false
}

/** Whether JSON of `type` can contain anything to check, nested messages included (one lookup per decode once known). */
const needs = reachPredicate(checksDirectly)

function checkBytes(name: string, value: unknown): void {
  if (typeof value === 'string' && !isBase64(value)) throw new Error(`${name}: invalid base64: ${shownString(value)}`)
}

function checkSingular(field: Field, value: unknown): void {
  if (value === null) return
  const type = field.resolvedType
  if (isType(type)) checkMessage(type, value)
  else if (field.type === 'bytes' && !type) checkBytes(field.fullName, value)
}

function checkAny(type: Type, json: Record<string, unknown>): void {
  const typeUrl = json['@type']
  if (typeUrl === undefined) {
    // `{}` is the empty Any; fields without a type cannot be decoded.
    if (Object.keys(json).length > 0) throw new Error(`${type.fullName}: missing @type`)
    return
  }
  if (typeof typeUrl !== 'string') return
  let packed: Type
  try {
    packed = type.root.lookupType(typeUrl.slice(typeUrl.lastIndexOf('/') + 1))
  } catch {
    return // protojson reports the unknown type
  }
  checkMessage(packed, VALUE_FORM.has(packed.fullName) ? json.value : json)
}

function checkMessage(type: Type, json: unknown): void {
  if (type.fullName === BYTES_VALUE) return checkBytes(type.fullName, json)
  if (!isRecord(json) || !needs(type)) return
  if (type.fullName === ANY) return checkAny(type, json)
  if (isWellKnown(type)) return
  const index = keyIndex(type)
  for (const key of Object.keys(json)) {
    const entry = index.get(key)
    if (!entry) continue
    if (entry.alias) throw new Error(`${type.fullName}: unknown field: ${JSON.stringify(key)}`)
    const { field } = entry
    const value = json[key]
    if (field.map && isRecord(value)) for (const item of Object.values(value)) checkSingular(field, item)
    else if (field.repeated && Array.isArray(value)) for (const item of value) checkSingular(field, item)
    else checkSingular(field, value)
  }
}

/**
 * Throws, as protojson would, for JSON of `type` that protojson accepts but
 * protobuf JSON does not: malformed base64, an `Any` with fields but no
 * `@type`, a key that is neither a JSON name nor a proto name. Does nothing
 * (one lookup) for types that cannot contain any of these.
 */
export function checkProtoJson(type: Type, json: unknown): void {
  checkMessage(type, json)
}
