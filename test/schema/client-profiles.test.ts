/**
 * Every proto with services (fixtures/, the playground) in every profile,
 * built with the real pipeline and checked against the client rules:
 * `portable` and `strict` must pass the rule sets they promise; `full` and
 * `topeka` must give the counts recorded below, so a change to what they
 * produce shows up here as a diff of numbers.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import type { ProtoModel } from '../../src/proto/model.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { checkClientRules, CLIENT_DIALECT_NAMES } from '../../src/schema/client-rules.ts'
import type { CheckedTool, DialectReport } from '../../src/schema/client-rules.ts'
import type { Profile } from '../../src/schema/types.ts'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The protos checked, relative to the repository, with the import paths each needs. */
const PROTOS: Record<string, { importPaths?: string[] }> = {
  'fixtures/apps/anywhere/protos/ledger.proto': {},
  'fixtures/apps/dev/notes.proto': {},
  'fixtures/apps/import-paths/vibe.proto': { importPaths: ['fixtures/apps/import-paths/protos'] },
  'fixtures/apps/prompts/bad.proto': {},
  'fixtures/apps/prompts/vibes.proto': {},
  'fixtures/apps/typed/typed-vibe.proto': {},
  'fixtures/apps/warnings/streaming.proto': {},
  'fixtures/apps/watch/vibe.proto': {},
  'fixtures/protos/auth/notes.proto': {},
  'fixtures/protos/bench/bench500.proto': {},
  'fixtures/protos/bench/wide.proto': {},
  'fixtures/protos/bench/workflow.proto': {},
  'fixtures/protos/editions/legacy-required.proto': {},
  'fixtures/protos/editions/reserved-names.proto': {},
  'fixtures/protos/grpc/counter.proto': {},
  'fixtures/protos/grpc/deep-rules.proto': {},
  'fixtures/protos/grpc/exports.proto': {},
  'fixtures/protos/grpc/extensions.proto': {},
  'fixtures/protos/hardening/not-set.proto': {},
  'fixtures/protos/hardening/prototype-names.proto': {},
  'fixtures/protos/grpc/shapes.proto': {},
  'fixtures/protos/protojson/corpus.proto': {},
  'fixtures/protos/naming/go-names.proto': {},
  'fixtures/protos/reflection/options.proto': {},
  'fixtures/protos/reliability/bigdata.proto': {},
  'fixtures/protos/runtime/echo.proto': {},
  'fixtures/protos/runtime/lenient.proto': {},
  'fixtures/protos/runtime/required.proto': {},
  'fixtures/topeka/example.proto': {},
  'fixtures/topeka/fixture.proto': {},
  'playground/vibe.proto': {},
}

/**
 * Tools rejected per rule set in the profiles that keep today's schemas.
 * Columns: tools, then openai, openai-strict, anthropic, anthropic-strict,
 * gemini-legacy, gemini-json, cursor, name-rules, codex, mcp-clients.
 */
const RECORDED: Record<'full' | 'topeka', Record<string, number[]>> = {
  full: {
    'fixtures/protos/grpc/deep-rules.proto': [1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/hardening/not-set.proto': [2, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0],
    'fixtures/protos/hardening/prototype-names.proto': [3, 0, 3, 0, 3, 3, 0, 0, 0, 0, 0],
    'fixtures/protos/reflection/options.proto': [3, 0, 3, 0, 1, 3, 0, 1, 0, 0, 0],
    'fixtures/protos/reliability/bigdata.proto': [3, 0, 3, 0, 1, 3, 0, 1, 0, 0, 0],
    'fixtures/apps/anywhere/protos/ledger.proto': [1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/editions/legacy-required.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/editions/reserved-names.proto': [3, 0, 3, 0, 0, 3, 0, 0, 0, 0, 0],
    'fixtures/protos/runtime/required.proto': [3, 0, 3, 0, 0, 3, 0, 0, 0, 0, 0],
    'fixtures/protos/runtime/lenient.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/naming/go-names.proto': [2, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0],
    'fixtures/apps/dev/notes.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/import-paths/vibe.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/prompts/bad.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/prompts/vibes.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/typed/typed-vibe.proto': [4, 0, 1, 0, 1, 4, 0, 1, 0, 0, 0],
    'fixtures/apps/warnings/streaming.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/watch/vibe.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/auth/notes.proto': [3, 0, 3, 0, 0, 3, 0, 0, 0, 0, 0],
    'fixtures/protos/bench/bench500.proto': [500, 0, 500, 0, 467, 500, 0, 500, 0, 0, 0],
    'fixtures/protos/bench/wide.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/bench/workflow.proto': [123, 0, 123, 0, 110, 123, 0, 122, 0, 0, 0],
    'fixtures/protos/grpc/counter.proto': [2, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0],
    'fixtures/protos/grpc/exports.proto': [2, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0],
    'fixtures/protos/grpc/extensions.proto': [1, 0, 1, 0, 0, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/grpc/shapes.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/protojson/corpus.proto': [3, 0, 3, 0, 3, 3, 0, 2, 0, 0, 0],
    'fixtures/protos/runtime/echo.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/topeka/example.proto': [5, 0, 4, 0, 2, 5, 0, 2, 0, 0, 0],
    'fixtures/topeka/fixture.proto': [5, 0, 5, 0, 0, 5, 0, 0, 0, 0, 0],
    'playground/vibe.proto': [16, 0, 14, 0, 6, 16, 0, 5, 0, 0, 0],
  },
  topeka: {
    'fixtures/protos/grpc/deep-rules.proto': [1, 0, 1, 0, 1, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/hardening/not-set.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/hardening/prototype-names.proto': [3, 0, 3, 0, 3, 3, 0, 0, 0, 0, 0],
    'fixtures/protos/reflection/options.proto': [4, 0, 4, 0, 1, 4, 0, 0, 0, 0, 0],
    'fixtures/protos/reliability/bigdata.proto': [2, 0, 2, 0, 1, 2, 0, 1, 0, 0, 0],
    'fixtures/apps/anywhere/protos/ledger.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/editions/legacy-required.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/editions/reserved-names.proto': [3, 0, 3, 0, 0, 3, 0, 0, 0, 0, 0],
    'fixtures/protos/runtime/required.proto': [2, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0],
    'fixtures/protos/runtime/lenient.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/naming/go-names.proto': [2, 0, 2, 0, 0, 2, 0, 0, 0, 0, 0],
    'fixtures/apps/dev/notes.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/import-paths/vibe.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/prompts/bad.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/prompts/vibes.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/typed/typed-vibe.proto': [3, 0, 1, 0, 1, 3, 0, 1, 0, 0, 0],
    'fixtures/apps/warnings/streaming.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/apps/watch/vibe.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/auth/notes.proto': [3, 0, 3, 0, 0, 3, 0, 0, 0, 0, 0],
    'fixtures/protos/bench/bench500.proto': [500, 0, 500, 0, 467, 500, 0, 293, 0, 0, 0],
    'fixtures/protos/bench/wide.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/bench/workflow.proto': [123, 0, 123, 0, 110, 123, 0, 112, 0, 0, 0],
    'fixtures/protos/grpc/counter.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/grpc/exports.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/grpc/extensions.proto': [1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    'fixtures/protos/grpc/shapes.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/protos/protojson/corpus.proto': [3, 2, 3, 0, 3, 3, 0, 2, 0, 0, 2],
    'fixtures/protos/runtime/echo.proto': [1, 0, 1, 0, 1, 1, 0, 1, 0, 0, 0],
    'fixtures/topeka/example.proto': [5, 0, 4, 0, 2, 5, 0, 2, 0, 0, 0],
    'fixtures/topeka/fixture.proto': [4, 0, 4, 0, 0, 4, 0, 0, 0, 0, 0],
    'playground/vibe.proto': [16, 1, 14, 0, 6, 16, 0, 4, 0, 0, 1],
  },
}

/** The rule sets `portable` promises to pass (gemini-legacy but for tools without arguments). */
const PORTABLE_PASSES = ['openai', 'anthropic', 'gemini-legacy', 'gemini-json', 'cursor', 'name-rules', 'mcp-clients']
/** The rule sets `strict` promises to pass. */
const STRICT_PASSES = ['openai-strict', ...PORTABLE_PASSES.filter((d) => d !== 'gemini-legacy')]

const models = new Map<string, ProtoModel>()

/** The proto's model, loaded once. */
function modelOf(proto: string): ProtoModel {
  let model = models.get(proto)
  if (model === undefined) {
    const importPaths = (PROTOS[proto]?.importPaths ?? []).map((p) => join(ROOT, p))
    model = loadProto(join(ROOT, proto), { importPaths })
    models.set(proto, model)
  }
  return model
}

const builds = new Map<string, ReturnType<typeof buildTools>>()

/** The proto's tools in `profile`, built once for the tests that read them. */
function toolsOf(proto: string, profile: Profile): ReturnType<typeof buildTools> {
  const key = `${profile} ${proto}`
  if (!builds.has(key)) builds.set(key, buildTools(modelOf(proto), { profile }))
  return builds.get(key)!
}

/** The proto's tools as `tools/list` shows them in `profile`, checked under the server name the plugin gives it. */
function checkProto(proto: string, profile: Profile, dialects?: string[]): { tools: CheckedTool[]; reports: DialectReport[] } {
  const tools = toolsOf(proto, profile).tools.map((t): CheckedTool =>
    profile !== 'topeka' && t.outputSchema !== undefined
      ? { name: t.name, inputSchema: t.inputSchema, outputSchema: t.outputSchema }
      : { name: t.name, inputSchema: t.inputSchema },
  )
  const reports = checkClientRules(tools, { server: basename(proto, '.proto'), ...(dialects ? { dialects } : {}) })
  return { tools, reports }
}

/** Per rule set, each rejected tool with the rules that reject it. */
function rejections(reports: readonly DialectReport[]): Record<string, string[]> {
  return Object.fromEntries(
    reports.map((r) => {
      const byTool = new Map<string, Set<string>>()
      for (const v of r.violations) {
        if (v.sev !== 'reject' || v.tool === '(request)') continue
        const rules = byTool.get(v.tool) ?? new Set<string>()
        byTool.set(v.tool, rules.add(v.rule))
      }
      return [r.name, [...byTool].map(([tool, rules]) => `${tool}: ${[...rules].sort().join(', ')}`).sort()]
    }),
  )
}

/** The tools whose request message has no fields (an argument-less tool). */
function toolsWithoutArguments(proto: string, profile: Profile): string[] {
  const model = modelOf(proto)
  return toolsOf(proto, profile)
    .tools.filter((t) => (model.messages.get(t.requestType)?.fields.length ?? 0) === 0)
    .map((t) => t.name)
}

describe('the protos checked', () => {
  it('are every proto of fixtures/ with services, and the playground', () => {
    const found: string[] = []
    const unloadable: string[] = []
    const visit = (dir: string): void => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name)
        if (statSync(path).isDirectory()) visit(path)
        else if (name.endsWith('.proto')) {
          const proto = relative(ROOT, path)
          try {
            if (loadProto(path, { importPaths: [join(dirname(path), 'protos')] }).services.length > 0) found.push(proto)
          } catch {
            unloadable.push(proto)
          }
        }
      }
    }
    visit(join(ROOT, 'fixtures'))
    expect([...found, 'playground/vibe.proto'].sort()).toEqual(Object.keys(PROTOS).sort())
    // Only the files written to fail may fail.
    expect(unloadable.filter((p) => !p.startsWith('fixtures/apps/errors/'))).toEqual([])
  })
})

describe('what issue 9 measured for the old default profile (now full)', () => {
  it("gives the playground's 16 tools the counts the issue states", () => {
    const { reports } = checkProto('playground/vibe.proto', 'full')
    const rejected = Object.fromEntries(reports.map((r) => [r.name, `${r.rejected}/${r.total}`]))
    expect(rejected).toMatchObject({
      'gemini-legacy': '16/16',
      cursor: '5/16',
      'openai-strict': '14/16',
      openai: '0/16',
      anthropic: '0/16',
      'gemini-json': '0/16',
    })
    const gemini = reports.find((r) => r.name === 'gemini-legacy')!
    // additionalProperties on every message: every tool's root is refused.
    const rootUnknown = gemini.violations.filter(
      (v) => v.rule === 'unknown-field' && v.ptr === '/inputSchema' && v.msg.includes('"additionalProperties"'),
    )
    expect(new Set(rootUnknown.map((v) => v.tool)).size).toBe(16)
    // Cursor refuses for anyOf only (64-bit integers, floats, Value).
    const cursor = reports.find((r) => r.name === 'cursor')!
    expect(new Set(cursor.violations.map((v) => v.rule))).toEqual(new Set(['composition']))
  })
})

describe("the profiles guide's table: the playground's tools per profile", () => {
  // The table as docs/guide/profiles.md shows it, read from the file: a row per rule set, a column per profile.
  const readme = readFileSync(new URL('../../docs/guide/profiles.md', import.meta.url), 'utf8')
  const intro = /Tools rejected per client rule set, the playground's (\d+) RPC tools/.exec(readme)
  const table = readme.slice(intro?.index ?? 0).split('\n\n')[1] ?? ''
  const ROWS: Record<string, string> = {
    'OpenAI (`strict: false`)': 'openai',
    'OpenAI strict': 'openai-strict',
    Anthropic: 'anthropic',
    'Gemini `parameters`': 'gemini-legacy',
    'Gemini `parametersJsonSchema`': 'gemini-json',
    Cursor: 'cursor',
    'tool-name rules (Claude Code, VS Code, Codex)': 'name-rules',
    'MCP clients (SDK, VS Code)': 'mcp-clients',
  }
  const PROFILES = ['portable', 'strict', 'full', 'topeka'] as const
  const shown = new Map<string, number[]>()
  for (const line of table.split('\n').slice(2)) {
    const [label, ...cells] = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim())
    shown.set(
      ROWS[label!] ?? `unknown row ${label}`,
      cells.map((cell) => Number(/\d+/.exec(cell)?.[0])),
    )
  }

  it('has the rows and columns it should', () => {
    expect(intro).not.toBeNull()
    expect([...shown.keys()].sort()).toEqual(Object.values(ROWS).sort())
    for (const counts of shown.values()) expect(counts).toHaveLength(PROFILES.length)
  })

  PROFILES.forEach((profile, column) => {
    it(`${profile}: the counts the guide shows`, () => {
      const { tools, reports } = checkProto('playground/vibe.proto', profile)
      expect(tools.length).toBe(Number(intro![1]))
      for (const [dialect, counts] of shown) {
        expect(reports.find((r) => r.name === dialect)!.rejected, `${dialect}, ${profile}`).toBe(counts[column])
      }
    })
  })
})

describe('tools rejected per profile and rule set', () => {
  for (const proto of Object.keys(PROTOS)) {
    describe(proto, () => {
      for (const profile of ['full', 'topeka'] as const) {
        it(`${profile}: the recorded counts`, () => {
          const { tools, reports } = checkProto(proto, profile)
          const counts = [tools.length, ...CLIENT_DIALECT_NAMES.map((name) => reports.find((r) => r.name === name)!.rejected)]
          expect(counts).toEqual(RECORDED[profile][proto])
        })
      }

      it('portable: no tool rejected by the rule sets it promises, but argument-less tools in gemini-legacy', () => {
        const { reports } = checkProto(proto, 'portable', PORTABLE_PASSES)
        const expected = Object.fromEntries(PORTABLE_PASSES.map((d) => [d, [] as string[]]))
        // Gemini's `parameters` refuses an object without properties, and a
        // tool without arguments has nothing to put there.
        expected['gemini-legacy'] = toolsWithoutArguments(proto, 'portable')
          .map((t) => `${t}: object-nonempty-root`)
          .sort()
        expect(rejections(reports)).toEqual(expected)
      })

      it('strict: no tool rejected by openai-strict and the rule sets portable passes but gemini-legacy', () => {
        const { reports } = checkProto(proto, 'strict', STRICT_PASSES)
        expect(rejections(reports)).toEqual(Object.fromEntries(STRICT_PASSES.map((d) => [d, []])))
      })
    })
  }
})
