/**
 * The type tool's answers are made when first read (src/schema/type-detail.ts,
 * docs/internals.md "Start-up"): the names are known at once and each text is
 * the one the eager build makes; where the names cannot be known without
 * making the answers (a message no seed holds, a tool named like a message,
 * two tools of one name), every answer is made at once, as before.
 */
import { describe, expect, it } from 'vitest'
import { buildTypeDetail } from '../../src/schema/type-detail.ts'
import type { DetailedTool, TypeDetailOptions } from '../../src/schema/type-detail.ts'
import type { ProtoModel } from '../../src/proto/model.ts'
import { compile } from '../helpers/inline-proto.ts'

const fields = (n: number): string => Array.from({ length: n }, (_, i) => `string some_field_${i} = ${i + 1};`).join('\n')

const SOURCE = `
// The request.
message Req {
  // The inner one.
  Inner inner = 1;
  Big big = 2;
  repeated Inner many = 3;
  map<string, Leaf> leaves = 4;
  Req self = 5;
  oneof choice { Leaf left = 6; Leaf right = 7; }
}
// An inner message.
//
// Its second paragraph. Long enough to be cut at the first levels.
message Inner { Leaf leaf = 1; string name = 2; Inner next = 3; }
message Leaf { string a = 1; int32 b = 2; }
// Its own fields pass the budget: its answer comes in parts.
message Big { ${fields(40)} }
message Other { Leaf leaf = 1; }
`

const OPTIONS: TypeDetailOptions = { profile: 'portable', budget: 100, toolName: 'describe_type' }
const tool = (name: string, requestType: string): DetailedTool => ({
  name,
  description: `Calls ${name}.`,
  comment: `// Calls ${name}.`,
  requestType,
})

/** The answers made lazily (the default) and at once, from the same input. */
function both(model: ProtoModel, seeds: string[], tools: DetailedTool[], options: TypeDetailOptions = OPTIONS) {
  return {
    lazy: buildTypeDetail(model, seeds, tools, options),
    eager: buildTypeDetail(model, seeds, tools, { ...options, eager: true }),
  }
}

/** The names whose answer is not made yet (a getter until read). */
const unmade = (answers: Record<string, string>): string[] =>
  Object.keys(answers).filter((key) => Object.getOwnPropertyDescriptor(answers, key)!.get !== undefined)

describe('type tool answers made when first read', () => {
  const model = compile(SOURCE)
  const seeds = ['t.Req', 't.Inner', 't.Big', 't.Leaf']

  it.each(['portable', 'strict'] as const)('%s: the same names, in the same order, and the same texts as made at once', (profile) => {
    const { lazy, eager } = both(model, seeds, [tool('Call', 't.Req')], { ...OPTIONS, profile })
    const names = Object.keys(lazy.answers)
    expect(names).toEqual(Object.keys(eager.answers))
    expect(names).toEqual(expect.arrayContaining(['Call', 't.Req', 't.Inner', 't.Leaf', 't.Big', 't.Big#2', 't.Req#2']))
    // Only the parts of a message over the budget are made at start (their names depend on them): Big's, and Req's (its oneof notes).
    expect(unmade(lazy.answers)).toEqual(names.filter((name) => !/^t\.(Big|Req)(#|$)/.test(name)))
    expect(lazy.answers['t.Inner']).toBe(eager.answers['t.Inner'])
    expect(unmade(lazy.answers)).not.toContain('t.Inner')
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager))
    expect(unmade(lazy.answers)).toEqual([])
  })

  it('a message no seed holds: every answer made at once, the one it names among them', () => {
    const described = compile(`import "google/protobuf/descriptor.proto";\nmessage Req { google.protobuf.FieldDescriptorProto field = 1; }`)
    const { lazy, eager } = both(described, ['t.Req'], [tool('Call', 't.Req')])
    expect(unmade(lazy.answers)).toEqual([])
    expect(Object.keys(lazy.answers)).toContain('google.protobuf.FieldDescriptorProto')
    expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager))
  })

  it('a tool named like a message, or two tools of one name: every answer made at once', () => {
    for (const tools of [[tool('t.Leaf', 't.Req')], [tool('Call', 't.Other'), tool('Call', 't.Req')]]) {
      const { lazy, eager } = both(model, seeds, tools)
      expect(unmade(lazy.answers)).toEqual([])
      expect(JSON.stringify(lazy)).toBe(JSON.stringify(eager))
    }
  })
})
