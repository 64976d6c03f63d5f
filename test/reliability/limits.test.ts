/**
 * Every serving limit, driven on the raw wire against `serveHttp`, and the
 * heap after a full gc coming back once the load is gone:
 * - `maxSessions`: abandoned sessions past the cap evict the oldest idle one
 *   (the issue: 18 000 abandoned sessions held 219 MiB); with every session
 *   busy, an initialize gets 503 with Retry-After;
 * - `maxSessionEventBytes` and `maxEventBytes`: results kept for
 *   `Last-Event-ID` are bounded in bytes (100 results of 1 MiB held +100 MiB);
 * - `headersTimeoutMs`, `requestTimeoutMs`: stalled headers and uploads are
 *   cut (5 000 stalled uploads were all held, ~300 s);
 * - `maxConnections`: connections past it are closed as they arrive.
 * Numbers measured are printed (`[limits]`) for the record.
 */
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import type { Socket } from 'node:net'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { INITIALIZE, openSocket, rawRequest } from '../helpers/raw-http.ts'
import { scaled } from './scale.ts'
import { Closer } from '../helpers/closer.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void
const MiB = 1024 * 1024
/** heapUsed after two full collections. */
function heap(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
const mib = (bytes: number): string => `${(bytes / MiB).toFixed(1)} MiB`
const record = (line: string): void => {
  process.stdout.write(`[limits] ${line}\n`)
}

const closers = new Closer()
afterAll(() => closers.close())

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }
let calls = 0

/** A server whose `Big` tool answers 1 MiB of fresh text per call (a shared string would cost nothing to keep). */
function bigServer(): Server {
  return Server.builder('limits')
    .tool({ name: 'Big', inputSchema: { type: 'object' } }, () => ({
      content: [{ type: 'text', text: `${++calls}:`.padEnd(MiB, 'x') }],
      isError: false,
    }))
    .build()
}

async function serve(options: Parameters<Server['serveHttp']>[0]): Promise<HttpHandle> {
  const http = await bigServer().serveHttp({ port: 0, ...options })
  closers.push(() => http.close())
  return http
}

const post = (url: string, body: unknown, session?: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, ...(session ? { 'mcp-session-id': session } : {}) },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  })

async function openSession(url: string): Promise<{ status: number; id: string | null }> {
  const res = await post(url, INITIALIZE)
  await res.text()
  return { status: res.status, id: res.headers.get('mcp-session-id') }
}

describe('maxSessions', () => {
  it('abandoned sessions past the cap evict the oldest idle one; the heap stays flat and comes back', { timeout: 180_000 }, async () => {
    const base = heap()
    const http = await serve({ maxSessions: 100 })
    const total = scaled(3000, 18_000)
    const ids: string[] = []
    let peak = 0
    for (let i = 0; i < total; i += 50) {
      const batch = await Promise.all(Array.from({ length: Math.min(50, total - i) }, () => openSession(http.url)))
      for (const b of batch) {
        expect(b.status).toBe(200)
        ids.push(b.id!)
      }
      peak = Math.max(peak, http.sessionCount)
    }
    expect(peak).toBeLessThanOrEqual(100)
    const held = heap() - base
    // The first ones were evicted: answered like unknown sessions.
    const first = await post(http.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, ids[0])
    expect(first.status).toBe(404)
    await first.text()
    const last = await post(http.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, ids.at(-1))
    expect(last.status).toBe(200)
    await last.text()
    await http.close()
    const after = heap() - base
    record(
      `${total} abandoned sessions, maxSessions 100: at most ${peak} open, heap +${mib(held)} while serving, +${mib(after)} after close`,
    )
    expect(held).toBeLessThan(40 * MiB)
    expect(after).toBeLessThan(16 * MiB)
  })

  it('with every session busy (an open GET stream), an initialize gets 503 with Retry-After; a freed slot serves again', async () => {
    const http = await serve({ maxSessions: 3 })
    const streams: AbortController[] = []
    for (let i = 0; i < 3; i++) {
      const { id } = await openSession(http.url)
      await (await post(http.url, { jsonrpc: '2.0', method: 'notifications/initialized' }, id!)).text()
      const abort = new AbortController()
      const stream = await fetch(http.url, {
        method: 'GET',
        signal: abort.signal,
        headers: { ...HEADERS, accept: 'text/event-stream', 'mcp-session-id': id! },
      })
      expect(stream.status).toBe(200)
      streams.push(abort)
    }
    const refused = await rawRequest(http.url, { body: INITIALIZE })
    expect(refused.status).toBe(503)
    expect(refused.headers['retry-after']).toBe('5')
    expect(refused.body).toContain('too many sessions: all 3 are in use; retry later')
    streams[0]!.abort()
    await vi.waitFor(async () => expect((await openSession(http.url)).status).toBe(200), { timeout: 5000, interval: 100 })
    for (const s of streams) s.abort()
  })
})

/** Calls `Big` in `session` `n` times, reading each SSE result to the end; the last event id. */
async function bigResults(url: string, session: string, n: number): Promise<string> {
  let lastId = ''
  for (let i = 0; i < n; i++) {
    const res = await post(url, { jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: 'Big', arguments: {} } }, session)
    const text = await res.text()
    expect(text.length).toBeGreaterThan(MiB)
    lastId = /^id: (\S+)$/m.exec(text)?.[1] ?? lastId
  }
  return lastId
}

describe('event-store bytes', () => {
  it('per session: results of 1 MiB keep at most maxSessionEventBytes for resumption', { timeout: 120_000 }, async () => {
    const http = await serve({ maxSessionEventBytes: 4 * MiB })
    const base = heap()
    const { id } = await openSession(http.url)
    await bigResults(http.url, id!, scaled(40, 100))
    const held = heap() - base
    record(`${scaled(40, 100)} results of 1 MiB in one session, maxSessionEventBytes 4 MiB: heap +${mib(held)}`)
    expect(held).toBeLessThan(16 * MiB)
    await fetch(http.url, { method: 'DELETE', headers: { ...HEADERS, 'mcp-session-id': id! } })
    expect(heap() - base).toBeLessThan(8 * MiB)
  })

  it('in total: many sessions together keep at most maxEventBytes', { timeout: 120_000 }, async () => {
    const http = await serve({ maxSessionEventBytes: 4 * MiB, maxEventBytes: 8 * MiB })
    const base = heap()
    const sessions: string[] = []
    for (let i = 0; i < 10; i++) {
      const { id } = await openSession(http.url)
      sessions.push(id!)
      await bigResults(http.url, id!, 3)
    }
    const held = heap() - base
    record(`10 sessions × 3 results of 1 MiB, maxEventBytes 8 MiB: heap +${mib(held)}`)
    expect(held).toBeLessThan(20 * MiB)
    await http.close()
    expect(heap() - base).toBeLessThan(8 * MiB)
  })
})

/** Resolves with the milliseconds until the server closes `socket`, or rejects after `limitMs`. */
function closedWithin(socket: Socket, limitMs: number): Promise<{ ms: number; data: string }> {
  const started = Date.now()
  let data = ''
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => {
    data += chunk
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${limitMs} ms`)), limitMs)
    socket.on('close', () => {
      clearTimeout(timer)
      resolve({ ms: Date.now() - started, data })
    })
    socket.on('error', () => {})
  })
}

describe('timeouts and connections', () => {
  it('headers sent too slowly are cut after headersTimeoutMs (408)', async () => {
    const http = await serve({ headersTimeoutMs: 300, requestTimeoutMs: 1000 })
    const socket = await openSocket(http.url)
    socket.write(`POST /mcp HTTP/1.1\r\nhost: ${new URL(http.url).host}\r\n`)
    const { ms, data } = await closedWithin(socket, 5000)
    record(`stalled headers cut after ${ms} ms (headersTimeoutMs 300)`)
    expect(data).toMatch(/^HTTP\/1\.1 408/)
  })

  it('stalled uploads are cut after requestTimeoutMs and their memory comes back', { timeout: 60_000 }, async () => {
    const count = scaled(500, 5000)
    // Room for every upload: this measures the timeout, not the connection cap.
    const http = await serve({ headersTimeoutMs: 500, requestTimeoutMs: 1000, maxConnections: count + 100 })
    const base = heap()
    const sockets = await Promise.all(
      Array.from({ length: count }, async () => {
        const socket = await openSocket(http.url)
        socket.write(
          `POST /mcp HTTP/1.1\r\nhost: ${new URL(http.url).host}\r\ncontent-type: application/json\r\ncontent-length: 1000000\r\n\r\n{"jsonrpc":`,
        )
        return socket
      }),
    )
    const closed = await Promise.all(sockets.map((socket) => closedWithin(socket, scaled(10_000, 30_000))))
    const slowest = Math.max(...closed.map((c) => c.ms))
    // The client ends live in this process too: let them go before measuring.
    sockets.length = 0
    const after = heap() - base
    record(`${count} stalled uploads all cut within ${slowest} ms (requestTimeoutMs 1000); heap +${mib(after)} after`)
    expect(after).toBeLessThan(8 * MiB)
    expect((await rawRequest(http.url, { body: INITIALIZE })).status).toBe(200)
  })

  it('connections past maxConnections are closed as they arrive', async () => {
    const http = await serve({ maxConnections: 20 })
    const sockets = await Promise.all(Array.from({ length: 60 }, () => openSocket(http.url)))
    const outcomes = await Promise.all(
      sockets.map((socket) =>
        closedWithin(socket, 1500).then(
          () => 'closed',
          () => 'open',
        ),
      ),
    )
    const open = outcomes.filter((o) => o === 'open').length
    record(`60 idle connections, maxConnections 20: ${open} kept open`)
    expect(open).toBeLessThanOrEqual(20)
    for (const socket of sockets) socket.destroy()
    await vi.waitFor(async () => expect((await rawRequest(http.url, { body: INITIALIZE })).status).toBe(200), {
      timeout: 5000,
      interval: 100,
    })
  })
})
