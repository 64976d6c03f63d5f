/**
 * The token budget on real protos (docs/profiles.md, "Token budget"): every
 * tool of the corpus in `portable` and `strict` within the targets, every
 * client rule set accepting every tool, and the type tool's answers
 * within the budget too.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { checkClientRules } from '../../src/schema/client-rules.ts'
import { DEFAULT_TOOL_TOKEN_BUDGET } from '../../src/schema/budget.ts'
import type { Profile } from '../../src/schema/types.ts'
import { buildCorpusProto, CORPUS, quantile, tokensOf, type CorpusServer } from './corpus.ts'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'

/** The rule sets `portable` promises to pass (gemini-legacy but for tools without arguments), and `strict` (docs/profiles.md). */
const PASSES: Record<string, string[]> = {
  portable: ['openai', 'anthropic', 'gemini-legacy', 'gemini-json', 'cursor', 'name-rules', 'mcp-clients'],
  strict: ['openai-strict', 'openai', 'anthropic', 'gemini-json', 'cursor', 'name-rules', 'mcp-clients'],
}

/** The targets: tokens per tool (p95, max) and per server (up to 40 tools, any). */
const TARGETS = { toolP95: 1500, toolMax: 4000, serverOf40: 60_000, serverMax: 150_000 }

describe.each<Profile>(['portable', 'strict'])('the corpus in %s', (profile) => {
  const servers: CorpusServer[] = []
  beforeAll(() => {
    for (const proto of CORPUS) servers.push(buildCorpusProto(proto, { profile }))
  }, 300_000)

  it('holds every target: tokens per tool (p95, max) and per server', () => {
    const perTool = servers.flatMap((s) => s.listed.map(tokensOf))
    expect(perTool.length).toBeGreaterThan(400)
    expect(quantile(perTool, 0.95)).toBeLessThanOrEqual(TARGETS.toolP95)
    expect(Math.max(...perTool)).toBeLessThanOrEqual(TARGETS.toolMax)
    for (const s of servers) {
      const total = s.listed.reduce((sum, t) => sum + tokensOf(t), 0)
      expect(total, s.proto).toBeLessThanOrEqual(s.listed.length <= 40 ? TARGETS.serverOf40 : TARGETS.serverMax)
    }
  })

  it('every tool within the default budget, counted as the build counts it', () => {
    for (const s of servers) {
      expect(s.built.warnings.filter((w) => w.code === 'TOOL_OVER_BUDGET')).toEqual([])
      for (const tool of s.listed) expect(tokensOf(tool), `${s.proto} ${tool.name}`).toBeLessThanOrEqual(DEFAULT_TOOL_TOKEN_BUDGET)
      const costs = s.built.costs()
      expect(costs.map((c) => c.name)).toEqual(s.listed.map((t) => t.name))
      expect(costs.map((c) => c.tokens)).toEqual(s.listed.map(tokensOf))
    }
  })

  it(`no tool rejected by the rule sets ${profile} promises${profile === 'portable' ? ' (gemini-legacy: argument-less tools aside)' : ''}`, () => {
    for (const s of servers) {
      for (const report of checkClientRules(s.listed, { server: s.built.name, dialects: PASSES[profile]! })) {
        const rejects = report.violations.filter(
          (v) =>
            v.sev === 'reject' &&
            !(
              report.name === 'gemini-legacy' &&
              JSON.stringify(s.listed.find((t) => t.name === v.tool)?.inputSchema).includes('"properties":{}')
            ),
        )
        expect(
          rejects.map((v) => `${v.tool} ${v.ptr} ${v.rule}: ${v.msg}`),
          `${s.proto} ${report.name}`,
        ).toEqual([])
      }
    }
  })

  it('the type tool exists only where something was cut, and each answer is within the budget', () => {
    let cut = 0
    for (const s of servers) {
      const anyCut = s.built.tools.some((t) => t.cuts !== undefined)
      if (anyCut) cut++
      if (anyCut) expect(s.built.types, s.proto).toBeDefined()
      if (!s.built.types) continue
      for (const [name, text] of Object.entries(s.built.types.answers)) {
        expect(countTokens(text), `${s.proto} ${name}`).toBeLessThanOrEqual(DEFAULT_TOOL_TOKEN_BUDGET)
      }
    }
    expect(cut).toBeGreaterThan(20)
  })
})
