/**
 * The client rules one by one: every rule of every rule set fails on a
 * minimal schema (or name) and passes on its near twin; then how reports
 * count tools.
 */
import { describe, expect, it } from 'vitest'
import { CLIENT_DIALECTS } from '../../src/schema/client-dialects.ts'
import { checkClientRules, CLIENT_DIALECT_NAMES, REQUEST_TOOL } from '../../src/schema/client-rules.ts'
import type { CheckedTool } from '../../src/schema/client-rules.ts'
import * as entry from '../../src/entries/client-rules.ts'
import * as main from '../../src/entries/index.ts'
import { RULE_CASES } from './client-rule-cases.ts'
import type { RuleInput } from './client-rule-cases.ts'

/** The violations of `rule` in `dialect` for `input`. */
function violationsOf(dialect: string, rule: string, input: RuleInput) {
  const [report] = checkClientRules(input.tools, { dialects: [dialect], ...(input.server === undefined ? {} : { server: input.server }) })
  return report!.violations.filter((v) => v.rule === rule)
}

describe('every client rule can fail', () => {
  for (const c of RULE_CASES) {
    for (const dialect of c.dialects) {
      it(`${dialect} ${c.rule}`, () => {
        const sev = CLIENT_DIALECTS[dialect]!.rules.find((r) => r.id === c.rule)!.sev
        c.bad.forEach((input, i) => {
          const found = violationsOf(dialect, c.rule, input)
          expect(found.length, `bad input ${i}`).toBeGreaterThan(0)
          expect(found.filter((v) => !(v.sev === sev && v.evidence.length > 0 && v.msg.length > 0))).toEqual([])
          if (i === 0 && c.ptr !== undefined) expect(found[0]!.ptr).toBe(c.ptr)
        })
        for (const input of [c.good].flat()) expect(violationsOf(dialect, c.rule, input)).toEqual([])
      })
    }
  }

  it('has a case for each rule of each rule set, and no case for a rule that does not exist', () => {
    const rules = Object.entries(CLIENT_DIALECTS)
      .flatMap(([d, { rules }]) => rules.map((r) => `${d} ${r.id}`))
      .sort()
    const cases = RULE_CASES.flatMap((c) => c.dialects.map((d) => `${d} ${c.rule}`)).sort()
    expect(cases).toEqual(rules)
  })

  it('keeps every rule id unique within its rule set and every evidence a URL', () => {
    for (const { rules } of Object.values(CLIENT_DIALECTS)) {
      expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length)
      for (const r of rules) for (const url of r.evidence) expect(url).toMatch(/^https:\/\//)
    }
  })
})

const obj = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: 'object', properties, ...extra })

describe('checkClientRules', () => {
  it('reports every rule set, in order, when none is named', () => {
    expect(checkClientRules([]).map((r) => r.name)).toEqual([
      'openai',
      'openai-strict',
      'anthropic',
      'anthropic-strict',
      'gemini-legacy',
      'gemini-json',
      'cursor',
      'name-rules',
      'codex',
      'mcp-clients',
    ])
    expect(CLIENT_DIALECT_NAMES).toEqual(checkClientRules([]).map((r) => r.name))
  })

  it('counts a tool once per severity, however many violations it has', () => {
    const tools: CheckedTool[] = [
      {
        name: 'A',
        inputSchema: obj(
          { a: { type: ['string', 'null'] }, b: { anyOf: [{ type: 'string' }], description: 'x' } },
          { additionalProperties: false },
        ),
      },
      { name: 'B', inputSchema: obj({ a: { type: 'string' } }) },
      { name: 'C', inputSchema: obj({}) },
    ]
    const [gemini] = checkClientRules(tools, { dialects: ['gemini-legacy'] })
    expect(gemini).toMatchObject({ name: 'gemini-legacy', total: 3, rejected: 2, risk: 1, lossy: 0 })
    expect(new Set(gemini!.violations.filter((v) => v.sev === 'reject').map((v) => v.tool))).toEqual(new Set(['A', 'C']))
    expect(gemini!.about).toMatch(/parameters/)
  })

  it('reports a rule about the whole request once, under "(request)", without counting it as a rejected tool', () => {
    const tools = Array.from({ length: 130 }, (_, i) => ({ name: `T${i}`, inputSchema: obj({}) }))
    const [openai] = checkClientRules(tools, { dialects: ['openai'] })
    expect(openai!.violations).toEqual([expect.objectContaining({ tool: REQUEST_TOOL, rule: 'max-128-tools', sev: 'reject', ptr: '' })])
    expect(openai!.rejected).toBe(0)
  })

  it('counts the server name into the name rules, and only the tool name without one', () => {
    const tools = [{ name: 't'.repeat(50), inputSchema: obj({}) }]
    expect(checkClientRules(tools, { dialects: ['cursor'] })[0]!.rejected).toBe(0)
    expect(checkClientRules(tools, { dialects: ['cursor'], server: 'my-server-1' })[0]!.violations.map((v) => v.rule)).toEqual([
      'server+tool-length',
    ])
  })

  it('walks $defs, items and unions with JSON Pointers, but checks only inputSchema node by node', () => {
    const tool = {
      name: 'T',
      inputSchema: obj(
        { 'a/b': { type: 'array', items: { $ref: '#/$defs/N' } } },
        { $defs: { N: { anyOf: [{ type: 'integer' }, { type: 'string' }] } } },
      ),
      outputSchema: obj({ x: { anyOf: [{ type: 'string' }] } }),
    }
    const [cursor] = checkClientRules([tool], { dialects: ['cursor'] })
    expect(cursor!.violations.map((v) => v.ptr)).toEqual(['/inputSchema/$defs/N'])
    const [codex] = checkClientRules([tool], { dialects: ['codex'] })
    expect(codex!.violations.map((v) => `${v.rule} ${v.ptr}`)).toEqual([
      'ref-to-string /inputSchema/properties/a~1b/items',
      'combinator-to-string /inputSchema/$defs/N',
    ])
  })

  it('throws for a rule set it does not know', () => {
    expect(() => checkClientRules([], { dialects: ['openai', 'gemini'] })).toThrow(
      'unknown client rule set "gemini": use one of openai, openai-strict,',
    )
  })

  it('is the public function of unplugin-proto-mcp/client-rules, not of the main entry', () => {
    expect(entry.checkClientRules).toBe(checkClientRules)
    expect(Object.keys(entry).sort()).toEqual(['CLIENT_DIALECT_NAMES', 'REQUEST_TOOL', 'checkClientRules'])
    expect(Object.keys(main).sort()).toEqual(['default', 'writeProtoDeclarations'])
  })
})
