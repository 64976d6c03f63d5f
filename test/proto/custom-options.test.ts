/**
 * Custom options as structured JSON, the shipped option protos resolving
 * with no set-up, and their types kept out of the runtime descriptor.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { compile, writeProtos } from '../helpers/inline-proto.ts'

describe('customOptions', () => {
  const model = compile(`import "buf/validate/validate.proto";
import "google/api/field_behavior.proto";
import "proto_mcp/options.proto";
message M {
  string a = 1 [
    (buf.validate.field).string.min_len = 1,
    (buf.validate.field).string = { max_len: 5, in: ["x", "y"] },
    (buf.validate.field).string.in = "z",
    (google.api.field_behavior) = REQUIRED,
    (google.api.field_behavior) = 3
  ];
  repeated int32 b = 2 [(buf.validate.field).repeated.items.int32 = { in: [1, 2] }, (buf.validate.field).cel = { id: "c1", expression: "true" }, (buf.validate.field).cel = { id: "c2", expression: "false" }];
}
service S {
  rpc R(M) returns (M) {
    option (proto_mcp.tool).title = "T";
    option (proto_mcp.tool) = { read_only_hint: true };
  }
}`)
  const [a, b] = model.messages.get('t.M')!.fields

  it('merges statements, collects repeated values and names enum numbers', () => {
    expect(a!.customOptions).toEqual({
      'buf.validate.field': { string: { min_len: 1, max_len: 5, in: ['x', 'y', 'z'] } },
      'google.api.field_behavior': ['REQUIRED', 'OUTPUT_ONLY'],
    })
    expect(b!.customOptions).toEqual({
      'buf.validate.field': {
        repeated: { items: { int32: { in: [1, 2] } } },
        cel: [
          { id: 'c1', expression: 'true' },
          { id: 'c2', expression: 'false' },
        ],
      },
    })
    expect(model.services[0]!.methods[0]!.customOptions).toEqual({ 'proto_mcp.tool': { title: 'T', read_only_hint: true } })
  })

  it("keeps the option protos' types out of the runtime descriptor", () => {
    const nested = model.descriptor.nested as Record<string, any>
    expect(Object.keys(nested).sort()).toEqual(['google', 't'])
    expect(Object.keys(nested.google.nested)).toEqual(['protobuf'])
    expect(nested.google.nested.protobuf.nested).not.toHaveProperty('FieldOptions')
  })

  it('keeps a type of an option proto that a message uses', () => {
    const used = compile('import "buf/validate/validate.proto";\nmessage M { buf.validate.StringRules rules = 1; }')
    const nested = used.descriptor.nested as Record<string, any>
    expect(Object.keys(nested.buf.nested.validate.nested)).toContain('StringRules')
    expect(Object.keys(nested.buf.nested.validate.nested)).not.toContain('FieldRules')
  })

  it("a project's own copy of a shipped file wins", () => {
    const dir = writeProtos({
      'google/api/field_behavior.proto': 'syntax = "proto3";\npackage google.api;\nmessage Mine {}\n',
      'main.proto': 'syntax = "proto3";\npackage t;\nimport "google/api/field_behavior.proto";\nmessage M { google.api.Mine m = 1; }\n',
    })
    const own = loadProto(join(dir, 'main.proto'))
    expect(own.files).toContain(join(dir, 'google/api/field_behavior.proto'))
  })
})
