/**
 * Hand-picked protobuf JSON inputs at the edges of the mapping: spellings a
 * decoder must accept and inputs it must reject. The differential suite
 * only checks that the codec under test and bufbuild agree on each (accept
 * or reject, and the same message); it does not say which way.
 */
import { create, type Message } from '@bufbuild/protobuf'
import type { Oracle } from './oracle.ts'

/** One input: a message type of corpus.proto (short name) and the JSON given for it. */
export interface EdgeCase {
  type: string
  json: unknown
  /** The guide's name (docs/guide/protobuf-json.md) of the known deviation this input shows, if it shows one. */
  deviation?: string
}

/** The known deviations (README, "Protobuf JSON: known deviations"), by the names their pinning tests carry. */
export const DEVIATIONS = {
  negativeZero: 'negative zero in an implicit-presence float field is dropped',
  nullOneofMember: 'null for a oneof member beside a set member is accepted',
  hexStrings: 'hexadecimal number strings are rejected',
  exponentStrings64: 'exponent strings for 64-bit integers are accepted',
  spacedStrings64: 'whitespace around 64-bit integer strings is rejected',
  strictBase64: 'malformed base64 is rejected',
  numberSyntaxMapKeys: 'map keys in number syntax are rejected',
  impossibleDates: 'impossible timestamp dates are rejected',
  anyTypeUrl: 'Any type URLs are kept as given',
  valueWithoutKind: 'a Value with no kind encodes as null',
  extensionKeys: "a proto2 extension's key is its dotted full name",
} as const

const dev =
  (deviation: string) =>
  (c: EdgeCase): EdgeCase => ({ ...c, deviation })

const S = (json: unknown): EdgeCase => ({ type: 'Scalars', json })
const C = (json: unknown): EdgeCase => ({ type: 'Corpus', json })
const W = (json: unknown): EdgeCase => ({ type: 'WellKnown', json })
const M = (json: unknown): EdgeCase => ({ type: 'Maps', json })
const R = (json: unknown): EdgeCase => ({ type: 'RepeatedScalars', json })
const O = (json: unknown): EdgeCase => ({ type: 'OptionalScalars', json })

const INT32_FIELDS = ['fInt32', 'fSint32', 'fSfixed32']
const UINT32_FIELDS = ['fUint32', 'fFixed32']
const INT64_FIELDS = ['fInt64', 'fSint64', 'fSfixed64']
const UINT64_FIELDS = ['fUint64', 'fFixed64']
const FLOAT_FIELDS = ['fFloat', 'fDouble']

const each = (fields: string[], values: unknown[]): EdgeCase[] => fields.flatMap((f) => values.map((v) => S({ [f]: v })))

/** Every edge case, grouped by what they exercise. */
export const EDGE_CASES: readonly EdgeCase[] = [
  // Integers: ranges, exponents, fractions, strings, whitespace, signs.
  ...each(INT32_FIELDS, [
    2147483647,
    -2147483648,
    2147483648,
    -2147483649,
    '2147483647',
    '2147483648',
    1.5,
    '1.5',
    1e2,
    '1e2',
    '1E2',
    1.0,
    '1.0',
    '-0',
    '+1',
    ' 1',
    '1 ',
    '',
    '01',
    'abc',
    true,
    null,
    [],
    {},
    1e10,
    '1e10',
    0.5e1,
    '5e-1',
    '-1e0',
  ]),
  ...each(UINT32_FIELDS, [4294967295, 4294967296, -1, '-1', '4294967295', '-0', 1e9, '1e9']),
  ...each(INT64_FIELDS, [
    '9223372036854775807',
    '-9223372036854775808',
    '9223372036854775808',
    '-9223372036854775809',
    /* eslint-disable no-loss-of-precision -- numbers past 2^53, as JSON.parse gives them, are the point */
    9007199254740991,
    9007199254740993,
    1e18,
    1e19,
    '1e19',
    1.5,
    '1.5',
    '-0',
    '+5',
    '',
    '05',
    '9223372036854775807.0',
    9223372036854775807,
    1e30,
  ]),
  ...each(UINT64_FIELDS, ['18446744073709551615', '18446744073709551616', '-1', -1, '-5', 1e19, '1e20', 18446744073709551615]),
  /* eslint-enable no-loss-of-precision */
  // Floats: non-finite strings, exponent strings, out of range, bad spellings.
  ...each(FLOAT_FIELDS, [
    'NaN',
    'Infinity',
    '-Infinity',
    'nan',
    'inf',
    '-inf',
    'infinity',
    '1.5',
    '1e5',
    ' 1',
    '1 ',
    '',
    '1.',
    '.5',
    '-.5',
    '+1',
    1e308,
    '1e309',
    '-1e309',
    3.4028234663852886e38,
    3.5e38,
    '3.5e38',
    -3.5e38,
    1e-50,
    '1e-50',
    true,
    '12abc',
  ]),
  // Bools, strings, bytes.
  S({ fBool: 'true' }),
  S({ fBool: 1 }),
  S({ fBool: 0 }),
  S({ fBool: 'false' }),
  S({ fString: 5 }),
  S({ fString: true }),
  S({ fString: '\ud800' }),
  S({ fString: 'a\udc00' }),
  S({ fString: '\ud83d\ude00' }),
  ...[
    'AQID',
    'AQI=',
    'AQI',
    'AQ==',
    'AQ',
    'A',
    '-_-_',
    '+/+/',
    '!!!!',
    'AQ=D',
    '',
    5,
    '-_',
    'QUJD',
    'QUJDRA',
    'QUJDRA==',
    '_w',
    '_w==',
    '/w==',
    '/w',
    'A-/_',
    'AQ.D',
  ].map((b) => S({ fBytes: b })),
  // Enums: names, numbers, unknowns, aliases, wrong types.
  C({ color: 'COLOR_RED' }),
  C({ color: 1 }),
  C({ color: 99 }),
  C({ color: -1 }),
  C({ color: 'COLOR_NEGATIVE' }),
  C({ color: 'RED' }),
  C({ color: 'color_red' }),
  C({ color: 1.5 }),
  C({ color: '1' }),
  C({ color: true }),
  C({ color: 2147483648 }),
  C({ color: null }),
  C({ colors: ['COLOR_RED', 5, -7] }),
  C({ colors: ['NOPE'] }),
  C({ colors: [null] }),
  C({ level: 'LEVEL_MINIMAL' }),
  C({ level: 'LEVEL_LOW' }),
  C({ level: 1 }),
  // Field names: JSON names, proto names, both at once, custom json_name, unknown keys.
  C({ fieldWith2Digits: 1 }),
  C({ field_with_2_digits: 1 }),
  C({ fieldWith2Digits: 1, field_with_2_digits: 2 }),
  C({ renamed: 'a' }),
  C({ custom_json: 'a' }),
  C({ customJson: 'a' }),
  C({ renamed: 'a', custom_json: 'b' }),
  C({ LeadingUnderscore: 'a' }),
  C({ _leading_underscore: 'a' }),
  C({ leadingUnderscore: 'a' }),
  C({ unknown: 1 }),
  C({ '': 1 }),
  C(JSON.parse('{"__proto__":1}')),
  C({ X: 'a' }),
  C({ x: 'a' }),
  // Oneofs: one member, two members, nulls.
  C({ cString: 'a', cInt64: '1' }),
  C({ cString: 'a', cString2: 1 }),
  C({ cString: null, cInt64: '5' }),
  C({ cValue: null }),
  C({ cValue: null, cString: 'a' }),
  C({ cString: '' }),
  C({ cInt64: 0 }),
  C({ cColor: 'COLOR_UNSPECIFIED' }),
  C({ cLeaf: {} }),
  C({ cBytes: '' }),
  C({ cTimestamp: '1970-01-01T00:00:00Z' }),
  C({ cValue: { a: [1, null] } }),
  C({ c_string: 'a', cString: 'b' }),
  // Optional scalars: presence of defaults.
  O({ oInt32: 0 }),
  O({ oString: '' }),
  O({ oBool: false }),
  O({ oBytes: '' }),
  O({ oColor: 'COLOR_UNSPECIFIED' }),
  O({ oDouble: 0 }),
  O({ oInt64: '0' }),
  O({ oInt32: null }),
  O({ oColor: 0 }),
  // Repeated: nulls, wrong shapes, packed and unpacked.
  R({ rInt32: [1, null] }),
  R({ rInt32: 1 }),
  R({ rInt32: {} }),
  R({ rInt32: null }),
  R({ rInt32: [] }),
  R({ rUnpacked: [1, 2, 3] }),
  R({ rString: ['a', 5] }),
  R({ rBytes: ['AQ', '-_'] }),
  R({ rDouble: ['NaN', 'Infinity', 1] }),
  R({ rInt64: [1, '2', 3e3] }),
  // Maps: key spellings per kind, null values, wrong shapes.
  M({ kInt32: { 1: 'a', '-1': 'b' } }),
  M({ kInt32: { '01': 'a' } }),
  M({ kInt32: { ' 1': 'a' } }),
  M({ kInt32: { 2147483648: 'a' } }),
  M({ kInt32: { abc: 'a' } }),
  M({ kInt32: { '': 'a' } }),
  M({ kInt32: { '-0': 'a' } }),
  M({ kInt32: { 1: null } }),
  M({ kInt32: [] }),
  M({ kInt32: null }),
  M({ kInt64: { '9223372036854775807': '1', '-9223372036854775808': 2 } }),
  M({ kInt64: { '9223372036854775808': '1' } }),
  M({ kUint32: { '-1': true } }),
  M({ kUint32: { 4294967295: true } }),
  M({ kUint64: { '18446744073709551615': 1 } }),
  M({ kUint64: { '-1': 1 } }),
  M({ kSint32: { '-5': 'COLOR_RED', 7: 3 } }),
  M({ kSint64: { '-5': 'AQ' } }),
  M({ kFixed32: { 1: 'NaN' } }),
  M({ kFixed64: { 1: '1' } }),
  M({ kSfixed32: { '-1': {} } }),
  M({ kSfixed32: { 1: null } }),
  M({ kSfixed64: { '-1': 'a' } }),
  M({ kBool: { true: 1, false: 2 } }),
  M({ kBool: { True: 1 } }),
  M({ kBool: { 1: 1 } }),
  M({ kBool: { '': 1 } }),
  M({ kString: JSON.parse('{"":"","__proto__":"x"}') }),
  M({ kString: { a: 5 } }),
  M({ vMessage: { a: { name: 'n' } } }),
  M({ vMessage: { a: null } }),
  M({ vEnum: { a: 'COLOR_RED', b: 7, c: 'NOPE' } }),
  M({ vEnum: { a: null } }),
  M({ vValue: { a: null, b: [1, 'x', null, { c: true }] } }),
  M({ vTimestamp: { a: '2020-01-01T00:00:00Z' } }),
  M({ vTimestamp: { a: null } }),
  M({ vWrapper: { a: '5', b: 5, c: null } }),
  // Timestamps.
  ...[
    '1970-01-01T00:00:00Z',
    '1970-01-01T00:00:00.000Z',
    '1970-01-01T00:00:00.123456789Z',
    '1970-01-01T00:00:00.1234567890Z',
    '1970-01-01T01:00:00+01:00',
    '1970-01-01T00:00:00-00:00',
    '1970-01-01t00:00:00z',
    '1970-01-01T00:00:00',
    '1970-01-01 00:00:00Z',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999999999Z',
    '0000-12-31T23:59:59Z',
    '10000-01-01T00:00:00Z',
    '2020-02-29T00:00:00Z',
    '2020-13-01T00:00:00Z',
    '2020-01-01T23:60:00Z',
    '2020-01-01T23:59:60Z',
    '2020-01-01T00:00:00+24:00',
    '2020-01-01T00:00:00+0100',
    '0001-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59-01:00',
    '1969-12-31T23:59:59.5Z',
    '2020-01-01T00:00:00.Z',
    20200101,
    '',
    '1970-01-01T00:00:00.1+01:00',
  ].map((t) => W({ timestamp: t })),
  // Durations.
  ...[
    '0s',
    '1s',
    '-1s',
    '1.5s',
    '-1.5s',
    '0.000000001s',
    '-0.000000001s',
    '1.0000000001s',
    '315576000000s',
    '315576000001s',
    '-315576000000.999999999s',
    '-315576000001s',
    '1',
    '1S',
    ' 1s',
    '+1s',
    '1.s',
    '.5s',
    '-0s',
    '-0.5s',
    '1e3s',
    '00001s',
    5,
    '',
    '315576000000.999999999s',
    '0.5000s',
  ].map((d) => W({ duration: d })),
  // Field masks.
  ...['', 'a', 'fooBar', 'foo_bar', 'fooBar.bazQux', 'a,b', 'a, b', 'a,,b', 'FooBar', 'foo1', 'foo1Bar', 'a.b.c', ',', 'fooBAR', 5].map(
    (m) => W({ fieldMask: m }),
  ),
  // Structs, values, lists.
  W({ struct: { a: 1, b: [null, true, 'x', { c: {} }] } }),
  W({ struct: [] }),
  W({ struct: null }),
  W({ struct: 'x' }),
  W({ value: null }),
  W({ value: 1 }),
  W({ value: 'NaN' }),
  W({ value: [] }),
  W({ value: {} }),
  W({ value: { a: null } }),
  W({ listValue: [1, 'a', null, [], {}] }),
  W({ listValue: {} }),
  W({ listValue: null }),
  W({ listValue: 5 }),
  W({ values: [null, 1, 'a'] }),
  W({ values: null }),
  W({ nullValue: null }),
  W({ nullValue: 'NULL_VALUE' }),
  W({ nullValue: 0 }),
  W({ nullValue: 1 }),
  W({ nullValue: 'x' }),
  // Empty and wrappers.
  W({ empty: {} }),
  W({ empty: { a: 1 } }),
  W({ empty: null }),
  W({ empty: [] }),
  W({ doubleValue: 0 }),
  W({ doubleValue: 'NaN' }),
  W({ doubleValue: null }),
  W({ doubleValue: { value: 1 } }),
  W({ floatValue: 3.5e38 }),
  W({ int64Value: '5' }),
  W({ int64Value: 5 }),
  W({ int64Value: '0' }),
  W({ uint64Value: '-1' }),
  W({ int32Value: 2147483648 }),
  W({ uint32Value: -1 }),
  W({ boolValue: false }),
  W({ boolValue: 'true' }),
  W({ stringValue: '' }),
  W({ stringValue: 5 }),
  W({ bytesValue: 'AQ' }),
  W({ bytesValue: '!!' }),
  W({ int32Values: [1, null, 2] }),
  W({ int32Values: [0] }),
  W({ timestamps: ['1970-01-01T00:00:00Z', null] }),
  // Any: packed messages, packed well-known types, bad URLs and shapes.
  W({ any: { '@type': 'type.googleapis.com/protojson.v1.Leaf', name: 'n', weight: '5' } }),
  W({ any: { '@type': 'type.googleapis.com/protojson.v1.Leaf', name: 'n', nope: 1 } }),
  W({ any: { '@type': 'type.googleapis.com/protojson.v1.Leaf' } }),
  W({ any: { '@type': 'type.googleapis.com/protojson.v1.Nope' } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1s' } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1s', extra: 1 } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Duration' } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Timestamp', value: '1970-01-01T00:00:00Z' } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Int32Value', value: 5 } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Value', value: null } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Value', value: { a: 1 } } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Struct', value: { a: 1 } } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Empty', value: {} } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.Empty' } }),
  W({ any: { '@type': 'type.googleapis.com/google.protobuf.FieldMask', value: 'a,bC' } }),
  W({
    any: { '@type': 'type.googleapis.com/google.protobuf.Any', value: { '@type': 'type.googleapis.com/protojson.v1.Leaf', name: 'x' } },
  }),
  W({ any: {} }),
  W({ any: { name: 'x' } }),
  W({ any: { '@type': 5 } }),
  W({ any: { '@type': '' } }),
  W({ any: null }),
  W({ any: [] }),
  W({ anys: [{ '@type': 'type.googleapis.com/protojson.v1.Leaf' }, {}] }),
  // Messages: wrong shapes and nesting.
  C({ leaf: [] }),
  C({ leaf: 'x' }),
  C({ leaf: null }),
  C({ leaves: [null] }),
  C({ leaves: [{}] }),
  C({ tree: { children: [{ children: [{}] }] } }),
  C({ tree: { next: { next: { next: { label: 'deep' } } } } }),
  C({ tree: { branch: { node: { branch: { depth: 1 } } } } }),
  C({ scalars: { fInt32: 1 }, maps: {}, wellKnown: {} }),
  C({ scalars: { f_int32: 1, fInt32: 2 } }),
  // Not messages at all.
  C(null),
  C([]),
  C('x'),
  C(5),
  C(true),

  // Known deviations: each input shows its deviation (and the suite checks it still does).
  ...each(FLOAT_FIELDS, [-0]).map(dev(DEVIATIONS.negativeZero)),
  ...[C({ cString: 'x', cColor: null }), C({ cLeaf: null, cString: 'x' }), C({ cTimestamp: null, cInt64: 1 })].map(
    dev(DEVIATIONS.nullOneofMember),
  ),
  ...[...each([...INT32_FIELDS, ...INT64_FIELDS], ['0x10']), ...each(FLOAT_FIELDS, ['0x1'])].map(dev(DEVIATIONS.hexStrings)),
  ...each([...INT64_FIELDS, ...UINT64_FIELDS], ['1e18', '1.5e3']).map(dev(DEVIATIONS.exponentStrings64)),
  ...each(INT64_FIELDS, [' 5', '5 ']).map(dev(DEVIATIONS.spacedStrings64)),
  ...['AQ=', 'A===', 'AQID\n', ' AQID', 'AQ==AQ==', '====', 'QUJD=', 'QUJDRA=']
    .map((b) => S({ fBytes: b }))
    .map(dev(DEVIATIONS.strictBase64)),
  ...['+1', '1.0', '1e2'].map((k) => M({ kInt32: { [k]: 'a' } })).map(dev(DEVIATIONS.numberSyntaxMapKeys)),
  ...['2020-02-30T00:00:00Z', '2019-02-29T00:00:00Z', '2020-04-31T00:00:00Z', '2020-01-01T24:00:00Z']
    .map((t) => W({ timestamp: t }))
    .map(dev(DEVIATIONS.impossibleDates)),
  ...['example.com/a/b/protojson.v1.Leaf', 'protojson.v1.Leaf', '/protojson.v1.Leaf']
    .map((url) => W({ any: { '@type': url, name: 'x' } }))
    .map(dev(DEVIATIONS.anyTypeUrl)),
]

/** A message given to the encoder as binary: one the binary form allows but whose JSON form may not exist. */
export interface EncodeCase {
  name: string
  type: string
  /** Builds the message's binary with the oracle's types (bufbuild `create` does not validate). */
  bytes(oracle: Oracle): Uint8Array
  deviation?: string
}

const wellKnown = (name: string, init: (m: (type: string, init: object) => Message) => object, deviation?: string): EncodeCase => ({
  name,
  type: 'WellKnown',
  bytes: (oracle) => {
    const m = (type: string, value: object): Message => create(oracle.message(type), value as never)
    return oracle.toBinary('protojson.v1.WellKnown', m('protojson.v1.WellKnown', init(m)))
  },
  ...(deviation ? { deviation } : {}),
})

const TS = 'google.protobuf.Timestamp'
const DUR = 'google.protobuf.Duration'
const FM = 'google.protobuf.FieldMask'
const VAL = 'google.protobuf.Value'
const ANY_T = 'google.protobuf.Any'
const LEAF_A = new Uint8Array([10, 1, 97])

/** Messages at the edges of what has a JSON form: out-of-range times, masks that do not map, unknown Any types. */
export const ENCODE_CASES: readonly EncodeCase[] = [
  wellKnown('timestamp after 9999', (m) => ({ timestamp: m(TS, { seconds: 253402300800n }) })),
  wellKnown('timestamp before 0001', (m) => ({ timestamp: m(TS, { seconds: -62135596801n }) })),
  wellKnown('timestamp at the limits', (m) => ({
    timestamps: [m(TS, { seconds: 253402300799n, nanos: 999999999 }), m(TS, { seconds: -62135596800n })],
  })),
  wellKnown('timestamp with negative nanos', (m) => ({ timestamp: m(TS, { seconds: 1n, nanos: -1 }) })),
  wellKnown('timestamp with a second of nanos', (m) => ({ timestamp: m(TS, { seconds: 1n, nanos: 1000000000 }) })),
  wellKnown('duration too long', (m) => ({ duration: m(DUR, { seconds: 315576000001n }) })),
  wellKnown('duration with mixed signs', (m) => ({ duration: m(DUR, { seconds: 1n, nanos: -1 }) })),
  wellKnown('duration of negative nanos only', (m) => ({ duration: m(DUR, { nanos: -5 }) })),
  wellKnown('duration with a second of nanos', (m) => ({ duration: m(DUR, { nanos: 1000000000 }) })),
  ...['fooBar', 'foo__bar', 'foo_1', 'foo1_bar', '', 'a,b', 'a.b_c', '_a'].map((path) =>
    wellKnown(`field mask path ${JSON.stringify(path)}`, (m) => ({ fieldMask: m(FM, { paths: [path] }) })),
  ),
  wellKnown('value NaN', (m) => ({ value: m(VAL, { kind: { case: 'numberValue', value: NaN } }) })),
  wellKnown('value Infinity', (m) => ({ value: m(VAL, { kind: { case: 'numberValue', value: Infinity } }) })),
  wellKnown('value with no kind', (m) => ({ value: m(VAL, {}) }), DEVIATIONS.valueWithoutKind),
  wellKnown('list item with no kind', (m) => ({ values: [m(VAL, {})] }), DEVIATIONS.valueWithoutKind),
  wellKnown('any of an unknown type', (m) => ({
    any: m(ANY_T, { typeUrl: 'type.googleapis.com/nope.Nope', value: new Uint8Array([8, 1]) }),
  })),
  wellKnown('any with bad bytes', (m) => ({
    any: m(ANY_T, { typeUrl: 'type.googleapis.com/protojson.v1.Leaf', value: new Uint8Array([0xff]) }),
  })),
  wellKnown('any with bytes but no type', (m) => ({ any: m(ANY_T, { value: new Uint8Array([8, 1]) }) })),
  wellKnown('any with a type URL without a slash', (m) => ({ any: m(ANY_T, { typeUrl: 'protojson.v1.Leaf', value: LEAF_A }) })),
  wellKnown('any with a custom prefix', (m) => ({ any: m(ANY_T, { typeUrl: 'example.com/x/protojson.v1.Leaf', value: LEAF_A }) })),
  wellKnown('any of an empty message', (m) => ({ any: m(ANY_T, { typeUrl: 'type.googleapis.com/protojson.v1.Leaf' }) })),
  wellKnown('any of an empty timestamp', (m) => ({ any: m(ANY_T, { typeUrl: 'type.googleapis.com/google.protobuf.Timestamp' }) })),
  wellKnown('any of a wrapper', (m) => ({
    any: m(ANY_T, { typeUrl: 'type.googleapis.com/google.protobuf.Int64Value', value: new Uint8Array([8, 5]) }),
  })),
  wellKnown('any of Empty', (m) => ({ any: m(ANY_T, { typeUrl: 'type.googleapis.com/google.protobuf.Empty' }) })),
  wellKnown('unknown NullValue number', () => ({ nullValue: 1 })),
  wellKnown('struct member null', () => ({ struct: { a: null } })),
]
