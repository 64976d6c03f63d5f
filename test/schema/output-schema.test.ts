/**
 * outputSchema (docs/mapping.md, "Output schema", default profile) accepts what protobufjs
 * ext/protojson's toJson emits, and nothing looser than needed.
 */
import protobuf from 'protobufjs'
import protojson from 'protobufjs/ext/protojson.js'
import Ajv2020 from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { buildTools } from '../../src/schema/build-tools.ts'
import { compile } from '../helpers/inline-proto.ts'

const model = compile(`
import "google/protobuf/any.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/empty.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";

enum Color { COLOR_UNSPECIFIED = 0; COLOR_RED = 1; }
message Item { string id = 1; repeated Item children = 2; }
message Out {
  int32 i32 = 1; uint32 u32 = 2; int64 i64 = 3; uint64 u64 = 4; sint64 s64 = 5; fixed64 f64 = 6; sfixed64 sf64 = 7;
  float f = 8; double d = 9; bool b = 10; string s = 11; bytes by = 12; Color color = 13;
  repeated int64 many = 14; repeated Color colors = 15; map<int64, Item> by_id = 16; map<bool, double> flags = 17;
  Item item = 18; optional string maybe = 19;
  oneof pick { string text = 20; Item picked = 21; }
  google.protobuf.Timestamp at = 22; google.protobuf.Duration ttl = 23; google.protobuf.FieldMask mask = 24;
  google.protobuf.Struct meta = 25; google.protobuf.Value value = 26; google.protobuf.ListValue list = 27;
  google.protobuf.Empty nothing = 28; google.protobuf.Any any = 29;
  google.protobuf.Int64Value w64 = 30; google.protobuf.UInt64Value wu64 = 31; google.protobuf.DoubleValue wd = 32;
  google.protobuf.BytesValue wb = 33; google.protobuf.BoolValue wbool = 34; google.protobuf.StringValue ws = 35;
  google.protobuf.Int32Value w32 = 36; google.protobuf.UInt32Value wu32 = 37; google.protobuf.FloatValue wf = 38;
  optional google.protobuf.NullValue null_value = 39; int32 renamed = 40 [json_name = "customName"];
}
service S { rpc Get(google.protobuf.Empty) returns (Out); rpc Echo(Out) returns (Item); }
`)
const { tools } = buildTools(model, { profile: 'full' })
const schema = tools.find((t) => t.name === 'Get')!.outputSchema!
const root = protobuf.Root.fromJSON(model.descriptor)
const Out = root.lookupType('t.Out')
const ajv = new Ajv2020({ allErrors: true, strict: true })
addFormats(ajv)
const validate = ajv.compile(schema)

const inputs: Record<string, unknown>[] = [
  {},
  {
    i32: -2147483648,
    u32: 4294967295,
    i64: '-9223372036854775808',
    u64: '18446744073709551615',
    s64: '-1',
    f64: '18446744073709551615',
    sf64: '9223372036854775807',
    f: 'NaN',
    d: '-Infinity',
    b: true,
    s: 'x',
    by: '/+8=',
    color: 'COLOR_RED',
    many: ['1', 2, '-3'],
    colors: ['COLOR_RED', 'COLOR_UNSPECIFIED'],
    byId: { '-5': { id: 'a', children: [{ id: 'b', children: [{ id: 'c' }] }] } },
    flags: { true: 'Infinity', false: 1.5 },
    item: { id: 'i' },
    maybe: '',
    text: 'chosen',
    at: '2024-02-29T23:59:59.999999999Z',
    ttl: '-3.000001s',
    mask: 'a.b,cD',
    meta: { k: [1, { n: null }] },
    value: [1, 'two', null, { three: true }],
    list: [{}, [], 'x'],
    nothing: {},
    any: { '@type': 'type.googleapis.com/t.Item', id: 'packed' },
    w64: '-7',
    wu64: '8',
    wd: 'Infinity',
    wb: 'AA==',
    wbool: false,
    ws: '',
    w32: 0,
    wu32: 1,
    wf: 0.5,
    nullValue: null,
    customName: 9,
  },
  { picked: { id: 'p' }, value: null, any: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '1s' } },
  { value: 'str', any: {}, at: '0001-01-01T00:00:00Z' },
]

describe('outputSchema', () => {
  it('exists for every tool in the default profile', () => {
    expect(tools.map((t) => [t.name, t.outputSchema?.type])).toEqual([
      ['Get', 'object'],
      ['Echo', 'object'],
    ])
  })

  it.each(inputs.map((input, i) => [i, input] as const))('validates protojson.toJson of message #%i', (_i, input) => {
    const json = protojson.toJson(Out, protojson.fromJson(Out, input))
    expect(validate(json), `${JSON.stringify(json)}\n${JSON.stringify(validate.errors)}`).toBe(true)
  })

  it('validates enum values the enum does not declare, written as numbers', () => {
    const json = protojson.toJson(Out, Out.create({ color: 7, colors: [1, 9] }))
    expect(json).toMatchObject({ color: 7, colors: ['COLOR_RED', 9] })
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true)
  })

  it("describes exactly the encoder's forms: 64-bit only as strings, keys only JSON names", () => {
    expect(validate({ i64: 5 })).toBe(false)
    expect(validate({ u64: '-1' })).toBe(false)
    expect(validate({ w64: 5 })).toBe(false)
    expect(validate({ f: 'nan' })).toBe(false)
    expect(validate({ renamed: 1 })).toBe(false)
    expect(validate({ null_value: null })).toBe(false)
    expect(validate({ nullValue: 'NULL_VALUE' })).toBe(false)
    expect(validate({ color: 'COLOR_BLUE' })).toBe(false)
    expect(validate({ item: { id: 'x', extra: 1 } })).toBe(false)
  })

  it('puts recursion into $defs and keeps field descriptions and oneof notes', () => {
    expect(Object.keys(schema.$defs as object)).toEqual(['t.Item'])
    expect((schema.properties as Record<string, { description?: string }>).text?.description).toBe(
      'Part of the "pick" oneof: at most one of its fields may be set.',
    )
  })
})
