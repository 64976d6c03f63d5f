/**
 * The order `npm test` starts its files in (docs/developing.md, "Test
 * tiers"): longest first, from the wall times of a whole run kept in
 * test/helpers/durations.json (`node scripts/test-durations.mjs` writes it
 * from the run's JSON report). vitest orders by its own cache of earlier
 * runs, which a fresh clone does not have: there its files start in the
 * order they were found, and a minute-long file found last ran alone at
 * the end while the other cores waited.
 *
 * A project's files stay together: a worker that shares its module graph
 * (`isolate: false`) is kept for the next file only when that file is of
 * the same project. So the projects go in the order of their longest file,
 * and each project's files longest first. A file not in the table (a new
 * one) goes first in its project, as vitest puts files it has no time for,
 * and leaves the project's place as its known files give it.
 */
import { readFileSync } from 'node:fs'
import { relative, sep } from 'node:path'
import { BaseSequencer, type TestSpecification } from 'vitest/node'

const DURATIONS = new URL('./durations.json', import.meta.url)

/** Seconds each file took in a whole run, by repository-relative path. */
function durations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(DURATIONS, 'utf8')) as Record<string, number>
  } catch {
    return {}
  }
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const seconds = durations()
    const root = this.ctx.config.root
    const expected = (spec: TestSpecification): number => seconds[relative(root, spec.moduleId).split(sep).join('/')] ?? Infinity
    // A project's place is its longest known file: a new file (unknown, first in its project) does not move the project.
    const longest = new Map<string, number>()
    for (const spec of files) {
      const known = expected(spec)
      longest.set(spec.project.name, Math.max(longest.get(spec.project.name) ?? 0, Number.isFinite(known) ? known : 0))
    }
    return [...files].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        longest.get(b.project.name)! - longest.get(a.project.name)! ||
        (a.project.name < b.project.name ? -1 : a.project.name > b.project.name ? 1 : 0) ||
        expected(b) - expected(a),
    )
  }
}
