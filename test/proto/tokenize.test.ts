/**
 * Leading comments as protoc attaches them, and token positions.
 */
import { describe, expect, it } from 'vitest'
import { scanDeclarations } from '../../src/proto/scan-declarations.ts'
import { tokenize } from '../../src/proto/tokenize.ts'

const leadingOf = (source: string, token: string): string | null | undefined => tokenize(source).find((t) => t.text === token)?.leading

describe('tokenize', () => {
  it('gives 1-based lines and columns', () => {
    expect(tokenize('a\n  b "s t" 1.5e-3;').map((t) => [t.text, t.line, t.column])).toEqual([
      ['a', 1, 1],
      ['b', 2, 3],
      ['"s t"', 2, 5],
      ['1.5e-3', 2, 11],
      [';', 2, 17],
    ])
  })

  it.each([
    ['consecutive // lines merge', '// a\n// b\nX', ' a\n b\n'],
    ['a blank line detaches', '// a\n\nX', null],
    ['the block closest to the token wins', '// a\n\n// b\nX', ' b\n'],
    ['a block comment on the line before', '/* a */\nX', ' a '],
    ['a block comment before the token on its line', '/* a */ X', ' a '],
    ['a line comment after a previous token is trailing', 'Y // a\nX', null],
    ['a comment after a trailing one is leading', 'Y // a\n// b\nX', ' b\n'],
    ["a block after a previous token, then a token on that line: nobody's", 'Y /* a */ X', null],
    ['star decoration of block comments is stripped', '/*\n * a\n *  b\n */\nX', '\n a\n  b\n'],
    ['comment-like text inside strings is not a comment', 'Y "// no";\nX', null],
  ])('%s', (_name, source, expected) => {
    expect(leadingOf(source, 'X')).toBe(expected)
  })
})

describe('scanDeclarations', () => {
  it('keys nested declarations by full name and skips option blocks and reserved ranges', () => {
    const { declarations, imports, packageName } = scanDeclarations(`syntax = "proto3";
package a.b;
import public "x.proto";
option (my.opt) = { k: "v" nested { x: 1 } };
message Outer {
  option (m) = { a: 1 };
  reserved 5 to 9, 11;
  // Inner.
  message Inner { int32 x = 1 [(f) = { y: 2 }]; }
  map<string, Inner> m = 1;
  oneof o { string s = 2; }
  enum E { option allow_alias = true; E0 = 0; E1 = 1 [deprecated = true]; }
}
service S { rpc R(Outer) returns (Outer) { option (o) = { z: 3 }; } rpc T(Outer) returns (stream Outer); }
`)
    expect(packageName).toBe('a.b')
    expect(imports).toEqual([{ path: 'x.proto', line: 3, column: 1 }])
    expect([...declarations.keys()]).toEqual([
      'message:a.b.Outer',
      'message:a.b.Outer.Inner',
      'field:a.b.Outer.Inner#x',
      'field:a.b.Outer#m',
      'field:a.b.Outer#s',
      'enum:a.b.Outer.E',
      'value:a.b.Outer.E#E0',
      'value:a.b.Outer.E#E1',
      'service:a.b.S',
      'method:a.b.S#R',
      'method:a.b.S#T',
    ])
    expect(declarations.get('message:a.b.Outer.Inner')).toEqual({ line: 9, column: 3, comment: ' Inner.\n' })
    expect(declarations.get('method:a.b.S#T')).toMatchObject({ line: 14, column: 69 })
  })

  it('tells keyword-named types and fields from declarations', () => {
    const { declarations } = scanDeclarations(`package p;
message message { int32 x = 1; }
message M {
  message message_field = 1;
  enum enum = 2;
  string option_like = 3;
  string message = 4;
}
enum enum { A = 0; }
`)
    expect([...declarations.keys()]).toEqual([
      'message:p.message',
      'field:p.message#x',
      'message:p.M',
      'field:p.M#message_field',
      'field:p.M#enum',
      'field:p.M#option_like',
      'field:p.M#message',
      'enum:p.enum',
      'value:p.enum#A',
    ])
  })

  it('tells a field named group from a proto2 group (spanner location.proto: repeated Group group = 3)', () => {
    const { declarations } = scanDeclarations(`syntax = "proto2";
package p;
message M {
  // The groups.
  repeated Group group = 3;
  // After the groups.
  optional string after = 4;
  // A real group.
  optional group Result = 5 [deprecated = true] {
    // Inside it.
    optional string url = 1;
  }
}
message Group { optional string id = 1; }
`)
    expect([...declarations].map(([key, d]) => [key, d.comment?.trim()])).toEqual([
      ['message:p.M', undefined],
      ['field:p.M#group', 'The groups.'],
      ['field:p.M#after', 'After the groups.'],
      ['field:p.M#result', 'A real group.'],
      ['message:p.M.Result', 'A real group.'],
      ['field:p.M.Result#url', 'Inside it.'],
      ['message:p.Group', undefined],
      ['field:p.Group#id', undefined],
    ])
  })

  it('keys the fields of an extend block in the package or message it is written in, whatever names the extended type', () => {
    const { declarations } = scanDeclarations(`syntax = "proto2";
package p.q;
import "google/protobuf/descriptor.proto";
// Options.
extend .google.protobuf.FieldOptions {
  // A custom option.
  optional string label = 50001;
}
message Base { extensions 10 to 20; }
message Holder {
  extend Base {
    // A group, declared here.
    optional group Extra = 10 {
      // Inside it.
      optional int32 size = 1;
    }
  }
  // A field after the block.
  optional string after = 1;
}
`)
    expect([...declarations].map(([key, d]) => [key, d.line, d.comment?.trim()])).toEqual([
      ['field:p.q#label', 7, 'A custom option.'],
      ['message:p.q.Base', 9, undefined],
      ['message:p.q.Holder', 10, undefined],
      ['field:p.q.Holder#extra', 13, 'A group, declared here.'],
      ['message:p.q.Holder.Extra', 13, 'A group, declared here.'],
      ['field:p.q.Holder.Extra#size', 15, 'Inside it.'],
      ['field:p.q.Holder#after', 19, 'A field after the block.'],
    ])
    // No package: the fields are the root's.
    expect([...scanDeclarations('message M { extensions 1 to 9; }\nextend M { optional int32 x = 1; }\n').declarations.keys()]).toEqual([
      'message:M',
      'field:#x',
    ])
  })
})
