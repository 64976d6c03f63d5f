/**
 * bench/run.mjs's writing of results (bench/lib/results.mjs): a part run
 * with `--save` replaces the rows of its ids in the tracked file, in place,
 * and leaves the others; without `--save` it writes nothing; a full run
 * writes the scratch file unless saved.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
// @ts-expect-error: a plain .mjs module of the benchmarks, without types
import { writeResults } from '../../bench/lib/results.mjs'

const row = (id: string, ratio: number) => ({
  id,
  ours: ratio * 100,
  baseline: 100,
  unit: 'CPU µs/call',
  ratio,
  higherIsBetter: false,
  target: 1.15,
  met: ratio <= 1.15,
  runs: 14,
  spread: 0.1,
})

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function files() {
  dir = mkdtempSync(join(tmpdir(), 'bench-results-'))
  const results = join(dir, 'results.json')
  const scratch = join(dir, 'scratch', 'results.json')
  writeFileSync(results, JSON.stringify({ benchmarks: [row('first', 0.5), row('otel-overhead', 1.174), row('last', 2)] }))
  const read = (file: string) => (JSON.parse(readFileSync(file, 'utf8')) as { benchmarks: Array<ReturnType<typeof row>> }).benchmarks
  return { results, scratch, read }
}

describe('bench results', () => {
  it('--only with --save replaces the saved row of the same id in place; notes stay out of the file', () => {
    const { results, scratch, read } = files()
    const written = writeResults(
      [{ ...row('otel-overhead', 1.08), note: 'printed only' }, row('new-row', 1)],
      ['node', 'run.mjs', '--only', 'otel-overhead', '--save'],
      { results, scratch },
    )
    expect(written).toEqual({ file: results, merged: true })
    expect(read(results).map((r) => [r.id, r.ratio])).toEqual([
      ['first', 0.5],
      ['otel-overhead', 1.08],
      ['last', 2],
      ['new-row', 1],
    ])
    expect(read(results)[1]).toEqual(row('otel-overhead', 1.08))
  })

  it('--merge is the same; --only alone writes nothing', () => {
    const { results, scratch, read } = files()
    expect(writeResults([row('last', 3)], ['--only', 'last'], { results, scratch })).toBeUndefined()
    expect(read(results).map((r) => r.ratio)).toEqual([0.5, 1.174, 2])
    writeResults([row('last', 3)], ['--only', 'last', '--merge'], { results, scratch })
    expect(read(results).map((r) => r.ratio)).toEqual([0.5, 1.174, 3])
  })

  it('a full run writes the scratch file, or with --save the whole tracked file', () => {
    const { results, scratch, read } = files()
    expect(writeResults([row('only', 1)], [], { results, scratch })).toEqual({ file: scratch, merged: false })
    expect(read(scratch).map((r) => r.id)).toEqual(['only'])
    expect(read(results)).toHaveLength(3)
    writeResults([row('only', 1)], ['--save'], { results, scratch })
    expect(read(results).map((r) => r.id)).toEqual(['only'])
  })

  it('a record without a results.json key is refused', () => {
    const { results, scratch } = files()
    const { spread: _spread, ...partial } = row('broken', 1)
    expect(() => writeResults([partial], ['--only', 'broken', '--save'], { results, scratch })).toThrow(
      'bench record "broken" lacks spread',
    )
  })
})
