/**
 * The run's one Postgres, as the test files see it: vitest's global setup
 * (test/helpers/setup-postgres.ts) starts it and provides its address, which
 * `sharedPostgres()` reads with `inject()`. No file stops it: a file that
 * restarts its Postgres starts one of its own (`startPostgres()`, test/helpers/postgres.ts).
 */
import pg from 'pg'
import { inject } from 'vitest'
import type { TestPostgres } from './postgres.ts'

/** What the global setup provides of the Postgres it started: its address. */
export interface ProvidedPostgres {
  port: number
  user: string
  password: string
}

/** The run's one Postgres (the global setup's), as a test file sees it: it runs from the start of the run to its end (`destroy()` is the setup's). */
export type SharedPostgres = Omit<TestPostgres, 'destroy' | 'stop' | 'start'>

/**
 * The Postgres of vitest's global setup (test/helpers/setup-postgres.ts, which
 * the test file's project must name). Each database name is the test file's to
 * keep unique in the run.
 */
export function sharedPostgres(): SharedPostgres {
  const { port, user, password } = inject('postgres')
  const url = (name = 'postgres'): string => `postgres://${user}:${password}@127.0.0.1:${port}/${name}`
  return {
    port,
    user,
    password,
    url,
    async createDatabase(name) {
      const client = new pg.Client({ connectionString: url() })
      await client.connect()
      try {
        await client.query(`CREATE DATABASE ${pg.escapeIdentifier(name)}`)
      } finally {
        await client.end()
      }
      return url(name)
    },
  }
}
