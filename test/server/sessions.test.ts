/**
 * Initialize-era HTTP sessions: the idle timeout frees abandoned sessions,
 * DELETE frees at once, a dropped SSE stream resumes with Last-Event-ID and
 * gets the call's result without a second run; malformed JSON-RPC is a
 * JSON-RPC error and the server keeps answering.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { Closer } from '../helpers/closer.ts'
import { openSession as openHttpSession } from '../helpers/http-session.ts'

const closers = new Closer()
afterAll(() => closers.close())

const ok = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: false })

async function serve(options: { sessionIdleMs?: number } = {}, build = Server.builder('sessions')): Promise<HttpHandle> {
  const http = await build.build().serveHttp({ port: 0, ...options })
  closers.push(() => http.close())
  return http
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

function initialize(url: string, protocolVersion = '2025-06-18', signal?: AbortSignal): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: HEADERS,
    signal,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  })
}

/** Opens a session (test/helpers/http-session.ts); its id, a UUID. */
async function openSession(url: string, protocolVersion = '2025-06-18'): Promise<string> {
  const id = await openHttpSession(url, { protocolVersion })
  expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
  return id
}

/** Reads SSE events from a response body until `until` says stop; returns them. */
async function readEvents(
  res: Response,
  until: (event: { id?: string; data: string }) => boolean,
): Promise<Array<{ id?: string; data: string }>> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const events: Array<{ id?: string; data: string }> = []
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return events
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const event: { id?: string; data: string } = { data: '' }
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4)
        else if (line.startsWith('data: ')) event.data += line.slice(6)
      }
      if (event.id === undefined && event.data === '') continue
      events.push(event)
      if (until(event)) {
        await reader.cancel()
        return events
      }
    }
  }
}

describe('session lifetime', () => {
  it('200 sessions opened and abandoned are all freed after the idle timeout', { timeout: 60_000 }, async () => {
    const http = await serve({ sessionIdleMs: 1000 })
    const opened = await Promise.all(
      Array.from({ length: 200 }, async () => {
        const res = await initialize(http.url)
        await res.text()
        return { status: res.status, id: res.headers.get('mcp-session-id') }
      }),
    )
    expect(new Set(opened.map((o) => o.status))).toEqual(new Set([200]))
    const ids = opened.map((o) => o.id!)
    expect(new Set(ids).size).toBe(200)
    await vi.waitFor(() => expect(http.sessionCount).toBe(0), { timeout: 20_000, interval: 100 })
    // Every freed session is gone: its id is answered 404 (the client must initialize again).
    const statuses = await Promise.all(
      ids.map(async (id) => {
        const res = await fetch(http.url, {
          method: 'POST',
          headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        })
        await res.text()
        return res.status
      }),
    )
    expect(new Set(statuses)).toEqual(new Set([404]))
  })

  it('a session with an open GET stream is not idle: it outlives an abandoned one', async () => {
    const http = await serve({ sessionIdleMs: 1000 })
    const client = new ClientV1({ name: 'listener', version: '0' })
    await client.connect(new HttpV1(new URL(http.url)))
    closers.push(() => client.close())
    await openSession(http.url)
    expect(http.sessionCount).toBe(2)
    await vi.waitFor(() => expect(http.sessionCount).toBe(1), { timeout: 10_000, interval: 50 })
    expect((await client.listTools()).tools).toEqual([])
    expect(http.sessionCount).toBe(1)
  })

  it('a session whose GET stream was dropped without DELETE is freed after the idle timeout (regression: the stream kept it alive)', async () => {
    const http = await serve({ sessionIdleMs: 500 })
    const id = await openSession(http.url)
    const abort = new AbortController()
    const stream = await fetch(http.url, {
      method: 'GET',
      signal: abort.signal,
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    })
    expect(stream.status).toBe(200)
    expect(http.sessionCount).toBe(1)
    // The client goes away with the stream open and never sends DELETE.
    abort.abort()
    await vi.waitFor(() => expect(http.sessionCount).toBe(0), { timeout: 8_000, interval: 50 })
  })

  it('a GET stream opens at once (headers before any event), then carries list_changed', async () => {
    const server = Server.builder('stream').build()
    const http = await server.serveHttp({ port: 0 })
    closers.push(() => http.close())
    // 2025-06-18: no priming event, so nothing but a flush sends the headers before a change.
    const id = await openSession(http.url)
    const abort = new AbortController()
    closers.push(async () => abort.abort())
    const stream = await fetch(http.url, {
      method: 'GET',
      signal: abort.signal,
      headers: { accept: 'text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    })
    expect(stream.status).toBe(200)
    expect(stream.headers.get('content-type')).toContain('text/event-stream')
    server.handle().addTool({ name: 'Late', inputSchema: { type: 'object' } }, () => ok('late'))
    const [event] = await readEvents(stream, (e) => e.data !== '')
    expect(JSON.parse(event!.data)).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' })
  })

  it('DELETE frees a session at once', async () => {
    const http = await serve()
    const id = await openSession(http.url)
    const other = await openSession(http.url)
    expect(http.sessionCount).toBe(2)
    const res = await fetch(http.url, { method: 'DELETE', headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } })
    expect(res.status).toBe(200)
    expect(http.sessionCount).toBe(1)
    const after = await fetch(http.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    })
    expect(after.status).toBe(404)
    expect(other).not.toBe(id)
  })
})

describe('resumable SSE', () => {
  it('a dropped stream resumed with Last-Event-ID receives the call result, and the handler ran once', async () => {
    let runs = 0
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const http = await serve(
      {},
      Server.builder('resume').tool({ name: 'Slow', inputSchema: { type: 'object' } }, async () => {
        runs++
        await gate
        return ok('finished')
      }),
    )
    // Priming events (what a client resumes from) come with 2025-11-25.
    const version = '2025-11-25'
    const session = await openSession(http.url, version)
    const headers = { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': version }
    const abort = new AbortController()
    const call = await fetch(http.url, {
      method: 'POST',
      headers,
      signal: abort.signal,
      body: JSON.stringify({ jsonrpc: '2.0', id: 42, method: 'tools/call', params: { name: 'Slow', arguments: {} } }),
    })
    const [priming] = await readEvents(call, (event) => event.id !== undefined)
    expect(priming!.id).toMatch(/\S/)
    abort.abort()
    release()

    const resumed = await fetch(http.url, { method: 'GET', headers: { ...headers, 'last-event-id': priming!.id! } })
    expect(resumed.status).toBe(200)
    const events = await readEvents(resumed, (event) => event.data.includes('"id":42'))
    const result = JSON.parse(events.at(-1)!.data)
    expect(result).toEqual({ jsonrpc: '2.0', id: 42, result: ok('finished') })
    expect(runs).toBe(1)
  })
})

describe('bad requests', () => {
  it('malformed JSON-RPC gets a JSON-RPC error, and the server answers the next request', async () => {
    const http = await serve()
    const notJson = await fetch(http.url, { method: 'POST', headers: HEADERS, body: '{"jsonrpc": "2.0", "id": 1, "method": ' })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toEqual({
      jsonrpc: '2.0',
      error: { code: -32700, message: expect.stringContaining('Parse error') },
      id: null,
    })

    const notRpc = await fetch(http.url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-protocol-version': '2025-06-18' },
      body: '{"hello":"world"}',
    })
    expect(notRpc.status).toBe(400)
    expect(await notRpc.json()).toMatchObject({ jsonrpc: '2.0', error: { code: expect.any(Number) } })

    const next = await initialize(http.url)
    expect(next.status).toBe(200)
    expect(await next.text()).toContain('"serverInfo"')
  })

  it('Host and Origin guards (403) and the body limit (413) hold on the sessionful endpoint too', async () => {
    const http = await serve()
    const body = '{"jsonrpc":"2.0","id":1,"method":"ping"}'
    // fetch cannot set Host; an Origin it can.
    expect((await fetch(http.url, { method: 'POST', headers: { ...HEADERS, origin: 'https://evil.example' }, body })).status).toBe(403)
    const big = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping', params: { pad: 'x'.repeat(5 * 1024 * 1024) } })
    expect((await fetch(http.url, { method: 'POST', headers: HEADERS, body: big })).status).toBe(413)
    expect((await initialize(http.url)).status).toBe(200)
  })
})
