/**
 * The token budget's parts (docs/profiles.md, "Token budget"): which RPCs the
 * `methods` filter keeps, how much of a comment each level keeps, and
 * the order in which `fitBudget` opens nested messages.
 */
import { describe, expect, it } from 'vitest'
import { fitBudget } from '../../src/schema/budget.ts'
import { descriptionAt } from '../../src/schema/descriptions.ts'
import { methodFilter } from '../../src/schema/method-glob.ts'
import { TYPE_MARK } from '../../src/schema/scalar-schema.ts'
import type { JsonSchema } from '../../src/schema/types.ts'

describe('methods patterns', () => {
  it('include keeps, exclude then drops, and patterns that matched nothing are reported', () => {
    const m = methodFilter({ include: ['x.S.*', 'y.T.*'], exclude: ['x.S.Drop', '.x.S.Nope'] })
    expect(['x.S.Get', 'x.S.Drop', 'z.U.Get'].filter((n) => m.keeps(n))).toEqual(['x.S.Get'])
    expect(m.unmatched()).toEqual(['y.T.*', '.x.S.Nope'])
  })
})

describe('description levels', () => {
  const raw = ' First sentence. Second one\n of the paragraph.\n\n A second paragraph.\n'
  it('full, first paragraph, first sentence, none', () => {
    expect(descriptionAt(raw, 'full')).toBe('First sentence. Second one of the paragraph. A second paragraph.')
    expect(descriptionAt(raw, 'first-paragraph')).toBe('First sentence. Second one of the paragraph.')
    expect(descriptionAt(raw, 'first-sentence')).toBe('First sentence.')
    expect(descriptionAt(raw, 'none')).toBeUndefined()
  })
})

describe('fitBudget', () => {
  const leaf = (type: string, n: number): JsonSchema & { properties: Record<string, unknown> } => ({
    type: 'object',
    [TYPE_MARK]: type,
    properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`field${i}`, { type: 'string' }])),
  })
  const frame = (schema: JsonSchema): string => JSON.stringify(schema)

  it('a schema that fits is whole; a larger one opens shallow messages first and names the rest', () => {
    const root: JsonSchema = {
      type: 'object',
      [TYPE_MARK]: 'x.Root',
      properties: { a: { ...leaf('x.A', 3), properties: { ...leaf('x.A', 3).properties, deep: leaf('x.Deep', 40) } }, b: leaf('x.B', 3) },
    }
    const whole = fitBudget(root, { budget: 10_000, typeTool: 'describe_type', frame })
    expect(whole.whole).toBe(true)
    expect(whole.cuts).toEqual([])
    expect(JSON.stringify(whole.schema)).not.toContain(TYPE_MARK)

    const cut = fitBudget(root, { budget: 120, typeTool: 'describe_type', frame })
    expect(cut.whole).toBe(false)
    expect(cut.cuts).toEqual([{ path: '/a/deep', type: 'x.Deep' }])
    expect((cut.schema as any).properties.a.properties.deep).toEqual({
      type: 'string',
      description: 'JSON text of x.Deep; schema: describe_type',
    })
    expect((cut.schema as any).properties.b.properties.field0).toEqual({ type: 'string' })
  })

  it('never opens a message inside itself, and says when even the root is over', () => {
    const inner = leaf('x.Node', 2)
    const root: JsonSchema = { ...leaf('x.Node', 2), properties: { ...leaf('x.Node', 2).properties, child: inner, big: leaf('x.Big', 60) } }
    const cut = fitBudget(root, { budget: 100, typeTool: 't', frame })
    expect(cut.cuts.map((c) => c.type).sort()).toEqual(['x.Big', 'x.Node'])
    expect(fitBudget(leaf('x.Wide', 200), { budget: 100, typeTool: 't', frame }).over).toBe(true)
  })
})
