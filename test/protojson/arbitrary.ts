/**
 * Random messages of any message type, from its @bufbuild/protobuf
 * descriptor: every field kind, presence, oneofs, maps, recursion to a
 * bounded depth, unknown enum numbers and valid well-known type values.
 */
import fc from 'fast-check'
import { create, fromJson, toJson, ScalarType, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf'
import { anyPack, isWrapperDesc } from '@bufbuild/protobuf/wkt'
import type { Oracle } from './oracle.ts'

/** Options of {@link messageArbitrary}. */
export interface MessageArbitraryOptions {
  /** How many message levels below the root may be set. @default 3 */
  maxDepth?: number
  /** Whether enum fields may hold numbers the enum does not declare. @default true */
  unknownEnums?: boolean
  /** Whether an `Any` may be left without a type URL (JSON `{}`). @default true */
  emptyAny?: boolean
  /** Messages (full names) an `Any` may pack, beside a few well-known types. @default the proto's own messages */
  anyTypes?: readonly string[]
  /** Whether floats may be `-0` (a known deviation of the runtime codec in implicit-presence fields). @default true */
  negativeZero?: boolean
}

const INT32_EDGES = [0, 1, -1, 2147483647, -2147483648]
const UINT32_EDGES = [0, 1, 4294967295, 2147483648]
const INT64_EDGES = [0n, 1n, -1n, 9007199254740991n, 9007199254740993n, 9223372036854775807n, -9223372036854775808n]
const UINT64_EDGES = [0n, 1n, 9007199254740993n, 18446744073709551615n]
const DOUBLE_EDGES = [0, -0, NaN, Infinity, -Infinity, 0.1, 1e21, 1e-7, 5e-324, 1.7976931348623157e308, 123456789.125]
const FLOAT_EDGES = [0, -0, NaN, Infinity, -Infinity, 0.1, 3.4028234663852886e38, 1.401298464324817e-45, 16777217]

const withEdges = <T>(edges: readonly T[], arb: fc.Arbitrary<T>): fc.Arbitrary<T> =>
  fc.oneof({ arbitrary: fc.constantFrom(...edges), weight: 1 }, { arbitrary: arb, weight: 3 })

/** A random value of a scalar kind, in bufbuild's representation (bigint for 64-bit). */
export function scalarArbitrary(scalar: ScalarType, negativeZero = true): fc.Arbitrary<unknown> {
  const zeroes = (n: number): number => (negativeZero || !Object.is(n, -0) ? n : 0)
  switch (scalar) {
    case ScalarType.DOUBLE:
      return withEdges(DOUBLE_EDGES, fc.double()).map(zeroes)
    case ScalarType.FLOAT:
      return withEdges(FLOAT_EDGES, fc.float()).map(zeroes)
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return withEdges(INT32_EDGES, fc.integer())
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return withEdges(UINT32_EDGES, fc.integer({ min: 0, max: 4294967295 }))
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return withEdges(INT64_EDGES, fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }))
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return withEdges(UINT64_EDGES, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))
    case ScalarType.BOOL:
      return fc.boolean()
    case ScalarType.STRING:
      return fc.oneof(fc.string(), fc.string({ unit: 'binary', maxLength: 8 }), fc.constantFrom('', '__proto__', 'a"b\\c', '\u0000'))
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 12 })
  }
  throw new Error(`no arbitrary for scalar ${scalar}`)
}

/** A map key of a scalar kind (bufbuild keys 64-bit maps by bigint, bool maps by boolean). */
function mapKeyArbitrary(scalar: ScalarType): fc.Arbitrary<unknown> {
  return scalar === ScalarType.STRING
    ? fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor', '1', ''))
    : scalarArbitrary(scalar)
}

const SECONDS_MIN = -62135596800n
const SECONDS_MAX = 253402300799n
const DURATION_MAX = 315576000000n
// Paths whose lowerCamel form maps back to them (protobuf JSON's FieldMask rule).
const PATH_SEGMENT = fc.stringMatching(/^[a-z]{1,3}(_[a-z]{1,3}){0,2}$/)
const JSON_VALUE = fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<JsonValue>

/**
 * Random valid values of the well-known types that have a JSON form of their
 * own; `undefined` for other messages. Struct, Value and ListValue are made
 * from random JSON by bufbuild, so they are valid by construction.
 */
function wellKnownArbitrary(desc: DescMessage, oracle: Oracle): fc.Arbitrary<Message> | undefined {
  const fromJsonValue = (json: JsonValue): Message => fromJson(desc, json, { registry: oracle.registry })
  switch (desc.typeName) {
    case 'google.protobuf.Timestamp':
      return fc
        .tuple(fc.bigInt({ min: SECONDS_MIN, max: SECONDS_MAX }), fc.constantFrom(0, 1, 999999999, 500000000, 123000, 7))
        .map(([seconds, nanos]) => create(desc, { seconds, nanos } as never))
    case 'google.protobuf.Duration':
      return fc
        .tuple(fc.bigInt({ min: -DURATION_MAX, max: DURATION_MAX }), fc.constantFrom(0, 1, 999999999, 500000000, 120000))
        .map(([seconds, nanos]) => create(desc, { seconds, nanos: seconds < 0n ? -nanos : nanos } as never))
    case 'google.protobuf.FieldMask':
      return fc
        .array(
          fc.array(PATH_SEGMENT, { minLength: 1, maxLength: 2 }).map((p) => p.join('.')),
          { maxLength: 3 },
        )
        .map((paths) => create(desc, { paths } as never))
    case 'google.protobuf.Struct':
      return fc.dictionary(fc.string({ maxLength: 5 }), JSON_VALUE, { maxKeys: 3 }).map(fromJsonValue)
    case 'google.protobuf.Value':
      return JSON_VALUE.map(fromJsonValue)
    case 'google.protobuf.ListValue':
      return fc.array(JSON_VALUE, { maxLength: 3 }).map(fromJsonValue)
  }
  return undefined
}

/**
 * Random messages of `typeName` (a bufbuild `Message`), with every field
 * independently set or left unset; implicit-presence fields are often set
 * to their defaults too.
 */
export function messageArbitrary(oracle: Oracle, typeName: string, options: MessageArbitraryOptions = {}): fc.Arbitrary<Message> {
  const maxDepth = options.maxDepth ?? 3
  const unknownEnums = options.unknownEnums ?? true
  const emptyAny = options.emptyAny ?? true
  const negativeZero = options.negativeZero ?? true
  const scalarOf = (scalar: ScalarType): fc.Arbitrary<unknown> => scalarArbitrary(scalar, negativeZero)
  const anyTypes = options.anyTypes ?? oracle.messageNames
  const cache = new Map<string, fc.Arbitrary<Message>>()

  const messageOf = (desc: DescMessage, depth: number): fc.Arbitrary<Message> => {
    const key = `${desc.typeName}@${depth}`
    let arb = cache.get(key)
    if (!arb) cache.set(key, (arb = buildMessage(desc, depth)))
    return arb
  }

  const buildMessage = (desc: DescMessage, depth: number): fc.Arbitrary<Message> => {
    const known = wellKnownArbitrary(desc, oracle)
    if (known) return known
    if (desc.typeName === 'google.protobuf.Any') return anyOf(depth)
    const members: Record<string, fc.Arbitrary<unknown>> = {}
    for (const member of desc.members) {
      if (member.kind === 'oneof') {
        const cases = member.fields
          .filter((f) => f.fieldKind !== 'message' || depth < maxDepth)
          .map((f) => singular(f, depth).map((value) => ({ case: f.localName, value })))
        if (cases.length > 0) members[member.localName] = fc.option(fc.oneof(...cases), { nil: undefined })
        continue
      }
      const arb = fieldArbitrary(member, depth)
      if (arb) members[member.localName] = fc.option(arb, { nil: undefined, freq: 2 })
    }
    return fc.record(members, { requiredKeys: [] }).map((init) => {
      const clean = Object.fromEntries(Object.entries(init).filter(([, v]) => v !== undefined))
      return create(desc, clean as never)
    })
  }

  const enumValue = (field: DescField & { enum: NonNullable<DescField['enum']> }): fc.Arbitrary<number> => {
    const numbers = field.enum.values.map((v) => v.number)
    if (!unknownEnums || !field.enum.open || field.enum.typeName === 'google.protobuf.NullValue') return fc.constantFrom(...numbers)
    return fc.oneof({ arbitrary: fc.constantFrom(...numbers), weight: 4 }, { arbitrary: fc.integer(), weight: 1 })
  }

  const singular = (field: DescField, depth: number): fc.Arbitrary<unknown> => {
    if (field.fieldKind === 'scalar') return scalarOf(field.scalar)
    if (field.fieldKind === 'enum') return enumValue(field)
    if (field.fieldKind === 'message') return messageOf(field.message, depth + 1).map((m) => toLocal(field, m))
    throw new Error(`singular of a ${field.fieldKind} field`)
  }

  const fieldArbitrary = (field: DescField, depth: number): fc.Arbitrary<unknown> | undefined => {
    switch (field.fieldKind) {
      case 'scalar':
      case 'enum':
        return singular(field, depth)
      case 'message':
        return depth < maxDepth ? singular(field, depth) : undefined
      case 'list': {
        if (field.listKind === 'message' && depth >= maxDepth) return undefined
        const item =
          field.listKind === 'scalar'
            ? scalarOf(field.scalar)
            : field.listKind === 'enum'
              ? enumValue(field as never)
              : messageOf(field.message, depth + 1).map((m) => toLocal(field, m))
        return fc.array(item, { maxLength: 3 })
      }
      case 'map': {
        if (field.mapKind === 'message' && depth >= maxDepth) return undefined
        const value =
          field.mapKind === 'scalar'
            ? scalarOf(field.scalar)
            : field.mapKind === 'enum'
              ? enumValue(field as never)
              : messageOf(field.message, depth + 1).map((m) => toLocal(field, m))
        return fc.array(fc.tuple(mapKeyArbitrary(field.mapKey), value), { maxLength: 3 }).map((entries) => {
          const map: Record<string, unknown> = {}
          for (const [k, v] of entries)
            Object.defineProperty(map, String(k), { value: v, enumerable: true, writable: true, configurable: true })
          return map
        })
      }
    }
  }

  const anyOf = (depth: number): fc.Arbitrary<Message> => {
    const anyDesc = oracle.message('google.protobuf.Any')
    const packable = [
      ...(depth < maxDepth ? anyTypes : []),
      'google.protobuf.Timestamp',
      'google.protobuf.Duration',
      'google.protobuf.Struct',
      'google.protobuf.Value',
      'google.protobuf.Int64Value',
      'google.protobuf.Empty',
      'google.protobuf.FieldMask',
    ]
    const packed = fc.constantFrom(...packable).chain((name) => {
      const desc = oracle.message(name)
      return messageOf(desc, depth + 1).map((inner) => anyPack(desc, inner as never))
    })
    return emptyAny ? fc.oneof({ arbitrary: packed, weight: 5 }, { arbitrary: fc.constant(create(anyDesc)), weight: 1 }) : packed
  }

  /** A message value as bufbuild's `create` takes it for `field`: wrappers unboxed in singular fields, Structs as JSON objects. */
  const toLocal = (field: DescField, message: Message): unknown => {
    const desc = field.message!
    if (field.fieldKind === 'message' && !field.oneof && isWrapperDesc(desc)) return (message as unknown as { value: unknown }).value
    if (desc.typeName === 'google.protobuf.Struct' && field.parent.typeName !== 'google.protobuf.Value')
      return toJson(desc, message, { registry: oracle.registry })
    return message
  }

  return messageOf(oracle.message(typeName), 0)
}
