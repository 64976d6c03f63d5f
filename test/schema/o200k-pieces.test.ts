/**
 * The pieces `tokensAtMost` counts as one token (src/schema/o200k-pieces.json,
 * docs/internals.md, "Token counts: where they are made, paid once"): each is one o200k token and a whole piece of
 * o200k's split, and the bound is never under the exact count: over the
 * tools of every fixture proto, and texts of other scripts, digits,
 * whitespace and special tokens' text. A build whose tools fit by the
 * bound never loads the encoder. `UPDATE_O200K_PIECES=1` writes the table
 * afresh: the commonest one-token pieces of the tools of every fixture
 * proto and of Google's APIs (test/corpus), portable and full.
 */
import { readdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { countTokens as referenceCount, encode } from 'gpt-tokenizer/encoding/o200k_base'
import { buildProtoTools } from '../../src/codegen/build-proto.ts'
import { fitsTokens, tokensAtMost, toolText } from '../../src/schema/tokens.ts'
import PIECES from '../../src/schema/o200k-pieces.json'
import { REPO } from '../helpers/repo.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

const TABLE = join(REPO, 'src', 'schema', 'o200k-pieces.json')
/** How many pieces the table keeps: about 9 KB; about three in ten of the fixture tools over 1,500 bytes are known within 1,500 tokens without the encoder. */
const SIZE = 1000
const { O200K_TOKEN_SPLIT_REGEX: SPLIT } = createRequire(import.meta.url)('gpt-tokenizer/cjs/encodingParams/constants') as {
  O200K_TOKEN_SPLIT_REGEX: RegExp
}
/** o200k counts a special token's text as text (tokens.ts, PLAIN). */
const exact = (text: string): number => referenceCount(text, { disallowedSpecial: new Set() })

/** Every `.proto` under `dir`. */
const protosUnder = (dir: string): string[] =>
  readdirSync(join(REPO, dir), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.proto'))
    .map((path) => join(REPO, dir, path))
    .sort()

/** The tool texts of every proto of `files` that builds (with `importPaths`), in `profiles`. */
function toolTexts(files: readonly string[], importPaths: string[], profiles: readonly ('portable' | 'full')[]): string[] {
  const texts: string[] = []
  for (const file of files) {
    for (const profile of profiles) {
      let built
      try {
        built = buildProtoTools(file, { importPaths, profile })
      } catch {
        continue // the fixtures of broken protos
      }
      for (const tool of built.tools) texts.push(toolText(tool))
    }
  }
  return texts
}

const FIXTURE_PROTOS = [...protosUnder('fixtures/protos'), ...protosUnder('fixtures/topeka'), join(REPO, 'playground', 'vibe.proto')]

if (process.env.UPDATE_O200K_PIECES === '1') {
  it('writes the table', async () => {
    const { CORPUS, GOOGLE_PROTOS } = await import('../corpus/corpus.ts')
    const texts = [
      ...toolTexts(FIXTURE_PROTOS, [join(REPO, 'fixtures', 'protos')], ['portable', 'full']),
      ...toolTexts(
        CORPUS.map((proto) => join(GOOGLE_PROTOS, proto)),
        [GOOGLE_PROTOS],
        ['portable', 'full'],
      ),
    ]
    const seen = new Map<string, number>()
    for (const text of texts) for (const [piece] of text.matchAll(SPLIT)) seen.set(piece, (seen.get(piece) ?? 0) + 1)
    const table = [...seen]
      .filter(([piece]) => encode(piece).length === 1)
      .sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0))
      .slice(0, SIZE)
      .map(([piece]) => piece)
    writeFileSync(TABLE, `${JSON.stringify(table)}\n`)
  }, 600_000)
}

describe('the pieces counted as one token', () => {
  it('are each one o200k token and a whole piece of its split', () => {
    expect(PIECES.length).toBe(SIZE)
    expect(new Set(PIECES).size).toBe(PIECES.length)
    for (const piece of PIECES) {
      expect(encode(piece), JSON.stringify(piece)).toHaveLength(1)
      expect(
        [...piece.matchAll(SPLIT)].map(([p]) => p),
        JSON.stringify(piece),
      ).toEqual([piece])
    }
  })
})

describe('tokensAtMost', () => {
  it('is never under the exact count: the tools of every fixture proto', () => {
    const texts = toolTexts(FIXTURE_PROTOS, [join(REPO, 'fixtures', 'protos')], ['portable'])
    expect(texts.length).toBeGreaterThan(500)
    let tighter = 0
    for (const text of texts) {
      const count = exact(text)
      const bound = tokensAtMost(text)
      expect(bound, text.slice(0, 200)).toBeGreaterThanOrEqual(count)
      if (bound < Buffer.byteLength(text)) tighter++
    }
    // The table is of use: most bounds are under the byte count, the bound without it.
    expect(tighter).toBeGreaterThan(texts.length / 2)
  })

  it('is never under the exact count: other scripts, digits, whitespace, special tokens as text', () => {
    const texts = [
      '{"description":"Nombre d’utilisateur — ÜBER straße 東京都の住所 مرحبا بالعالم 🙂👍🏽"}',
      '1234567890123456789 3.14159e-10 0x1F 00000',
      '  \n\n\t  leading and trailing  \r\n',
      'a <|endoftext|> b <|im_start|>system<|im_end|> <|fim_prefix|>',
      '"properties":{"type":"string"}'.repeat(50),
      'x'.repeat(5000),
      '',
    ]
    for (const text of texts) expect(tokensAtMost(text), text.slice(0, 60)).toBeGreaterThanOrEqual(exact(text))
  })

  it('is never under the exact count: 10,000 seeded strings of table pieces, other scripts, marks, emoji, surrogates and whitespace', () => {
    // mulberry32: a failure replays from the seed.
    let seed = 20261206
    const random = (): number => {
      seed = (seed + 0x6d2b79f5) >>> 0
      let t = seed
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296
    }
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
    const parts = [
      ...PIECES.slice(0, 200),
      ' ',
      '\r\n',
      '\n\n  ',
      '\t',
      "'s",
      "DON'T",
      '0123456789',
      '١٢٣',
      'ǅungla',
      'ʰa',
      'e\u0301\u0301',
      '👍🏽',
      '👩‍👩‍👧',
      '🇫🇷',
      '\ud800',
      '\udc00x',
      '<|endoftext|>',
      '東京',
      'مرحبا',
      'ÜBER',
    ]
    for (let i = 0; i < 10_000; i++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 12) }, () =>
        random() < 0.1 ? String.fromCodePoint(Math.floor(random() * 0x110000)) : pick(parts),
      ).join('')
      expect(tokensAtMost(text), JSON.stringify(text)).toBeGreaterThanOrEqual(exact(text))
    }
  })

  it('stops past its limit, and fitsTokens answers as the exact count does', () => {
    const text = JSON.stringify({
      properties: Object.fromEntries(Array.from({ length: 400 }, (_, i) => [`field_${i}`, { type: 'string' }])),
    })
    expect(tokensAtMost(text, 10)).toBeGreaterThan(10)
    expect(tokensAtMost(text, 10)).toBeLessThan(tokensAtMost(text))
    const count = exact(text)
    for (const limit of [count - 1, count, count + 1, tokensAtMost(text), Math.floor(count / 2)]) {
      expect(fitsTokens(text, limit), `at ${limit}`).toBe(count <= limit)
    }
    // A special token's text is counted as text, never refused (it was: "Disallowed special token found").
    const special = `${'a <|endoftext|> b '.repeat(200)}`
    expect(fitsTokens(special, 10)).toBe(false)
    expect(fitsTokens(special, exact(special))).toBe(true)
    // No text fits a budget below zero, the empty one included (a budget spent past its end).
    for (const short of ['', 'a', '{}']) expect(fitsTokens(short, -1), JSON.stringify(short)).toBe(false)
    expect(fitsTokens('', 0)).toBe(true)
  })
})

describe('a special token in a comment', () => {
  it('is counted as its text: the build goes on (it failed with gpt-tokenizer\'s "Disallowed special token found")', () => {
    const fields = Array.from(
      { length: 20 },
      (_, i) =>
        `  // Field ${i + 1}: a <|endoftext|> in the text, and <|im_start|> too, long enough to be counted.\n  string field_${i + 1} = ${i + 1};`,
    ).join('\n')
    const dir = writeProtos({
      'main.proto': `syntax = "proto3";\npackage s;\nmessage Req {\n${fields}\n}\nservice S { rpc Get(Req) returns (Req); }\n`,
    })
    const built = buildProtoTools(join(dir, 'main.proto'))
    const text = toolText(built.tools[0]!)
    expect(text).toContain('<|endoftext|>')
    expect(built.tools[0]!.tokens).toBe(exact(text))
  })
})

describe('the encoder', () => {
  it('is not loaded for tools the bound finds within the budget, and is for one it does not', async () => {
    vi.resetModules()
    const fresh = {
      build: (await import('../../src/codegen/build-proto.ts')).buildProtoTools,
      tokens: await import('../../src/schema/tokens.ts'),
    }
    // The Topeka example: its largest tool is over 1,500 bytes and within 1,500 tokens.
    const example = fresh.build(join(REPO, 'fixtures', 'topeka', 'example.proto'))
    expect(Math.max(...example.tools.map((t) => Buffer.byteLength(toolText(t))))).toBeGreaterThan(1500)
    expect(fresh.tokens.encoderLoaded()).toBe(false)
    // Its counts are still exact when read.
    expect(example.tools.map((t) => t.tokens)).toEqual(example.tools.map((t) => exact(toolText(t))))
    expect(fresh.tokens.encoderLoaded()).toBe(true)
  })
})
