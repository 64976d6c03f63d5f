/**
 * What the schema stage makes stays byte-identical while it is made faster
 * (docs/internals.md, Token counts): per proto of the corpus and the
 * Temporal-sized service, in each profile that counts or cuts, a SHA-256
 * of every tool (all its fields), the type tool's answers, the warnings,
 * the notes, the lenient table and each tool's cost. The digests are in
 * fixtures/corpus/output-digests.json; `UPDATE_DIGESTS=1` rewrites them
 * when an output change is meant (say which in the commit).
 */
import { createHash } from 'node:crypto'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildCorpusProto, CORPUS, GOOGLE_PROTOS } from '../corpus/corpus.ts'

const DIGESTS = join(import.meta.dirname, '..', '..', 'fixtures', 'corpus', 'output-digests.json')
const WORKFLOW = join(import.meta.dirname, '..', '..', 'fixtures', 'protos', 'bench', 'workflow.proto')
const PROTOS = [...CORPUS, relative(GOOGLE_PROTOS, WORKFLOW)]
const PROFILES = ['portable', 'full'] as const

function digest(proto: string, profile: (typeof PROFILES)[number]): string {
  const { built } = buildCorpusProto(proto, { profile })
  const { model: _model, costs, ...rest } = built
  const text = JSON.stringify({ ...rest, costs: costs() })
  return createHash('sha256').update(text).digest('hex')
}

describe('schema stage output', () => {
  // Every corpus proto built twice: about 25 s alone, past a minute beside other files on a loaded machine.
  it('is the same, byte for byte, over the corpus in portable and full', () => {
    const now: Record<string, string> = {}
    for (const proto of PROTOS) for (const profile of PROFILES) now[`${profile} ${proto}`] = digest(proto, profile)
    if (process.env.UPDATE_DIGESTS === '1' || !existsSync(DIGESTS)) writeFileSync(DIGESTS, `${JSON.stringify(now, null, 2)}\n`)
    const saved = JSON.parse(readFileSync(DIGESTS, 'utf8')) as Record<string, string>
    expect(Object.keys(now).length).toBeGreaterThan(60)
    expect(now).toEqual(saved)
  }, 240_000)
})
