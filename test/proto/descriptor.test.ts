/**
 * The descriptor: what the runtime rebuilds with Root.fromJSON and encodes
 * with ext/protojson.
 */
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import protojson from 'protobufjs/ext/protojson.js'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { join } from 'node:path'
import { compile, writeProtos } from '../helpers/inline-proto.ts'

const example = fileURLToPath(new URL('../../fixtures/topeka/example.proto', import.meta.url))

const wkt = `
import "google/protobuf/any.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/wrappers.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/empty.proto";
message Unused { int32 x = 1; }
message Item { string item_id = 1; }
message Req {
  google.protobuf.Timestamp at = 1; google.protobuf.Duration ttl = 2; google.protobuf.Struct meta = 3;
  google.protobuf.Any any = 4; google.protobuf.Int64Value count = 5; google.protobuf.FieldMask mask = 6;
  google.protobuf.ListValue list = 7; int64 big = 8; Item item = 9; int32 renamed = 10 [json_name = "custom"];
}
service S { rpc Do(Req) returns (google.protobuf.Empty); }
`

const WELL_KNOWN = [
  'Any',
  'BoolValue',
  'BytesValue',
  'DoubleValue',
  'Duration',
  'Empty',
  'FieldMask',
  'FloatValue',
  'Int32Value',
  'Int64Value',
  'ListValue',
  'NullValue',
  'StringValue',
  'Struct',
  'Timestamp',
  'UInt32Value',
  'UInt64Value',
  'Value',
]

describe('descriptor', () => {
  it('round-trips example.proto through Root.fromJSON and protojson', () => {
    const model = loadProto(example)
    const root = protobuf.Root.fromJSON(model.descriptor)
    const SetVibeRequest = root.lookupType('examples.v1.SetVibeRequest')
    const message = protojson.fromJson(SetVibeRequest, { vibe: 'chill' })
    expect(SetVibeRequest.decode(SetVibeRequest.encode(message).finish()).toJSON()).toEqual({ vibe: 'chill' })
    const Details = root.lookupType('examples.v1.SetVibeDetailsRequest')
    const json = { vibeScalar: { vibeInt64: '-12', vibeUint64: '18446744073709551615', vibeEnum: ['VIBE_GOOD'], vibeDouble: 'NaN' } }
    expect(protojson.toJson(Details, protojson.fromJson(Details, json))).toEqual(json)
  })

  it("uses protobufjs's default lowerCamel field names with protoName, so handlers see previousVibe", () => {
    const root = protobuf.Root.fromJSON(loadProto(example).descriptor)
    const field = root.lookupType('examples.v1.SetVibeResponse').fields.previousVibe
    expect(field?.protoName).toBe('previous_vibe')
    expect(field?.jsonName).toBe('previousVibe')
  })

  it('carries well-known types so protojson writes their JSON forms', () => {
    const model = compile(wkt)
    const root = protobuf.Root.fromJSON(model.descriptor)
    const Req = root.lookupType('t.Req')
    const json = {
      at: '2024-01-02T03:04:05.500Z',
      ttl: '1.500s',
      meta: { a: [1, null, { b: 'c' }] },
      any: { '@type': 'type.googleapis.com/t.Item', itemId: 'x' },
      count: '7',
      mask: 'a.b,c',
      list: [1, 'two'],
      big: '9007199254740993',
      item: { itemId: 'i' },
      custom: 3,
    }
    const message = protojson.fromJson(Req, json)
    expect(protojson.toJson(Req, Req.decode(Req.encode(message).finish()))).toEqual(json)
    expect(root.lookupType('google.protobuf.Timestamp').fields.seconds?.type).toBe('int64')
  })

  it('holds every type of the file and every well-known type, with fully qualified field types', () => {
    const descriptor = compile(wkt).descriptor
    const t = (descriptor as any).nested.t.nested
    expect(Object.keys(t)).toEqual(['Item', 'Req', 'Unused'])
    expect(t.Req.fields.item.type).toBe('.t.Item')
    expect(Object.keys((descriptor as any).nested.google.nested.protobuf.nested)).toEqual(WELL_KNOWN)
    expect(JSON.stringify(descriptor)).not.toContain('comment')
  })

  // Regression: `{"@type":"type.googleapis.com/anyp.Loose"}` failed with "no such type: anyp.Loose"
  // (only types reached from the RPCs were in the descriptor; Go resolves from its global registry).
  it('lets an Any pack any type of the file, of its imports and every well-known type', () => {
    const dir = writeProtos({
      'anyp.proto': `syntax = "proto3";
package anyp;
import "google/protobuf/any.proto";
import "deps/other.proto";
message Loose { string z = 1; }
message Req { google.protobuf.Any payload = 1; }
service S { rpc Go(Req) returns (Req); }`,
      'deps/other.proto': 'syntax = "proto3";\npackage dep;\nimport "deps/deeper.proto";\nmessage Imported { int64 n = 1; }',
      'deps/deeper.proto': 'syntax = "proto3";\npackage deeper;\nenum Color { COLOR_UNSET = 0; RED = 1; }\nmessage Deep { Color c = 1; }',
    })
    const model = loadProto(join(dir, 'anyp.proto'))
    const root = protobuf.Root.fromJSON(model.descriptor)
    const Req = root.lookupType('anyp.Req')
    const payloads = [
      { '@type': 'type.googleapis.com/anyp.Loose', z: 'hi' },
      { '@type': 'type.googleapis.com/dep.Imported', n: '9007199254740993' },
      { '@type': 'type.googleapis.com/deeper.Deep', c: 'RED' },
      { '@type': 'type.googleapis.com/google.protobuf.Timestamp', value: '2024-01-02T03:04:05Z' },
      { '@type': 'type.googleapis.com/google.protobuf.Struct', value: { a: [1, 'b', null] } },
    ]
    for (const payload of payloads) {
      const message = protojson.fromJson(Req, { payload })
      expect(protojson.toJson(Req, Req.decode(Req.encode(message).finish())), payload['@type']).toEqual({ payload })
    }
    expect(Object.keys((model.descriptor as any).nested.google.nested.protobuf.nested)).toEqual(WELL_KNOWN)
  })

  it('is deterministic: keys sorted, fields and enum values in declaration order', () => {
    const source = 'enum E { Z = 0; B = 2; A = 1; }\nmessage M { int32 zeta = 2; E alpha = 1; }\nservice S { rpc X(M) returns (M); }'
    const first = compile(source).descriptor
    expect(JSON.stringify(compile(source).descriptor)).toBe(JSON.stringify(first))
    const t = (first as any).nested.t.nested
    expect(Object.keys(t.M.fields)).toEqual(['zeta', 'alpha'])
    expect(Object.keys(t.E.values)).toEqual(['Z', 'B', 'A'])
    expect(Object.keys(t.M.fields.alpha)).toEqual(['id', 'type'])
    const M = protobuf.Root.fromJSON(first).lookupType('t.M')
    expect(Object.keys(protojson.toJson(M, M.create({ zeta: 1, alpha: 2 })))).toEqual(['zeta', 'alpha'])
  })

  it("keeps a proto2 nested type's edition (its parent is emitted too)", () => {
    const model = compile(`syntax = "proto2";
package t;
message Outer { required int32 unused = 1; message Inner { optional int32 x = 1 [default = 5]; repeated int32 r = 2; } }
service S { rpc X(Outer.Inner) returns (Outer.Inner); }`)
    const Outer = (model.descriptor as any).nested.t.nested.Outer
    expect(Outer.edition).toBe('proto2')
    expect(Outer.fields.unused.rule).toBe('required')
    const Inner = protobuf.Root.fromJSON(model.descriptor).lookupType('t.Outer.Inner')
    expect(Inner.fields.x?.hasPresence).toBe(true)
    // proto2 repeated scalars are not packed: field 2, wire type 0, twice.
    expect([...Inner.encode(Inner.create({ r: [1, 2] })).finish()]).toEqual([0x10, 1, 0x10, 2])
  })
})
