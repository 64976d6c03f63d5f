/**
 * Clients that pipeline requests and never read the answers (issue 36):
 * 100 `tools/call`s in one write on one connection, and 20 such
 * connections, against `serveHttp` forwarding to a real grpc-js backend on
 * loopback whose answers are 1 MiB each. On the 2026-07-28 fast path, the
 * SDK path (no `Mcp-Name`: the SDK's handler) and the initialize-era
 * session fast path: the backend runs at most `maxRequestsPerConnection`
 * calls per connection (the rest answered 429), the connection holding
 * more than `maxUnsentBytes` of unread answers is closed, and the
 * process's RSS stays bounded. The server answers a reading client after.
 */
import { connect, type Socket } from 'node:net'
import { fileURLToPath } from 'node:url'
import type * as grpcJs from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grpc } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { HttpHandle } from '../../src/entries/runtime.ts'
import { serviceDefinition, startGrpcServer, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { scaled } from './scale.ts'

const BIGDATA_PROTO = fileURLToPath(new URL('../../fixtures/protos/reliability/bigdata.proto', import.meta.url))
const MiB = 1024 * 1024
/** The default `maxRequestsPerConnection` and `maxRequestsPerCaller`. */
const PER_CONNECTION = 4
const PER_CALLER = 64
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let backend: GrpcTestServer
let http: HttpHandle
let calls = 0

beforeAll(async () => {
  const impl: grpcJs.UntypedServiceImplementation = {
    Unary: (call: grpcJs.ServerUnaryCall<any, any>, callback: grpcJs.sendUnaryData<any>) => {
      calls++
      callback(null, { data: Buffer.alloc(call.request.size, 7), index: 1 })
    },
  }
  backend = await startGrpcServer([{ definition: serviceDefinition(BIGDATA_PROTO, 'bigdata.v1.BigDataService'), impl }])
  const server = createProtoServer(specFromProto(BIGDATA_PROTO)).forward('BigDataService', grpc(backend.address))
  http = await server.serveHttp({ port: 0, logger: false, writeTimeoutMs: 1000 })
}, 60_000)

afterAll(async () => {
  await http?.close()
  await backend?.stop()
})

type Path = 'fast' | 'sdk' | 'session'

/** One raw POST of a tools/call of `Unary` (1 MiB of bytes), as `path` takes it. */
function post(url: URL, path: Path, id: number, session?: string, size = MiB): string {
  const modern = path !== 'session'
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'Unary',
      arguments: { size },
      ...(modern
        ? {
            _meta: {
              'io.modelcontextprotocol/protocolVersion': '2026-07-28',
              'io.modelcontextprotocol/clientInfo': { name: 'unread', version: '0' },
              'io.modelcontextprotocol/clientCapabilities': {},
            },
          }
        : {}),
    },
  })
  const headers = [
    `POST ${url.pathname} HTTP/1.1`,
    `host: ${url.host}`,
    'content-type: application/json',
    'accept: application/json, text/event-stream',
    `mcp-protocol-version: ${modern ? '2026-07-28' : '2025-06-18'}`,
    ...(modern ? ['mcp-method: tools/call'] : []),
    // The SDK's handler takes a name it must decode (RFC 2047, SEP-2243); the fast path takes only a plain one.
    ...(modern ? [`mcp-name: ${path === 'fast' ? 'Unary' : '=?base64?VW5hcnk=?='}`] : []),
    ...(session ? [`mcp-session-id: ${session}`] : []),
    `content-length: ${Buffer.byteLength(body)}`,
  ]
  return `${headers.join('\r\n')}\r\n\r\n${body}`
}

async function initializeSession(): Promise<string> {
  const response = await fetch(http.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'unread', version: '0' } },
    }),
  })
  await response.text()
  return response.headers.get('mcp-session-id')!
}

/** `connections` sockets, each writing `requests` pipelined calls in one write and reading nothing; resolves once all are closed or `ms` passed. */
async function attack(
  path: Path,
  connections: number,
  requests: number,
  ms: number,
  size = MiB,
): Promise<{ peakRss: number; closed: number }> {
  const url = new URL(http.url)
  const session = path === 'session' ? await initializeSession() : undefined
  const sockets: Socket[] = []
  let closed = 0
  for (let c = 0; c < connections; c++) {
    const socket = connect(Number(url.port), url.hostname)
    socket.pause()
    socket.on('error', () => {})
    socket.on('close', () => closed++)
    socket.write(Array.from({ length: requests }, (_, i) => post(url, path, i + 1, session, size)).join(''))
    sockets.push(socket)
  }
  let peakRss = process.memoryUsage().rss
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    await sleep(50)
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
  }
  // Reading now: a connection the server closed ends (its answers so far, then EOF); one still open would not.
  for (const socket of sockets) socket.resume()
  await sleep(2000)
  for (const socket of sockets) socket.destroy()
  return { peakRss, closed }
}

describe('pipelined calls whose answers nobody reads', () => {
  it.each<Path>(['fast', 'sdk', 'session'])(
    '%s path: 100 calls in one write run at most maxRequestsPerConnection at the backend; the connection is closed; RSS bounded',
    async (path) => {
      const before = process.memoryUsage().rss
      calls = 0
      const { peakRss, closed } = await attack(path, 1, 100, 5000)
      console.log(`[unread] ${path}: 1 connection × 100 calls: ${calls} backend calls, RSS +${((peakRss - before) / MiB).toFixed(0)} MiB`)
      expect(calls).toBeLessThanOrEqual(PER_CONNECTION)
      expect(closed).toBe(1)
      expect(peakRss - before).toBeLessThan(200 * MiB)
      const answer = await modernRequest(http.url, 'tools/call', { name: 'Unary', arguments: { size: 16 } })
      expect(answer.body.result?.isError).toBeFalsy()
    },
    60_000,
  )

  it('20 connections of pipelined calls (256 KiB answers): at most maxRequestsPerCaller run, RSS bounded', async () => {
    const connections = scaled(20, 50)
    const before = process.memoryUsage().rss
    calls = 0
    const { peakRss, closed } = await attack('fast', connections, 40, 8000, 256 * 1024)
    console.log(
      `[unread] ${connections} connections × 40 calls: ${calls} backend calls, ${closed} closed, RSS +${((peakRss - before) / MiB).toFixed(0)} MiB`,
    )
    expect(calls).toBeLessThanOrEqual(Math.min(connections * PER_CONNECTION, PER_CALLER))
    expect(peakRss - before).toBeLessThan(250 * MiB)
  }, 90_000)
})
