/**
 * Alternate spellings of canonical protobuf JSON that a decoder must read
 * as the same message: proto field names, enum numbers, 64-bit integers as
 * numbers, floats as strings, URL-safe or unpadded base64, longer
 * fractions in timestamps and durations, `null` for absent fields.
 */
import { ScalarType, type DescField, type DescMessage, type JsonValue, type Registry } from '@bufbuild/protobuf'
import { hasCustomJsonRepresentation, isWrapperDesc } from '@bufbuild/protobuf/wkt'

/** Which spellings {@link respell} may use. */
export interface SpellingOptions {
  /** Proto field names instead of JSON names (the input schema does not list them). */
  protoNames: boolean
  /** Enum values as numbers (the input schema rejects them). */
  enumNumbers: boolean
  /** 32-bit integers and finite floats as strings (the input schema rejects them). */
  numbersAsStrings: boolean
  /** `null` for fields left out (the input schema has no null types). */
  nulls: boolean
  /** `null` also for message and enum members of a oneof beside its set member (the known deviation "null for a oneof member beside a set member"). */
  nullsInOneofs: boolean
}

/** Every spelling protobuf JSON allows. */
export const ALL_SPELLINGS: SpellingOptions = {
  protoNames: true,
  enumNumbers: true,
  numbersAsStrings: true,
  nulls: true,
  nullsInOneofs: true,
}
/** The spellings the input schemas of docs/mapping.md, "Input schema: types" accept. */
export const SCHEMA_SPELLINGS: SpellingOptions = {
  protoNames: false,
  enumNumbers: false,
  numbersAsStrings: false,
  nulls: false,
  nullsInOneofs: false,
}

/** A small seeded PRNG (mulberry32), so a spelling is a pure function of its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const SIGNED_64 = new Set([ScalarType.INT64, ScalarType.SINT64, ScalarType.SFIXED64])
const UNSIGNED_64 = new Set([ScalarType.UINT64, ScalarType.FIXED64])
const INT_32 = new Set([ScalarType.INT32, ScalarType.SINT32, ScalarType.SFIXED32, ScalarType.UINT32, ScalarType.FIXED32])
const FLOATS = new Set([ScalarType.FLOAT, ScalarType.DOUBLE])
const FRACTION_RE = /^(.*?)(?:\.(\d+))?(Z|s)$/

/** Pads a fraction of seconds to nine digits (`1.5s` → `1.500000000s`); valid in timestamps and durations. */
const padFraction = (text: string): string =>
  text.replace(FRACTION_RE, (_m, head: string, frac: string | undefined, end: string) => `${head}.${(frac ?? '').padEnd(9, '0')}${end}`)

/**
 * Rewrites canonical JSON `json` of message `desc` into an equivalent
 * spelling, choosing at random (from `random`) among the ones `options`
 * allows. The result decodes to the same message.
 */
export function respell(desc: DescMessage, json: JsonValue, random: () => number, options: SpellingOptions, registry: Registry): JsonValue {
  const coin = (): boolean => random() < 0.5

  const scalar = (type: ScalarType, value: JsonValue): JsonValue => {
    if (SIGNED_64.has(type) || UNSIGNED_64.has(type)) {
      const big = BigInt(value as string)
      if (big >= -(2n ** 53n) && big <= 2n ** 53n && coin()) return Number(big)
      return value
    }
    if (INT_32.has(type)) return options.numbersAsStrings && coin() ? String(value) : value
    if (FLOATS.has(type)) {
      if (typeof value === 'number' && options.numbersAsStrings && coin()) return String(value)
      return value
    }
    if (type === ScalarType.BYTES && typeof value === 'string') {
      let text = value
      if (coin()) text = text.replace(/\+/g, '-').replace(/\//g, '_')
      if (coin()) text = text.replace(/=+$/, '')
      return text
    }
    return value
  }

  const singular = (field: DescField, value: JsonValue): JsonValue => {
    if (value === null) return value
    if (
      field.fieldKind === 'scalar' ||
      (field.fieldKind === 'list' && field.listKind === 'scalar') ||
      (field.fieldKind === 'map' && field.mapKind === 'scalar')
    )
      return scalar(field.scalar!, value)
    const enm = field.enum
    if (enm) {
      if (enm.typeName === 'google.protobuf.NullValue' || !options.enumNumbers || typeof value !== 'string' || !coin()) return value
      return enm.values.find((v) => v.name === value)?.number ?? value
    }
    return message(field.message!, value)
  }

  const message = (type: DescMessage, value: JsonValue): JsonValue => {
    switch (type.typeName) {
      case 'google.protobuf.Timestamp':
      case 'google.protobuf.Duration':
        return typeof value === 'string' && coin() ? padFraction(value) : value
      case 'google.protobuf.Struct':
      case 'google.protobuf.Value':
      case 'google.protobuf.ListValue':
      case 'google.protobuf.FieldMask':
      case 'google.protobuf.Empty':
        return value
      case 'google.protobuf.Any':
        return any(value)
    }
    if (isWrapperDesc(type)) return singular(type.fields[0]!, value)
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
    const out: Record<string, JsonValue> = {}
    for (const field of type.fields) {
      const fieldValue = value[field.jsonName]
      const key = options.protoNames && coin() ? field.name : field.jsonName
      if (fieldValue === undefined) {
        // null means "absent", except for Value and NullValue, where it is a value.
        const nullIsValue = field.message?.typeName === 'google.protobuf.Value' || field.enum?.typeName === 'google.protobuf.NullValue'
        const nullInOneof = !options.nullsInOneofs && field.oneof !== undefined && field.fieldKind !== 'scalar'
        if (options.nulls && !nullIsValue && !nullInOneof && random() < 0.1) out[key] = null
        continue
      }
      if (field.fieldKind === 'list' && Array.isArray(fieldValue)) out[key] = fieldValue.map((item) => singular(field, item))
      else if (field.fieldKind === 'map' && fieldValue !== null && typeof fieldValue === 'object' && !Array.isArray(fieldValue)) {
        const map: Record<string, JsonValue> = {}
        for (const [k, v] of Object.entries(fieldValue))
          Object.defineProperty(map, k, { value: singular(field, v), enumerable: true, writable: true, configurable: true })
        out[key] = map
      } else out[key] = singular(field, fieldValue)
    }
    return out
  }

  const any = (value: JsonValue): JsonValue => {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof value['@type'] !== 'string') return value
    const typeUrl = value['@type']
    const inner = registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf('/') + 1))
    if (!inner) return value
    if (hasCustomJsonRepresentation(inner)) return { '@type': typeUrl, value: message(inner, value.value!) }
    const { '@type': _type, ...body } = value
    const spelled = message(inner, body as JsonValue) as Record<string, JsonValue>
    return { '@type': typeUrl, ...spelled }
  }

  return message(desc, json)
}
