/**
 * One caller cannot hold every connection (the issue: 1 000 held GET or
 * listen streams from one caller locked every other caller out through
 * `maxConnections`): past `maxStreamsPerCaller` held streams (a session's
 * GET stream, a 2026-07-28 `subscriptions/listen`), one more from the same
 * caller gets `429` and a throttled log line; other callers are served; a
 * stream that ends gives its place back.
 */
import { afterAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { INITIALIZE } from '../helpers/raw-http.ts'
import { Closer } from '../helpers/closer.ts'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }
const closers = new Closer({ strict: true })
afterAll(() => closers.close())

const warnings: string[] = []
let http: HttpHandle

async function serve(): Promise<HttpHandle> {
  const server = Server.builder('held')
    .logging({ logger: { warn: (line) => warnings.push(line) } })
    .tool({ name: 'Ping', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'pong' }] }))
    .build()
  http = await server.serveHttp({ port: 0, maxStreamsPerCaller: 2 })
  closers.push(() => http.close())
  return http
}

/** Opens a session as `token`'s caller and its GET stream; resolves with the stream's status and a way to end it. */
async function getStream(token: string): Promise<{ status: number; end: () => void }> {
  const auth = { authorization: `Bearer ${token}` }
  const init = await fetch(http.url, { method: 'POST', headers: { ...HEADERS, ...auth }, body: INITIALIZE })
  await init.text()
  const abort = new AbortController()
  const stream = await fetch(http.url, {
    headers: {
      ...auth,
      accept: 'text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      'mcp-session-id': init.headers.get('mcp-session-id')!,
    },
    signal: abort.signal,
  })
  if (stream.status !== 200) await stream.text()
  closers.push(() => abort.abort())
  return { status: stream.status, end: () => abort.abort() }
}

describe('maxStreamsPerCaller', () => {
  it('a caller past the cap gets 429 and one log line; another caller is served; an ended stream gives its place back', async () => {
    await serve()
    // A 2026-07-28 listen stream and a GET stream: two held streams of caller "a".
    const listening = new ClientV2({ name: 'held', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await listening.connect(new HttpV2(new URL(http.url), { requestInit: { headers: { authorization: 'Bearer a' } } }))
    closers.push(() => listening.close())
    await listening.listen({ toolsListChanged: true })
    const first = await getStream('a')
    expect(first.status).toBe(200)
    // A third: refused, with a text that says which limit.
    const auth = { authorization: 'Bearer a' }
    const init = await fetch(http.url, { method: 'POST', headers: { ...HEADERS, ...auth }, body: INITIALIZE })
    await init.text()
    const refused = await fetch(http.url, {
      headers: {
        ...auth,
        accept: 'text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'mcp-session-id': init.headers.get('mcp-session-id')!,
      },
    })
    expect(refused.status).toBe(429)
    expect(await refused.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32000, message: 'too many open streams: this caller already holds 2 (maxStreamsPerCaller); close one first' },
    })
    expect(warnings).toEqual(['held: a caller holding 2 streams (maxStreamsPerCaller) asked for one more: answered 429'])
    // Calls are not held streams: caller "a" still calls.
    const call = await fetch(http.url, {
      method: 'POST',
      headers: { ...HEADERS, ...auth, 'mcp-session-id': init.headers.get('mcp-session-id')! },
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Ping","arguments":{}}}',
    })
    expect(await call.text()).toContain('pong')
    // Another caller is served.
    expect((await getStream('b')).status).toBe(200)
    // Once one of "a"'s streams ends, "a" opens another.
    first.end()
    await vi.waitFor(async () => expect((await getStream('a')).status).toBe(200), { timeout: 5_000 })
  })

  it('is an option of serveHttp and nodeHandler, checked where it is given', () => {
    const server = Server.builder('x').build()
    expect(() => server.nodeHandler({ maxStreamsPerCaller: 0 })).toThrow(
      'nodeHandler(): option "maxStreamsPerCaller" must be an integer of at least 1, got 0',
    )
  })
})
