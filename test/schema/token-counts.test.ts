/**
 * Token counts stay exact while paid once (docs/internals.md, Token counts):
 * the cached count of every text the build counts equals a fresh count;
 * `keyFloor`, which lets a big schema go uncounted, never passes the real
 * count; a level fitted lazily (`wholeOnly`) gives what fitting it at once
 * gives, and so does one whose later levels are cut short (`cutShort`: their
 * messages below some depth stubs). Over the corpus of real protos and the
 * Temporal-sized service.
 */
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { countTokens as referenceCount, isWithinTokenLimit } from 'gpt-tokenizer/encoding/o200k_base'
import { advertise, advertiseSorted, stripNotes } from '../../src/schema/advertise.ts'
import { cutShort, fitBudget, fitLevels, keyFloor, rootAlone, sameJson } from '../../src/schema/budget.ts'
import { DESCRIPTION_LEVELS, descriptionAt } from '../../src/schema/descriptions.ts'
import { messageSchema } from '../../src/schema/message-schema.ts'
import { countTokens, countTokensFresh, fitsTokens, toolText } from '../../src/schema/tokens.ts'
import { sortKeys } from '../../src/schema/sort-keys.ts'
import type { JsonSchema } from '../../src/schema/types.ts'
import { buildCorpusProto, CORPUS, GOOGLE_PROTOS } from '../corpus/corpus.ts'

const WORKFLOW = join(import.meta.dirname, '..', '..', 'fixtures', 'protos', 'bench', 'workflow.proto')
/** The corpus-wide checks: past a minute beside other files on a loaded machine (output-digest.test.ts has the same). */
const HEAVY_MS = 240_000
const servers = [...CORPUS.map((proto) => buildCorpusProto(proto)), buildCorpusProto(relative(GOOGLE_PROTOS, WORKFLOW))]

describe('token counts', () => {
  it(
    'the cached count of every listed tool and type answer is a fresh count',
    () => {
      let texts = 0
      for (const { built, listed } of servers) {
        const all = [...listed.map(toolText), ...Object.values(built.types?.answers ?? {})]
        for (const text of all) {
          // Counted twice through the cache (the second a hit), once past it, once by the package itself.
          const first = countTokens(text)
          expect(countTokens(text)).toBe(first)
          expect(countTokensFresh(text)).toBe(first)
          expect(referenceCount(text)).toBe(first)
          texts++
        }
        const costs = built.costs()
        expect(costs.map((c) => c.tokens)).toEqual(listed.map((t) => referenceCount(toolText(t))))
        // The counts a spec carries for search_tools and auto (portable: every tool was fitted, so counted).
        expect(built.tools.map((t) => t.tokens)).toEqual(built.tools.map((t) => referenceCount(toolText(t))))
        if (built.types) expect(built.types.toolTokens).toBe(referenceCount(toolText(built.types.tool)))
      }
      expect(texts).toBeGreaterThan(1000)
    },
    HEAVY_MS,
  )

  it('fitsTokens answers as a full count does, stopping early or not', () => {
    for (const { listed } of servers.slice(0, 8)) {
      for (const tool of listed) {
        const text = toolText(tool)
        const exact = referenceCount(text)
        for (const limit of [exact - 1, exact, exact + 1, Math.floor(exact / 2)]) {
          expect(fitsTokens(`${text} `, limit), `${tool.name} at ${limit}`).toBe(referenceCount(`${text} `) <= limit)
        }
      }
    }
  })
})

/** Every request of the corpus as the budget sees it: marked, advertised, at each description level. */
function requests(): { type: string; level: (typeof DESCRIPTION_LEVELS)[number]; schema: () => JsonSchema }[] {
  const out = []
  for (const { built } of servers.slice(0, 6)) {
    for (const tool of built.tools) {
      for (const level of DESCRIPTION_LEVELS) {
        out.push({
          type: tool.requestType,
          level,
          schema: () =>
            advertise(
              messageSchema(built.model, tool.requestType, { profile: 'portable', mode: 'input', marks: true, descriptions: level }),
              'portable',
            ),
        })
      }
    }
  }
  return out
}

describe('counts in the spec', () => {
  it('full carries them only where the build counted the list (auto over 30,000 characters, the list warning over 60,000 bytes), and then exact', () => {
    let carried = 0
    for (const proto of CORPUS.slice(0, 12)) {
      const { built } = buildCorpusProto(proto, { profile: 'full' })
      const chars = built.tools.reduce((sum, t) => sum + toolText(t).length, 0)
      const bytes = built.tools.reduce((sum, t) => sum + Buffer.byteLength(toolText(t)), 0)
      // What auto (at most 40 tools) and the list warning count.
      const counted = (built.tools.length <= 40 && chars > 30_000) || bytes > 60_000
      for (const tool of built.tools) {
        if (!counted) expect(tool.tokens, `${proto} ${tool.name}`).toBeUndefined()
        else expect(tool.tokens).toBe(referenceCount(toolText(tool)))
      }
      if (built.tools[0]?.tokens !== undefined) carried++
    }
    expect(carried).toBeGreaterThan(0)
  })
})

describe('keyFloor', () => {
  it(
    'never passes the o200k count of the whole schema (every request of the corpus, every level)',
    () => {
      let skipped = 0
      for (const request of requests().filter((r) => r.level === 'full' || r.level === 'none')) {
        const marked = request.schema()
        // The whole schema as the budget renders it: a budget nothing passes.
        const whole = fitBudget(marked, { budget: Number.MAX_SAFE_INTEGER, typeTool: 'describe_type', frame: (s) => JSON.stringify(s) })
        expect(whole.whole).toBe(true)
        const floor = keyFloor(marked, Number.MAX_SAFE_INTEGER)
        // floor ≤ the exact count: the reference counter finds the text over floor - 1 tokens (it stops counting there).
        expect(isWithinTokenLimit(JSON.stringify(whole.schema), floor - 1), request.type).toBe(false)
        if (floor > 1500) skipped++
      }
      // A floor of use: some whole schemas of the corpus are known over the default budget without being rendered.
      expect(skipped).toBeGreaterThan(5)
    },
    HEAVY_MS,
  )

  it(
    'without descriptions, is the same at every level and never passes the floor with them',
    () => {
      const all = requests()
      for (let i = 0; i < all.length; i += DESCRIPTION_LEVELS.length) {
        // The levels most apart: every comment and none.
        const levels = [all[i]!, all[i + DESCRIPTION_LEVELS.length - 1]!].map((r) => r.schema())
        const bare = keyFloor(levels[0]!, Number.MAX_SAFE_INTEGER, false)
        for (const schema of levels) {
          expect(keyFloor(schema, Number.MAX_SAFE_INTEGER, false), all[i]!.type).toBe(bare)
          expect(keyFloor(schema, Number.MAX_SAFE_INTEGER)).toBeGreaterThanOrEqual(bare)
        }
      }
    },
    HEAVY_MS,
  )

  it('stops counting past its limit', () => {
    const schema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`f${i}`, { type: 'string' }])) }
    expect(keyFloor(schema, 10)).toBe(11)
    expect(keyFloor(schema, Number.MAX_SAFE_INTEGER)).toBe(2 + 500 * 2)
  })
})

/** How build-tools.ts fits `tool`'s request at each level: its options (a budget of 1,500) and which fit a level accepts. */
function fitting(tool: { name: string; description?: string }) {
  return {
    options: (level: (typeof DESCRIPTION_LEVELS)[number]) => ({
      budget: 1500,
      typeTool: 'describe_type',
      frame: (s: JsonSchema) => toolText({ name: tool.name, description: descriptionAt(tool.description ?? null, level), inputSchema: s }),
    }),
    accepted: (fitted: { whole: boolean; over: boolean }, level: string) => (level === 'full' ? fitted.whole : !fitted.over),
  }
}

describe('fitLevels with a whole-only level', () => {
  it(
    'fits every request of the corpus as fitting each level at once does',
    () => {
      let compared = 0
      for (const { built } of servers.slice(0, 6)) {
        for (const tool of built.tools) {
          const schema = (level: (typeof DESCRIPTION_LEVELS)[number]): JsonSchema =>
            advertise(
              messageSchema(built.model, tool.requestType, { profile: 'portable', mode: 'input', marks: true, descriptions: level }),
              'portable',
            )
          const { options, accepted } = fitting(tool)
          const lazy = fitLevels(DESCRIPTION_LEVELS, schema, options, accepted, (level) => level === 'full')
          const eager = fitLevels(DESCRIPTION_LEVELS, schema, options, accepted)
          expect(sameJson(lazy, eager), tool.name).toBe(true)
          compared++
        }
      }
      expect(compared).toBeGreaterThan(50)
    },
    HEAVY_MS,
  )
})

describe('fitLevels with levels cut short', () => {
  it(
    'fits every request of the corpus as fitting the whole schemas does, at any stub depth',
    () => {
      let compared = 0
      let short = 0
      let made = 0
      for (const { built } of servers.slice(0, 6)) {
        for (const tool of built.tools) {
          const schema = (level: (typeof DESCRIPTION_LEVELS)[number], stubsBelow?: number): JsonSchema =>
            advertise(
              messageSchema(built.model, tool.requestType, {
                profile: 'portable',
                mode: 'input',
                marks: true,
                descriptions: level,
                ...(stubsBelow === undefined ? {} : { stubsBelow }),
              }),
              'portable',
            )
          const { options, accepted } = fitting(tool)
          const wholeOnly = (level: string): boolean => level === 'full'
          const eager = fitLevels(DESCRIPTION_LEVELS, schema, options, accepted, wholeOnly)
          const first = schema('full')
          const keysOver = keyFloor(first, 1500, false) > 1500
          // Each level's whole schema, as JSON text: what a stubbed one is compared with at every depth.
          const wholeText = new Map<string, string>()
          const wholeAt = (level: (typeof DESCRIPTION_LEVELS)[number]): string => {
            let text = wholeText.get(level)
            if (text === undefined) wholeText.set(level, (text = JSON.stringify(schema(level))))
            return text
          }
          for (const depth of [1, 3, 5]) {
            // As build-tools.ts: the first level whole, the later ones cut short.
            const cut = (level: (typeof DESCRIPTION_LEVELS)[number]): JsonSchema => {
              if (level === 'full') return first
              const stubbed = schema(level, depth)
              if (JSON.stringify(stubbed) === wholeAt(level)) return stubbed
              short++
              return cutShort(stubbed, () => (made++, schema(level)), keysOver)
            }
            const lazy = fitLevels(DESCRIPTION_LEVELS, cut, options, accepted, wholeOnly)
            expect(sameJson(lazy, eager), `${tool.name} below ${depth}`).toBe(true)
            compared++
          }
        }
      }
      expect(compared).toBeGreaterThan(150)
      // Some fits read nothing below a stub, some read below one.
      expect(made).toBeGreaterThan(0)
      expect(made).toBeLessThan(short)
    },
    HEAVY_MS,
  )

  it("a message's root alone is the same with its messages stubs", () => {
    let compared = 0
    for (const { built } of servers.slice(0, 6)) {
      for (const type of built.model.messages.keys()) {
        for (const level of ['full', 'none'] as const) {
          const at = (stubsBelow?: number): JsonSchema =>
            advertise(
              messageSchema(built.model, type, {
                profile: 'portable',
                mode: 'input',
                marks: true,
                descriptions: level,
                recursionDepth: 1,
                ...(stubsBelow === undefined ? {} : { stubsBelow }),
              }),
              'portable',
            )
          expect(sameJson(rootAlone(at(1), 'describe_type'), rootAlone(at(), 'describe_type')), type).toBe(true)
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThan(500)
  })
})

describe('sameJson', () => {
  it('is JSON text equality: values, key order, arrays', () => {
    const cases: [unknown, unknown][] = [
      [
        { a: 1, b: [1, { c: 'x' }] },
        { a: 1, b: [1, { c: 'x' }] },
      ],
      [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ],
      [{ a: [1, 2] }, { a: [1, 2, 3] }],
      [{ a: 'x' }, { a: 'y' }],
      [{ a: null }, { a: {} }],
      [[{}], [[]]],
      // As JSON.stringify: a key whose value has no JSON form is left out, an array item without one is null.
      [{ a: 1, b: undefined }, { a: 1 }],
      [
        { a: undefined, b: 1 },
        { b: 1, a: 2 },
      ],
      [
        [undefined, 1],
        [null, 1],
      ],
      [[() => 1], [null]],
      [{ a: [1] }, { a: { 0: 1 } }],
    ]
    for (const [a, b] of cases) expect(sameJson(a, b), JSON.stringify([a, b])).toBe(JSON.stringify(a) === JSON.stringify(b))
  })
})

describe('sorted as copied', () => {
  it('advertiseSorted and stripNotes(sorted) of a request built unsorted are the sorted copies', () => {
    let compared = 0
    for (const { built } of servers.slice(0, 6)) {
      for (const tool of built.tools) {
        for (const profile of ['portable', 'strict', 'full'] as const) {
          const unsorted = messageSchema(built.model, tool.requestType, {
            profile,
            mode: 'input',
            marks: true,
            sorted: false,
            recursionDepth: 1,
          })
          const sorted = sortKeys(unsorted)
          expect(JSON.stringify(advertiseSorted(unsorted, profile)), tool.name).toBe(JSON.stringify(sortKeys(advertise(sorted, profile))))
          expect(JSON.stringify(stripNotes(unsorted, true))).toBe(JSON.stringify(stripNotes(sorted)))
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThan(100)
  })

  it('reads each node, and the branch an anyOf is flattened to, in sorted order', () => {
    // Notes are said in the order of the keywords that give them: sorted, whatever order they were written in.
    const unsorted: JsonSchema = {
      type: 'object',
      properties: {
        z: { minimum: 1, format: 'email', type: 'string', maximum: 9 },
        a: {
          anyOf: [
            { type: 'string', enum: ['NaN'] },
            { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 9 },
          ],
        },
      },
      required: ['z'],
    }
    for (const profile of ['portable', 'strict'] as const) {
      expect(JSON.stringify(advertiseSorted(unsorted, profile))).toBe(JSON.stringify(sortKeys(advertise(sortKeys(unsorted), profile))))
    }
  })
})
