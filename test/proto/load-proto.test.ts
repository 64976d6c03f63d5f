/**
 * loadProto: files, imports, services, names, comments and locations.
 */
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { compile, writeProtos } from '../helpers/inline-proto.ts'

const example = fileURLToPath(new URL('../../fixtures/topeka/example.proto', import.meta.url))

describe('loadProto on example.proto', () => {
  const model = loadProto(example)

  it('records the file, the files read and the package', () => {
    expect(model.file).toBe(example)
    expect(model.files).toEqual([example])
    expect(model.packageName).toBe('examples.v1')
    expect(model.warnings).toEqual([])
  })

  it('lists the services and methods in declaration order with raw leading comments and locations', () => {
    expect(model.services).toHaveLength(1)
    const service = model.services[0]!
    expect(service).toMatchObject({
      name: 'VibeService',
      fullName: 'examples.v1.VibeService',
      loc: { file: example, line: 147, column: 1 },
    })
    expect(service.methods.map((m) => [m.name, m.loc?.line, m.requestType])).toEqual([
      ['SetVibe', 154, 'examples.v1.SetVibeRequest'],
      ['GetVibe', 158, 'examples.v1.GetVibeRequest'],
      ['SetVibeDetails', 160, 'examples.v1.SetVibeDetailsRequest'],
      ['SetVibeArray', 162, 'examples.v1.SetVibeArrayRequest'],
      ['SetVibeObjects', 165, 'examples.v1.SetVibeObjectsRequest'],
    ])
    expect(service.methods[1]!.comment).toBe(' Get Vibe\n of the server\n\n')
    expect(service.methods[0]!.comment).toBe(
      '\n This is a block comment\n with multiple lines\n to test block handling\n' +
        ' "Hello World", a `backtick`, and a path like C:\\vibes\\new\n',
    )
    // `//` lines inside a comment keep their `*` bullets (protobufjs would strip them).
    expect(service.comment).toContain('\n * Special chars: "quotes"')
  })

  it('models fields with proto and JSON names, types and locations', () => {
    const scalar = model.messages.get('examples.v1.VibeScalar')!
    expect(scalar.loc).toEqual({ file: example, line: 39, column: 1 })
    expect(scalar.fields.find((f) => f.number === 6)).toEqual({
      name: 'vibe_uint32',
      jsonName: 'vibeUint32',
      number: 6,
      type: { kind: 'scalar', scalar: 'uint32' },
      repeated: false,
      proto3Optional: true,
      comment: ' The details of the vibe uint32\n',
      options: {},
      customOptions: {},
      legacyRequired: false,
      loc: { file: example, line: 49, column: 3 },
    })
    expect(scalar.oneofs).toEqual([])
    expect(scalar.fields.find((f) => f.name === 'vibe_enum')).toMatchObject({
      repeated: true,
      type: { kind: 'enum', typeName: 'examples.v1.VibeScalar.VibeEnum' },
    })
    const enm = model.enums.get('examples.v1.VibeScalar.VibeEnum')!
    expect(enm.comment).toBe(' The details of the vibe string\n')
    expect(enm.values).toEqual([
      { name: 'VIBE_UNSET', number: 0, comment: null },
      { name: 'VIBE_GOOD', number: 1, comment: null },
    ])
  })

  it('keeps no comment on a field with none, though a dangling comment follows it', () => {
    const array = model.messages.get('examples.v1.VibeArray')!
    expect(array.fields.at(-1)).toMatchObject({ name: 'vibe_byteses', comment: ' the details of the vibe bytes array\n' })
  })
})

describe('comments', () => {
  const source = `
// Leading of M.
message M { // trailing of the brace
  int32 trailing_only = 1; // trailing
  /* block leading */ int32 block_same_line = 2;
  // detached

  int32 after_blank = 3;
  int32 next_line = 4;
  // leading of e
  E e = 5; // and a trailing one
}
// E.
enum E {
  // zero
  E_ZERO = 0;
  E_ONE = 1; // trailing value
}
`
  const model = compile(source)

  it('keeps leading comments only (protoc rules), where protobufjs would attach trailing ones', () => {
    const fields = Object.fromEntries(model.messages.get('t.M')!.fields.map((f) => [f.name, f.comment]))
    expect(fields).toEqual({
      trailing_only: null,
      block_same_line: ' block leading ',
      after_blank: null,
      next_line: null,
      e: ' leading of e\n',
    })
    expect(model.messages.get('t.M')!.comment).toBe(' Leading of M.\n')
    expect(model.enums.get('t.E')!.values.map((v) => v.comment)).toEqual([' zero\n', null])
    // What protobufjs itself says, which the model must not copy:
    const root = new protobuf.Root()
    protobuf.parse(`syntax = "proto3";\n${source}`, root, { alternateCommentMode: true, keepCase: true })
    expect((root.lookupType('M').fields.trailing_only as protobuf.Field).comment).toBe('trailing')
  })
})

describe('imports', () => {
  const dir = writeProtos({
    'main.proto':
      'syntax = "proto3";\npackage m;\nimport "lib/a.proto";\nimport "google/protobuf/timestamp.proto";\n' +
      'message Req { a.A a = 1; google.protobuf.Timestamp at = 2; }\nservice Main { rpc Do(Req) returns (a.A); }\n',
    'lib/a.proto':
      'syntax = "proto3";\npackage a;\nimport "b.proto";\nimport "c.proto";\nimport "d.proto";\n' +
      '// A.\nmessage A { b.B b = 1; c.C c = 2; d.D d = 3; }\nservice NotMine { rpc X(A) returns (A); }\n',
    'lib/b.proto': 'syntax = "proto3";\npackage b;\nmessage B {}\n',
    'b.proto': 'syntax = "proto3";\npackage wrong;\nmessage B {}\n',
    'c.proto': 'syntax = "proto3";\npackage c;\nmessage C {}\n',
    'inc/d.proto': 'syntax = "proto3";\npackage d;\nimport "google/protobuf/descriptor.proto";\nmessage D {}\n',
  })
  const model = loadProto(join(dir, 'main.proto'), { importPaths: [join(dir, 'inc')] })

  it("searches the importing file's directory, then the root file's, then importPaths", () => {
    expect([...model.messages.keys()]).toContain('b.B')
    expect([...model.messages.keys()]).not.toContain('wrong.B')
    expect([...model.messages.keys()]).toContain('c.C')
    expect([...model.messages.keys()]).toContain('d.D')
  })

  it('lists every file read from disk, absolute and sorted; bundled well-known types need no file', () => {
    const descriptorProto = model.files.find((f) => f.endsWith('google/protobuf/descriptor.proto'))
    expect(descriptorProto).toBeDefined()
    expect(model.files).toEqual(
      [
        join(dir, 'c.proto'),
        join(dir, 'inc/d.proto'),
        join(dir, 'lib/a.proto'),
        join(dir, 'lib/b.proto'),
        join(dir, 'main.proto'),
        descriptorProto,
      ].sort(),
    )
    expect([...model.messages.keys()]).toContain('google.protobuf.Timestamp')
  })

  it('takes services from the imported file only', () => {
    expect(model.services.map((s) => s.fullName)).toEqual(['m.Main'])
    expect(model.messages.get('a.A')!.comment).toBe(' A.\n')
  })

  it('gives well-known and bundled types no description of their own', () => {
    expect(model.messages.get('google.protobuf.Timestamp')!.comment).toBeNull()
    expect(model.messages.get('google.protobuf.FileOptions')!.comment).toBeNull()
    expect(model.messages.get('google.protobuf.FileOptions')!.fields.filter((f) => f.comment !== null)).toEqual([])
  })
})

describe('fields and methods', () => {
  const model = compile(`
import "google/protobuf/struct.proto";
message M {
  int32 foo_bar = 1 [json_name = "custom", deprecated = true];
  map<int64, M> children = 2;
  oneof pick { string a = 3; M b = 4; }
  optional string maybe = 5;
  google.protobuf.Value v = 6;
}
service S {
  rpc Unary(M) returns (M) { option deprecated = true; }
  rpc Down(M) returns (stream M);
  rpc Up(stream M) returns (M);
  rpc Both(stream M) returns (stream M);
}
`)
  const fields = model.messages.get('t.M')!.fields

  it('honours json_name and keeps options as plain JSON', () => {
    expect(fields[0]).toMatchObject({ name: 'foo_bar', jsonName: 'custom', options: { deprecated: true } })
  })

  it('models maps, real oneofs and proto3 optional', () => {
    expect(fields[1]).toMatchObject({ mapKey: 'int64', repeated: false, type: { kind: 'message', typeName: 't.M' } })
    expect(fields.map((f) => f.oneof)).toEqual([undefined, undefined, 'pick', 'pick', undefined, undefined])
    expect(fields[4]).toMatchObject({ name: 'maybe', proto3Optional: true })
    expect(fields[4]).not.toHaveProperty('oneof')
    expect(model.messages.get('t.M')!.oneofs).toEqual([{ name: 'pick', fields: ['a', 'b'] }])
  })

  it('gives well-known type fields their proto names', () => {
    expect(model.messages.get('google.protobuf.Value')!.fields[0]).toMatchObject({ name: 'null_value', jsonName: 'nullValue' })
  })

  it('keeps streaming flags and warns once about client-streaming and bidi RPCs', () => {
    const methods = model.services[0]!.methods
    expect(methods.map((m) => [m.name, m.requestStream, m.responseStream])).toEqual([
      ['Unary', false, false],
      ['Down', false, true],
      ['Up', true, false],
      ['Both', true, true],
    ])
    expect(methods[0]!.options).toEqual({ deprecated: true })
    expect(model.warnings).toEqual([
      { code: 'STREAMING_RPC_SKIPPED', message: 'client-streaming and bidi RPCs get no tool: t.S.Up (client-streaming), t.S.Both (bidi)' },
    ])
  })
})
