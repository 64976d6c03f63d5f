/**
 * One inline .proto per rule of docs/mapping.md, "Tool names" to "Input schema: types".
 */
import { describe, expect, it } from 'vitest'
import { buildTools } from '../../src/schema/build-tools.ts'
import { messageSchema } from '../../src/schema/message-schema.ts'
import { compile } from '../helpers/inline-proto.ts'

/** The topeka-profile schema of message `t.<name>` in `source`. */
const schemaOf = (source: string, name = 'M'): Record<string, any> => messageSchema(compile(source), `t.${name}`, { profile: 'topeka' })
/** Tool descriptions by name of the service in `source`. */
const toolDescriptions = (source: string): Record<string, string> =>
  Object.fromEntries(buildTools(compile(`message Q {}\n${source}`)).tools.map((t) => [t.name, t.description]))

describe('tool descriptions (docs/mapping.md, "Descriptions from comments")', () => {
  it('normalises // and /* */ comments as in the spec examples', () => {
    expect(
      toolDescriptions(`service S {
  // Get Vibe
  // of the server
  //
  rpc GetVibe(Q) returns (Q);
  // Must match \\d+.
  rpc Match(Q) returns (Q);
  /* Block "comment" with \\backslash\\. */
  rpc Block(Q) returns (Q);
  /*
   * Star
   *   decorated   block
   */
  rpc Stars(Q) returns (Q);
}`),
    ).toEqual({
      GetVibe: 'Get Vibe of the server',
      Match: 'Must match \\d+.',
      Block: 'Block "comment" with \\backslash\\.',
      Stars: 'Star decorated block',
    })
  })

  it('falls back to the split name with no comment, but keeps "" for an empty one', () => {
    expect(
      toolDescriptions(`service S {
  rpc SetVibeDetails(Q) returns (Q);
  rpc GetVibe2Array(Q) returns (Q);
  rpc item123(Q) returns (Q);
  //
  rpc Empty(Q) returns (Q);
  /* */
  rpc EmptyBlock(Q) returns (Q);
}`),
    ).toEqual({
      SetVibeDetails: 'Set Vibe Details',
      GetVibe2Array: 'Get Vibe 2Array',
      item123: 'item 123',
      Empty: '',
      EmptyBlock: '',
    })
  })

  it('ignores trailing and detached comments', () => {
    expect(
      toolDescriptions(`service S {
  rpc Trailing(Q) returns (Q); // trailing, not leading
  // detached by a blank line

  rpc Detached(Q) returns (Q);
  rpc TrailingBlock(Q) returns (Q) {} /* trailing block */
  rpc NextOne(Q) returns (Q);
}`),
    ).toEqual({ Trailing: 'Trailing', Detached: 'Detached', TrailingBlock: 'Trailing Block', NextOne: 'Next One' })
  })
})

describe('field and message descriptions (docs/mapping.md, "Descriptions from comments", "Input schema: the shape")', () => {
  it('takes only leading comments: trailing, detached and after-brace comments are not descriptions', () => {
    const schema = schemaOf(`message M { // trails the brace
  int32 a = 1; // trailing
  int32 b = 2;
  // detached

  int32 c = 3;
  // leading of d
  int32 d = 4;
}`)
    expect(schema.properties).toEqual({
      a: { type: 'integer' },
      b: { type: 'integer' },
      c: { type: 'integer' },
      d: { type: 'integer', description: 'leading of d' },
    })
    expect(schema).not.toHaveProperty('description')
  })

  it('gives no description key for a comment that normalises to ""', () => {
    expect(schemaOf('//\nmessage M {\n  //\n  int32 a = 1;\n}')).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { a: { type: 'integer' } },
    })
  })

  it('lets a message field comment replace the type description, else keeps it', () => {
    const schema = schemaOf(`// The item.
message Item { string id = 1; }
message M {
  // The field.
  Item with_comment = 1;
  Item without_comment = 2;
}`)
    expect(schema.properties.withComment.description).toBe('The field.')
    expect(schema.properties.withoutComment.description).toBe('The item.')
  })

  it("shows a repeated enum's text twice: on the array and on its items", () => {
    const schema = schemaOf(`// The colour.
enum Color { RED = 0; BLUE = 1; }
message M {
  // The colours.
  repeated Color colors = 1;
}`)
    expect(schema.properties.colors).toEqual({
      type: 'array',
      description: 'The colours.',
      items: { type: 'string', enum: ['RED', 'BLUE'], description: 'The colour.' },
    })
  })
})

describe('property keys', () => {
  it('uses lowerCamel JSON names and honours json_name', () => {
    const schema = schemaOf('message M { string previous_vibe = 1; int32 foo_bar = 2 [json_name = "custom"]; int32 item_1b = 3; }')
    expect(Object.keys(schema.properties)).toEqual(['custom', 'item1b', 'previousVibe'])
  })
})

describe('maps', () => {
  it('a map of messages: the field description on the map object, the value keeps its own', () => {
    const schema = schemaOf(`// An item.
message Item { string id = 1; }
message M {
  // Items by key.
  map<int64, Item> items = 1;
}`)
    expect(schema.properties.items).toEqual({
      type: 'object',
      description: 'Items by key.',
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        description: 'An item.',
        properties: { id: { type: 'string' } },
      },
    })
  })
})

describe('oneof notes', () => {
  const note = 'Part of the "choice" oneof: at most one of its fields may be set.'
  const schema = schemaOf(`// A thing.
message Thing { int32 n = 1; }
message M {
  oneof choice {
    // With a comment.
    string commented = 1;
    string bare = 2;
    Thing thing = 3;
  }
  // Optional.
  optional string maybe = 4;
}`)

  it('appends the note after one space, or stands alone', () => {
    expect(schema.properties.commented.description).toBe(`With a comment. ${note}`)
    expect(schema.properties.bare.description).toBe(note)
  })

  it('appends to the type description of a message field with no comment', () => {
    expect(schema.properties.thing.description).toBe(`A thing. ${note}`)
  })

  it('gives proto3 optional fields no note', () => {
    expect(schema.properties.maybe).toEqual({ type: 'string', description: 'Optional.' })
  })
})

describe('recursion', () => {
  const source = `// A.
message A { B b = 1; string name = 2; }
// B.
message B { A a = 1; }
message R { A first = 1; B second = 2; }`

  it('mutual recursion A→B→A: only A goes to $defs and every use of A is a $ref', () => {
    const schema = schemaOf(source, 'R')
    const refA = { $ref: '#/$defs/t.A' }
    expect(Object.keys(schema.$defs)).toEqual(['t.A'])
    expect(schema.properties.first).toEqual(refA)
    expect(schema.properties.second).toEqual({
      type: 'object',
      additionalProperties: false,
      description: 'B.',
      properties: { a: refA },
    })
    expect(schema.$defs['t.A'].properties.b.properties.a).toEqual(refA)
  })

  it('a recursive root is its own def plus $defs', () => {
    const schema = schemaOf(source, 'A')
    expect(Object.keys(schema.$defs)).toEqual(['t.A'])
    const { $defs, ...root } = schema
    expect(root).toEqual($defs['t.A'])
    expect(root.type).toBe('object')
  })

  it('a non-recursive message used twice is inlined twice', () => {
    const schema = schemaOf('message I { int32 n = 1; }\nmessage M { I a = 1; repeated I b = 2; }')
    expect(schema).not.toHaveProperty('$defs')
    expect(schema.properties.b.items).toEqual(schema.properties.a)
  })
})
