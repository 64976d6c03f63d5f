/**
 * The order `npm test` starts its files in (test/helpers/sequencer.ts):
 * longest first by durations.json, each project's files together, the
 * projects by their longest known file, `groupOrder` before all, and a
 * file not in the table first in its project without moving the project.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { TestSpecification } from 'vitest/node'
import durations from './durations.json' with { type: 'json' }
import { LongestFirst } from './sequencer.ts'
import { REPO } from './repo.ts'

const known = durations as Record<string, number>

/** A specification as the sequencer reads it: its file, its project's name and group. */
function spec(file: string, project: string, groupOrder = 0): TestSpecification {
  return { moduleId: join(REPO, file), project: { name: project, config: { sequence: { groupOrder } } } } as unknown as TestSpecification
}

const sorted = (specs: TestSpecification[]) =>
  new LongestFirst({ config: { root: REPO } } as never)
    .sort(specs)
    .then((out) => out.map((s) => `${s.project.name} ${s.moduleId.slice(REPO.length + 1)}`))

describe('LongestFirst', () => {
  const [long, short] = Object.entries(known)
    .sort((a, b) => b[1] - a[1])
    .filter((_, i, all) => i === 0 || i === all.length - 1)
    .map(([file]) => file)

  it('starts the project with the longest file first, and its files longest first', async () => {
    expect(await sorted([spec(short!, 'quick'), spec(short!, 'slow'), spec(long!, 'slow')])).toEqual([
      `slow ${long}`,
      `slow ${short}`,
      `quick ${short}`,
    ])
  })

  it('puts a file not in the table first in its project, without moving the project', async () => {
    expect(await sorted([spec(short!, 'quick'), spec('test/new.test.ts', 'quick'), spec(long!, 'slow')])).toEqual([
      `slow ${long}`,
      'quick test/new.test.ts',
      `quick ${short}`,
    ])
  })

  it('keeps a later group after every earlier one, however long its files', async () => {
    expect(await sorted([spec(long!, 'last', 1), spec(short!, 'first')])).toEqual([`first ${short}`, `last ${long}`])
  })
})
