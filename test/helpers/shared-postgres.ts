/**
 * The run's one Postgres, as the test files see it: vitest's global setup
 * (test/helpers/setup-postgres.ts) starts it and provides its address, which
 * `sharedPostgres()` reads with `inject()`.
 */
import pg from 'pg'
import { inject } from 'vitest'
import type { TestPostgres } from './postgres.ts'

/** What the global setup provides of the Postgres it started: its address and where to stop and start it. */
export interface ProvidedPostgres {
  port: number
  user: string
  password: string
  /** `POST <control>/stop` and `/start` stop and start the server (its data stays). */
  control: string
}

/** The run's one Postgres (the global setup's), as a test file sees it: `destroy()` is the setup's, after the run. */
export type SharedPostgres = Omit<TestPostgres, 'destroy'>

/**
 * The Postgres of vitest's global setup (test/helpers/setup-postgres.ts, which
 * the test file's project must name). Each database name is the test file's to
 * keep unique in the run.
 */
export function sharedPostgres(): SharedPostgres {
  const { port, user, password, control } = inject('postgres')
  const url = (name = 'postgres'): string => `postgres://${user}:${password}@127.0.0.1:${port}/${name}`
  const post = async (action: string): Promise<void> => {
    const response = await fetch(`${control}/${action}`, { method: 'POST' })
    if (!response.ok) throw new Error(`Postgres ${action}: ${response.status} ${await response.text()}`)
  }
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
    stop: () => post('stop'),
    start: () => post('start'),
  }
}
