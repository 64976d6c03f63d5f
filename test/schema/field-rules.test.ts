/**
 * Field annotations of docs/mapping.md, "Extensions", one inline proto per rule: required
 * fields, OUTPUT_ONLY, the buf.validate rules JSON Schema can say, and the
 * notes for those it cannot.
 */
import { describe, expect, it } from 'vitest'
import { buildTools } from '../../src/schema/build-tools.ts'
import { messageSchema } from '../../src/schema/message-schema.ts'
import { compile } from '../helpers/inline-proto.ts'

const IMPORTS = 'import "buf/validate/validate.proto";\nimport "google/api/field_behavior.proto";\n'

/** The input (or output) schema of `t.M` in the default profile, and the notes. */
function schemaOf(source: string, mode: 'input' | 'output' = 'input', profile: 'full' | 'topeka' = 'full') {
  const notes: string[] = []
  const schema = messageSchema(compile(IMPORTS + source), 't.M', { mode, profile, note: (n) => notes.push(n) })
  return { schema: schema as Record<string, any>, notes }
}
const propsOf = (source: string): Record<string, any> => schemaOf(source).schema.properties

describe('google.api.field_behavior', () => {
  const source = `message M {
  string name = 1 [(google.api.field_behavior) = REQUIRED];
  string id = 2 [(google.api.field_behavior) = OUTPUT_ONLY];
  string note = 3 [(google.api.field_behavior) = IMMUTABLE, (google.api.field_behavior) = REQUIRED];
  string plain = 4;
}`

  it('REQUIRED fields are required in the input schema, OUTPUT_ONLY ones are left out', () => {
    expect(schemaOf(source).schema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { name: { type: 'string' }, note: { type: 'string' }, plain: { type: 'string' } },
      required: ['name', 'note'],
    })
  })

  it('output schemas keep OUTPUT_ONLY fields and require nothing (protojson omits zero values)', () => {
    const { schema } = schemaOf(source, 'output')
    expect(Object.keys(schema.properties)).toEqual(['id', 'name', 'note', 'plain'])
    expect(schema).not.toHaveProperty('required')
  })

  it('the topeka profile ignores them', () => {
    const { schema } = schemaOf(source, 'input', 'topeka')
    expect(Object.keys(schema.properties)).toEqual(['id', 'name', 'note', 'plain'])
    expect(schema).not.toHaveProperty('required')
  })

  it('works in nested messages and by enum number', () => {
    const { schema } = schemaOf(`message Inner { int32 x = 1 [(google.api.field_behavior) = 2]; }
message M { Inner inner = 1; }`)
    expect(schema.properties.inner).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { x: { type: 'integer' } },
      required: ['x'],
    })
  })
})

describe('required from buf.validate and proto2', () => {
  it('(buf.validate.field).required marks the field required; IGNORE_ALWAYS does not', () => {
    const { schema } = schemaOf(`message M {
  string a = 1 [(buf.validate.field).required = true];
  string b = 2 [(buf.validate.field).required = true, (buf.validate.field).ignore = IGNORE_ALWAYS];
  string c = 3 [(buf.validate.field).required = false];
}`)
    expect(schema.required).toEqual(['a'])
  })

  it('a required repeated or map field must also be non-empty', () => {
    expect(
      schemaOf(`message M {
  repeated string a = 1 [(buf.validate.field).required = true];
  map<string, string> b = 2 [(buf.validate.field).required = true];
}`).schema,
    ).toMatchObject({
      required: ['a', 'b'],
      properties: { a: { type: 'array', minItems: 1 }, b: { type: 'object', minProperties: 1 } },
    })
  })

  it('proto2 required fields are required', () => {
    const { schema } = schemaOf(`syntax = "proto2";
package t;
message M { required string a = 1; optional string b = 2; }`)
    expect(schema.required).toEqual(['a'])
  })
})

describe('buf.validate string rules', () => {
  it('lengths, pattern, const, in and not_in', () => {
    expect(
      propsOf(`message M {
  string a = 1 [(buf.validate.field).string = { min_len: 3, max_len: 10 }];
  string b = 2 [(buf.validate.field).string.len = 4];
  string c = 3 [(buf.validate.field).string.pattern = "^[a-z]+$"];
  string d = 4 [(buf.validate.field).string.const = "fixed"];
  string e = 5 [(buf.validate.field).string = { in: ["x", "y"] }];
  string f = 6 [(buf.validate.field).string.in = "x", (buf.validate.field).string.in = "z"];
  string g = 7 [(buf.validate.field).string = { not_in: ["bad"] }];
}`),
    ).toEqual({
      a: { type: 'string', minLength: 3, maxLength: 10 },
      b: { type: 'string', minLength: 4, maxLength: 4 },
      c: { type: 'string', pattern: '^[a-z]+$' },
      d: { type: 'string', const: 'fixed' },
      e: { type: 'string', enum: ['x', 'y'] },
      f: { type: 'string', enum: ['x', 'z'] },
      g: { type: 'string', not: { enum: ['bad'] } },
    })
  })

  it('prefix and suffix become escaped patterns; several patterns go in an allOf', () => {
    expect(
      propsOf(`message M {
  string a = 1 [(buf.validate.field).string.prefix = "a.b"];
  string b = 2 [(buf.validate.field).string.suffix = "(x)"];
  string c = 3 [(buf.validate.field).string = { prefix: "p", suffix: "s", pattern: "[0-9]" }];
}`),
    ).toEqual({
      a: { type: 'string', pattern: '^a\\.b' },
      b: { type: 'string', pattern: '\\(x\\)$' },
      c: { type: 'string', allOf: [{ pattern: '^p' }, { pattern: 's$' }, { pattern: '[0-9]' }] },
    })
  })

  it('well-known formats', () => {
    const kinds = ['email', 'uuid', 'uri', 'hostname', 'ipv4', 'ipv6']
    const fields = kinds.map((k, i) => `string ${k}_field = ${i + 1} [(buf.validate.field).string.${k} = true];`).join('\n')
    const props = propsOf(`message M {\n${fields}\n}`)
    expect(Object.fromEntries(kinds.map((k) => [k, props[`${k}Field`]]))).toEqual(
      Object.fromEntries(kinds.map((k) => [k, { type: 'string', format: k }])),
    )
  })

  it('rules JSON Schema cannot say are left out and noted; an RE2-only pattern too', () => {
    const { schema, notes } = schemaOf(`message M {
  string a = 1 [(buf.validate.field).string = { min_bytes: 2, min_len: 1 }];
  string b = 2 [(buf.validate.field).string.pattern = "(?i)abc"];
}`)
    expect(schema.properties).toEqual({ a: { type: 'string', minLength: 1 }, b: { type: 'string' } })
    expect(notes).toEqual([
      't.M.a: (buf.validate.field).string.min_bytes is left out of the input schema (JSON Schema cannot say it)',
      't.M.b: (buf.validate.field).string.pattern is left out of the input schema (JSON Schema cannot say it)',
    ])
  })
})

describe('buf.validate numeric rules', () => {
  it('32-bit bounds, const and in; uint32 keeps minimum 0 under a lower gte', () => {
    expect(
      propsOf(`message M {
  int32 a = 1 [(buf.validate.field).int32 = { gt: 0, lte: 100 }];
  uint32 b = 2 [(buf.validate.field).uint32 = { gte: 0, lt: 10 }];
  sint32 c = 3 [(buf.validate.field).sint32.const = 7];
  fixed32 d = 4 [(buf.validate.field).fixed32 = { in: [1, 2] }];
  int32 e = 5 [(buf.validate.field).int32 = { gt: 10, lt: 5 }];
}`),
    ).toEqual({
      a: { type: 'integer', exclusiveMinimum: 0, maximum: 100 },
      b: { type: 'integer', minimum: 0, exclusiveMaximum: 10 },
      c: { type: 'integer', const: 7 },
      d: { type: 'integer', minimum: 0, enum: [1, 2] },
      // protovalidate: a lower bound above the upper one means "outside the range".
      e: { type: 'integer', anyOf: [{ exclusiveMinimum: 10 }, { exclusiveMaximum: 5 }] },
    })
  })

  it('64-bit bounds go on the integer branch, not on the string branch; in holds for both spellings', () => {
    expect(
      propsOf(`message M {
  int64 a = 1 [(buf.validate.field).int64 = { gte: -5, lt: 1000 }];
  uint64 b = 2 [(buf.validate.field).uint64.gt = 3];
  sfixed64 c = 3 [(buf.validate.field).sfixed64 = { in: [1, 2] }];
}`),
    ).toEqual({
      a: {
        anyOf: [
          { type: 'integer', minimum: -5, exclusiveMaximum: 1000 },
          { type: 'string', pattern: '^-?[0-9]+$' },
        ],
      },
      b: {
        anyOf: [
          { type: 'integer', minimum: 0, exclusiveMinimum: 3 },
          { type: 'string', pattern: '^[0-9]+$' },
        ],
      },
      c: {
        anyOf: [
          { type: 'integer', enum: [1, 2] },
          { type: 'string', pattern: '^-?[0-9]+$', enum: ['1', '2'] },
        ],
      },
    })
  })

  it('floats keep only the non-finite strings that pass; finite drops them', () => {
    expect(
      propsOf(`message M {
  double a = 1 [(buf.validate.field).double = { gt: 0 }];
  float b = 2 [(buf.validate.field).float = { gte: 0, lte: 1 }];
  double c = 3 [(buf.validate.field).double.finite = true];
}`),
    ).toEqual({
      a: {
        anyOf: [
          { type: 'number', exclusiveMinimum: 0 },
          { type: 'string', enum: ['Infinity'] },
        ],
      },
      b: { type: 'number', minimum: 0, maximum: 1 },
      c: { type: 'number' },
    })
  })

  it("wrapper types take their scalar's rules", () => {
    expect(
      schemaOf(`import "google/protobuf/wrappers.proto";
message M { google.protobuf.Int32Value a = 1 [(buf.validate.field).int32.gte = 1]; }`).schema.properties.a,
    ).toEqual({ type: 'integer', minimum: 1 })
  })
})

describe('buf.validate bool, enum, repeated and map rules', () => {
  it('bool const', () => {
    expect(propsOf('message M { bool ok = 1 [(buf.validate.field).bool.const = true]; }').ok).toEqual({ type: 'boolean', const: true })
  })

  it('enum in / not_in / const restrict the names; defined_only holds already', () => {
    expect(
      propsOf(`enum Color { COLOR_UNSPECIFIED = 0; RED = 1; GREEN = 2; BLUE = 3; }
message M {
  Color a = 1 [(buf.validate.field).enum = { defined_only: true, in: [1, 3] }];
  Color b = 2 [(buf.validate.field).enum.not_in = 0];
  Color c = 3 [(buf.validate.field).enum.const = 2];
  Color d = 4 [(buf.validate.field).enum.defined_only = true];
}`),
    ).toEqual({
      a: { type: 'string', enum: ['RED', 'BLUE'] },
      b: { type: 'string', enum: ['RED', 'GREEN', 'BLUE'] },
      c: { type: 'string', enum: ['GREEN'] },
      d: { type: 'string', enum: ['COLOR_UNSPECIFIED', 'RED', 'GREEN', 'BLUE'] },
    })
  })

  it('repeated min_items, max_items, unique and item rules', () => {
    expect(
      propsOf(`message M {
  repeated string tags = 1 [(buf.validate.field).repeated = { min_items: 1, max_items: 5, unique: true, items: { string: { min_len: 2 } } }];
}`).tags,
    ).toEqual({ type: 'array', minItems: 1, maxItems: 5, uniqueItems: true, items: { type: 'string', minLength: 2 } })
  })

  it('map min_pairs, max_pairs, key and value rules', () => {
    expect(
      propsOf(`message M {
  map<string, int32> counts = 1 [(buf.validate.field).map = { min_pairs: 1, max_pairs: 3, keys: { string: { max_len: 8 } }, values: { int32: { gte: 0 } } }];
}`).counts,
    ).toEqual({
      type: 'object',
      minProperties: 1,
      maxProperties: 3,
      propertyNames: { type: 'string', maxLength: 8 },
      additionalProperties: { type: 'integer', minimum: 0 },
    })
  })
})

describe('rules JSON Schema cannot say', () => {
  it('field, message and oneof CEL rules are left out and listed in the build notes', () => {
    const model = compile(`${IMPORTS}message M {
  option (buf.validate.message).cel = { id: "a_lt_b", expression: "this.a < this.b" };
  int32 a = 1 [(buf.validate.field).cel = { id: "pos", expression: "this > 0" }];
  repeated int32 c = 5 [(buf.validate.field).repeated.items.cel = { id: "odd", expression: "this % 2 == 1" }];
  int32 b = 2;
  oneof pick {
    option (buf.validate.oneof).required = true;
    string x = 3;
    string y = 4;
  }
}
service S { rpc Call(M) returns (M); rpc Again(M) returns (M); }`)
    const { tools, notes } = buildTools(model)
    expect(tools[0]!.inputSchema.properties).toMatchObject({ a: { type: 'integer' }, b: { type: 'integer' } })
    // Once each, although two tools use the message.
    expect(notes).toEqual([
      't.M.a: (buf.validate.field).cel is left out of the input schema (a CEL expression)',
      't.M.c: (buf.validate.field).repeated.items.cel is left out of the input schema (a CEL expression)',
      't.M: (buf.validate.message).cel is left out of the input schema (JSON Schema cannot say it)',
      't.M.pick: (buf.validate.oneof).required is left out of the input schema (JSON Schema cannot say it)',
    ])
    expect(buildTools(model, { profile: 'topeka' }).notes).toEqual([])
  })
})
