/**
 * ProtoError: code, file, line and column for the three ways a .proto fails.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isProtoError } from '../../src/proto/errors.ts'
import type { ProtoError } from '../../src/proto/errors.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

/** Loads `main.proto` of `files` and returns what it throws. */
function failure(files: Record<string, string>, importPaths: string[] = []): ProtoError {
  const dir = writeProtos(files)
  try {
    loadProto(join(dir, 'main.proto'), { importPaths: importPaths.map((p) => join(dir, p)) })
  } catch (error) {
    if (isProtoError(error)) return error
    throw error
  }
  throw new Error('expected loadProto to throw')
}

describe('ProtoError', () => {
  it('syntax error: PROTO_SYNTAX at the offending token', () => {
    const error = failure({ 'main.proto': 'syntax = "proto3";\n\nmessage M {\n  int32 a = 1;\n  string b c = 2;\n}\n' })
    expect(error).toMatchObject({ name: 'ProtoError', code: 'PROTO_SYNTAX', line: 5, column: 12 })
    expect(error.file).toMatch(/main\.proto$/)
    expect(error.message).toBe(`cannot parse "${error.file}": illegal token at column 12, '=' expected (line 5)`)
  })

  it('syntax error: a missing semicolon is reported at the next token', () => {
    const error = failure({ 'main.proto': 'syntax = "proto3";\nmessage M {\n  int32 a = 1\n}\n' })
    expect(error).toMatchObject({ code: 'PROTO_SYNTAX', line: 4, column: 1 })
  })

  it('syntax error inside an imported file names that file', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\nimport "dep.proto";\n',
      'dep.proto': 'syntax = "proto3";\nmessage D {\n  int32 = 1;\n}\n',
    })
    expect(error.code).toBe('PROTO_SYNTAX')
    expect(error.file).toMatch(/dep\.proto$/)
    expect(error.line).toBe(3)
  })

  it('missing import: PROTO_IMPORT at the import statement', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\npackage p;\n\nimport "google/protobuf/empty.proto";\n  import "nope/missing.proto";\n',
    })
    expect(error).toMatchObject({ name: 'ProtoError', code: 'PROTO_IMPORT', line: 5, column: 3 })
    expect(error.file).toMatch(/main\.proto$/)
    expect(error.message).toMatch(/^cannot parse ".*main\.proto": import "nope\/missing\.proto" not found .*\(line 5\)$/)
  })

  it('missing import in an imported file points into that file', () => {
    const error = failure(
      {
        'main.proto': 'syntax = "proto3";\nimport "lib/dep.proto";\n',
        'inc/lib/dep.proto': 'syntax = "proto3";\n// why\nimport "gone.proto";\n',
      },
      ['inc'],
    )
    expect(error).toMatchObject({ code: 'PROTO_IMPORT', line: 3, column: 1 })
    expect(error.file).toMatch(/inc\/lib\/dep\.proto$/)
  })

  it('unknown field type: PROTO_TYPE at the field', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\npackage p;\nmessage M {\n  string ok = 1;\n    Missing bad = 2;\n}\n',
    })
    expect(error).toMatchObject({ name: 'ProtoError', code: 'PROTO_TYPE', line: 5, column: 5 })
    expect(error.message).toBe(`cannot parse "${error.file}": unknown type "Missing" (line 5)`)
  })

  it('unknown rpc type: PROTO_TYPE at the rpc', () => {
    const error = failure({
      'main.proto':
        'syntax = "proto3";\npackage p;\nmessage A {}\nservice S {\n  rpc Ok(A) returns (A);\n  rpc Bad(A) returns (Nope);\n}\n',
    })
    expect(error).toMatchObject({ code: 'PROTO_TYPE', line: 6, column: 3 })
    expect(error.message).toContain('unknown type "Nope"')
  })

  it('unknown type in an imported file, and the first one by line wins', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\nimport "dep.proto";\nmessage M { X x = 1; }\n',
      'dep.proto': 'syntax = "proto3";\nmessage D {\n  map<string, Gone> later = 2;\n  Gone first = 1;\n}\n',
    })
    expect(error.file).toMatch(/dep\.proto$/)
    expect(error).toMatchObject({ code: 'PROTO_TYPE', line: 3, column: 3 })
  })

  it('a name declared twice: PROTO_SYNTAX at the declaration parsed second (the import)', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\nimport "dep.proto";\n\nmessage Twice {}\n',
      'dep.proto': 'syntax = "proto3";\n\n\nmessage Twice {}\n',
    })
    expect(error).toMatchObject({ code: 'PROTO_SYNTAX', line: 4, column: 9 })
    expect(error.file).toMatch(/dep\.proto$/)
    expect(error.message).toContain("duplicate name 'Twice'")
  })

  it('two fields with the same lowerCamel name: PROTO_SYNTAX at the field', () => {
    const error = failure({ 'main.proto': 'syntax = "proto3";\nmessage M {\n  int32 foo_bar = 1;\n  int32 fooBar = 2;\n}\n' })
    expect(error).toMatchObject({ code: 'PROTO_SYNTAX', line: 4, column: 9 })
    expect(error.message).toContain("duplicate name 'fooBar'")
  })

  it('a field number used twice: PROTO_SYNTAX at the second field, not line 1', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\nmessage A {\n  int32 other = 1;\n}\nmessage M {\n  string id = 1;\n  string name = 1;\n}\n',
    })
    expect(error).toMatchObject({ code: 'PROTO_SYNTAX', line: 7, column: 10 })
    expect(error.message).toContain('duplicate id 1')
  })

  it('a field name used twice, another message having it too: at the second field of the right message', () => {
    const error = failure({
      'main.proto':
        'syntax = "proto3";\nmessage A {\n  string id = 1;\n}\nmessage M {\n  string id = 1;\n  oneof o {\n    int32 id = 2;\n  }\n}\n',
    })
    expect(error).toMatchObject({ code: 'PROTO_SYNTAX', line: 8, column: 11 })
  })

  it('an option value is no field number; an RPC name used twice is found too', () => {
    const byOption = failure({
      'main.proto':
        'syntax = "proto2";\nmessage M {\n  optional int32 a = 2 [default = 1];\n  optional int32 b = 1;\n  optional int32 c = 1;\n}\n',
    })
    expect(byOption).toMatchObject({ line: 5, column: 18 })
    const rpc = failure({
      'main.proto': 'syntax = "proto3";\nmessage M {}\nservice S {\n  rpc Go(M) returns (M);\n  rpc Go(M) returns (M);\n}\n',
    })
    expect(rpc).toMatchObject({ code: 'PROTO_SYNTAX', line: 5, column: 7 })
  })

  it('unknown type of an extension field: PROTO_TYPE at the field', () => {
    const error = failure({
      'main.proto': 'syntax = "proto2";\nmessage M { extensions 10 to 20; }\nextend M {\n  optional Gone g = 10;\n}\n',
    })
    expect(error).toMatchObject({ code: 'PROTO_TYPE', line: 4, column: 3 })
    expect(error.file).toMatch(/main\.proto$/)
    expect(error.message).toContain('unknown type "Gone"')
  })

  it("unknown type of an extension of an imported file's type: at the field, not in the extended file", () => {
    // A custom option (google.protobuf.FieldOptions is declared in descriptor.proto, which protobufjs ships).
    const option = failure({
      'main.proto':
        'syntax = "proto3";\npackage x;\nimport "google/protobuf/descriptor.proto";\n\nextend google.protobuf.FieldOptions {\n  Missing thing = 50001;\n}\n',
    })
    expect(option).toMatchObject({ code: 'PROTO_TYPE', line: 6, column: 3 })
    expect(option.file).toMatch(/main\.proto$/)
    expect(option.message).toContain('unknown type "Missing"')
    // Written inside a message, extending a type of another file of the user's.
    const nested = failure({
      'main.proto':
        'syntax = "proto2";\npackage y;\nimport "dep.proto";\nmessage Holder {\n  optional string a = 1;\n  extend dep.Base {\n    optional Gone later = 10;\n  }\n}\n',
      'dep.proto': 'syntax = "proto2";\npackage dep;\nmessage Base { extensions 10 to 20; }\n',
    })
    expect(nested).toMatchObject({ code: 'PROTO_TYPE', line: 7, column: 5 })
    expect(nested.file).toMatch(/main\.proto$/)
  })

  it('is recognised by name and code, not by class', () => {
    const error = failure({ 'main.proto': 'message {' })
    expect(isProtoError(error)).toBe(true)
    expect(isProtoError(new Error('x'))).toBe(false)
    expect(error.cause).toBeInstanceOf(Error)
  })
})

describe('import cycles (protoc: "File recursively imports itself")', () => {
  // Regression: a.proto → b.proto → a.proto built silently.
  it('is a PROTO_IMPORT at the import that closes the cycle, naming the chain', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\nimport "b.proto";\nmessage A {}\n',
      'b.proto': 'syntax = "proto3";\n\n  import "main.proto";\nmessage B {}\n',
    })
    expect(error).toMatchObject({ name: 'ProtoError', code: 'PROTO_IMPORT', line: 3, column: 3 })
    expect(error.file).toMatch(/[\\/]b\.proto$/)
    expect(error.message).toContain('file recursively imports itself: main.proto -> b.proto -> main.proto')
  })

  it('a longer cycle below the root names only the cycle; a self-import too', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\nimport "x/c.proto";\n',
      'x/c.proto': 'syntax = "proto3";\nimport "x/d.proto";\n',
      'x/d.proto': 'syntax = "proto3";\nimport "x/e.proto";\n',
      'x/e.proto': 'syntax = "proto3";\nimport "x/c.proto";\n',
    })
    expect(error).toMatchObject({ code: 'PROTO_IMPORT', line: 2, column: 1 })
    expect(error.file).toMatch(/[\\/]x[\\/]e\.proto$/)
    expect(error.message).toContain(': x/c.proto -> x/d.proto -> x/e.proto -> x/c.proto (')
    const self = failure({ 'main.proto': 'syntax = "proto3";\nimport "main.proto";\n' })
    expect(self.message).toContain(': main.proto -> main.proto (')
  })

  it('a diamond (two paths to one file) is not a cycle', () => {
    const dir = writeProtos({
      'main.proto': 'syntax = "proto3";\nimport "b.proto";\nimport "c.proto";\n',
      'b.proto': 'syntax = "proto3";\nimport "d.proto";\n',
      'c.proto': 'syntax = "proto3";\nimport "d.proto";\n',
      'd.proto': 'syntax = "proto3";\nmessage D {}\n',
    })
    expect(loadProto(join(dir, 'main.proto')).files).toHaveLength(4)
  })
})

describe('ProtoError.files', () => {
  it('lists every file read before the failure, the erroring one too', () => {
    const error = failure({
      'main.proto': 'syntax = "proto3";\nimport "b.proto";\nimport "z.proto";\n',
      'b.proto': 'syntax = "proto3";\nimport "c.proto";\n',
      'c.proto': 'syntax = "proto3";\nmessage C { Nope n = 1; }\n',
      'z.proto': 'syntax = "proto3";\n',
    })
    expect(error.code).toBe('PROTO_TYPE')
    expect(error.files?.map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual(['b.proto', 'c.proto', 'main.proto', 'z.proto'])
    const syntax = failure({
      'main.proto': 'syntax = "proto3";\nimport "b.proto";\n',
      'b.proto': 'syntax = "proto3";\nimport "c.proto";\n',
      'c.proto': 'syntax = "proto3";\nmessage C {\n',
    })
    expect(syntax.files?.map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual(['b.proto', 'c.proto', 'main.proto'])
  })
})
