/**
 * The soak scenario of issue 36: one server on the Postgres cluster (a real
 * embedded Postgres behind a loopback TCP proxy the test cuts), forwarding
 * to a real grpc-js backend, under rounds of the four hostile loads the
 * issue found, while a well-behaved client keeps calling:
 * 1. connections pipelining 100 `tools/call`s each, never reading;
 * 2. one principal flooding tasks (`maxTasksPerPrincipal`), another still served;
 * 3. `subscriptions/listen` with 20 000 `taskIds` (`maxListenTaskIds`);
 * 4. a task ending during a 1.5 s database outage, its result kept.
 * Asserted: the process's RSS above its start, and the well-behaved
 * client's slowest call. Bounded counts in `npm test`, more rounds and
 * load under `npm run soak` (SOAK=1).
 */
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import type * as grpcJs from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grpc } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { postgresCluster } from '../../src/entries/postgres.ts'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { serviceDefinition, startGrpcServer, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { sharedPostgres, type SharedPostgres } from '../helpers/shared-postgres.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { tcpProxy, type TcpProxy } from '../helpers/tcp-proxy.ts'
import { Closer } from '../helpers/closer.ts'
import { scaled } from './scale.ts'

const BIGDATA_PROTO = fileURLToPath(new URL('../../fixtures/protos/reliability/bigdata.proto', import.meta.url))
const KEY = 'a key of at least thirty-two bytes, shared'
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const MiB = 1024 * 1024
const QUOTA = 10
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const closers = new Closer()

let pg: SharedPostgres
let proxy: TcpProxy
let backend: GrpcTestServer
let http: HttpHandle

beforeAll(async () => {
  pg = sharedPostgres()
  const url = new URL(await pg.createDatabase('soak'))
  proxy = await tcpProxy(Number(url.port))
  closers.push(() => proxy.close())
  url.port = String(proxy.port)
  const impl: grpcJs.UntypedServiceImplementation = {
    Unary: (call: grpcJs.ServerUnaryCall<any, any>, callback: grpcJs.sendUnaryData<any>) =>
      callback(null, { data: Buffer.alloc(call.request.size, 7), index: 1 }),
  }
  backend = await startGrpcServer([{ definition: serviceDefinition(BIGDATA_PROTO, 'bigdata.v1.BigDataService'), impl }])
  closers.push(() => backend.stop())
  const proto = createProtoServer(specFromProto(BIGDATA_PROTO)).forward('BigDataService', grpc(backend.address))
  const server = Server.builder('soak')
    .requestStateKey(KEY)
    .include(proto)
    .logging({ logger: false })
    .tasks({ pollIntervalMs: 100, maxTasksPerPrincipal: QUOTA })
    .tool(
      { name: 'Slow', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } }, execution: { taskSupport: 'optional' } },
      async (args: { ms?: number }) => {
        await sleep(args.ms ?? 100)
        return { content: [{ type: 'text' as const, text: 'slow done' }] }
      },
    )
    .build()
  http = await server.serveHttp({ port: 0, writeTimeoutMs: 2000, cluster: postgresCluster({ connectionString: url.href, sweepMs: 50 }) })
  closers.push(() => http.close())
}, 120_000)

afterAll(() => closers.close(), 60_000)

const as = (who: string) => ({ capabilities: TASKS, headers: { authorization: `Bearer ${who}` } })
const slow = (who: string, ms: number) => modernRequest(http.url, 'tools/call', { name: 'Slow', arguments: { ms } }, as(who))

/** Item 1: `connections` sockets writing 100 pipelined calls each and reading nothing, left for `ms`. */
async function unreadCalls(connections: number, ms: number): Promise<void> {
  const url = new URL(http.url)
  const body = (id: number) =>
    JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'Unary',
        arguments: { size: 256 * 1024 },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    })
  const request = (id: number) =>
    `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
    `mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: Unary\r\ncontent-length: ${Buffer.byteLength(body(id))}\r\n\r\n${body(id)}`
  const sockets: Socket[] = []
  for (let c = 0; c < connections; c++) {
    const socket = connect(Number(url.port), url.hostname)
    socket.pause()
    socket.on('error', () => {})
    socket.write(Array.from({ length: 100 }, (_, i) => request(i + 1)).join(''))
    sockets.push(socket)
  }
  await sleep(ms)
  for (const socket of sockets) socket.destroy()
}

/** Item 4: one principal asks for `count` tasks, `QUOTA * 2` at a time; another asks for one meanwhile. */
async function taskFlood(count: number): Promise<{ refused: number; other: unknown }> {
  let refused = 0
  for (let sent = 0; sent < count; sent += QUOTA * 2) {
    const answers = await Promise.all(Array.from({ length: Math.min(QUOTA * 2, count - sent) }, () => slow('flood', 300)))
    refused += answers.filter((a) => a.body.error?.message?.includes('maxTasksPerPrincipal')).length
  }
  const other = (await slow('other', 50)).body.result?.resultType
  return { refused, other }
}

/** Item 9: a listen naming 20 000 task ids; its HTTP status. */
async function bigListen(): Promise<number> {
  const response = await fetch(http.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'big',
      method: 'subscriptions/listen',
      params: {
        notifications: { taskIds: Array.from({ length: 20_000 }, (_, i) => `t-${i}`) },
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': TASKS,
        },
      },
    }),
  })
  await response.text()
  return response.status
}

/** Item 3: a task ending during a 1.5 s outage; its final status. */
async function outageTask(): Promise<string> {
  const created = (await slow('outage', 300)).body.result!
  await proxy.cut()
  await sleep(1500)
  await proxy.restore()
  for (let i = 0; i < 200; i++) {
    const task = (await modernRequest(http.url, 'tasks/get', { taskId: created.taskId }, as('outage'))).body.result
    if (task && ['completed', 'failed', 'cancelled'].includes(task.status)) return task.status
    await sleep(50)
  }
  return 'unsettled'
}

describe('soak: the hostile loads of issue 36, round after round', () => {
  it('RSS stays bounded, a well-behaved client keeps being answered, each load is held', async () => {
    const rounds = scaled(1, 5)
    const before = process.memoryUsage().rss
    let peak = before
    const latencies: number[] = []
    let running = true
    // The well-behaved client: one small call at a time, timed.
    const steady = (async () => {
      while (running) {
        const started = performance.now()
        const answer = await modernRequest(http.url, 'tools/call', { name: 'Unary', arguments: { size: 64 } })
        latencies.push(performance.now() - started)
        expect(answer.body.result?.isError).toBeFalsy()
        peak = Math.max(peak, process.memoryUsage().rss)
        await sleep(20)
      }
    })()
    try {
      for (let round = 0; round < rounds; round++) {
        await unreadCalls(scaled(5, 20), 3000)
        const flood = await taskFlood(scaled(60, 600))
        expect(flood.refused).toBeGreaterThan(0)
        expect(flood.other).toBe('task')
        const started = performance.now()
        expect(await bigListen()).toBe(400)
        latencies.push(performance.now() - started)
        expect(await outageTask()).toBe('completed')
        peak = Math.max(peak, process.memoryUsage().rss)
      }
    } finally {
      running = false
      await steady
    }
    latencies.sort((a, b) => a - b)
    const slowest = latencies.at(-1)!
    console.log(
      `[soak] ${rounds} rounds: RSS +${((peak - before) / MiB).toFixed(0)} MiB at the peak; ` +
        `${latencies.length} timed calls, median ${latencies[latencies.length >> 1]!.toFixed(0)} ms, slowest ${slowest.toFixed(0)} ms`,
    )
    expect(peak - before).toBeLessThan(300 * MiB)
    // Generous on a shared machine: a call of the steady client waits behind the loads, never for a lost connection or a timeout.
    expect(slowest).toBeLessThan(5000)
  }, 300_000)
})
