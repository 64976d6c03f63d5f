/**
 * The session transport of the initialize era (src/server/http/session-transport.ts)
 * under a real SDK server: what a fleet reads of its streams (which stream
 * answers which request, whether the GET stream is open here), and
 * backpressure: a tool's messages to a client that does not read wait for
 * the stream to drain, on the web body and on a Node response (the fast path).
 */
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { Server as SdkServer } from '@modelcontextprotocol/server'
import { MemoryEventStore } from '../../src/server/cluster/event-store.ts'
import { SessionTransport } from '../../src/server/http/session-transport.ts'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const SESSION = { 'mcp-session-id': 'session', 'mcp-protocol-version': '2025-11-25' }
/** One progress message's text: 32 KiB. */
const BIG = 'x'.repeat(32 * 1024)

const closing: Array<() => Promise<unknown>> = []
afterEach(async () => {
  for (const close of closing.splice(0)) await close()
})

/** An initialized session on a SessionTransport; `tool` answers tools/call, `progress` counts the notifications sent. */
async function session(tool: (ctx: { notify(n: unknown): Promise<void> }) => Promise<void>, keepAliveMs?: number) {
  const events = new MemoryEventStore()
  const transport = new SessionTransport({
    sessionId: 'session',
    eventStore: events,
    maxRequestBodySize: 1 << 20,
    ...(keepAliveMs === undefined ? {} : { keepAliveMs }),
  })
  const server = new SdkServer({ name: 'transport', version: '0' }, { capabilities: { tools: {} } })
  server.setRequestHandler('tools/call', async (_request, ctx) => {
    await tool({ notify: (n) => ctx.mcpReq.notify(n as never) })
    return { content: [] }
  })
  await server.connect(transport)
  closing.push(() => server.close())
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    transport.handleRequest(
      new Request('http://localhost/mcp', { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) }),
      { parsedBody: body },
    )
  await (
    await post({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } },
    })
  ).text()
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, SESSION)).status).toBe(202)
  return { transport, events, post }
}

const call = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'x', arguments: {}, _meta: { progressToken: 'p' } },
})
const progress = (n: number) => ({ method: 'notifications/progress', params: { progressToken: 'p', progress: n, message: BIG } })
const settle = () => new Promise((resolve) => setTimeout(resolve, 300))

describe('the session transport', () => {
  it('a running request maps to its stream until answered; the GET stream is seen while open', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const { transport, events, post } = await session(() => gate)
    const answer = await post(call(9), SESSION)
    const reader = answer.body!.getReader()
    const priming = new TextDecoder().decode((await reader.read()).value)
    const streamId = (await events.getStreamIdForEventId(/id: (\S+)/.exec(priming)![1]!))!
    expect(transport.runs(streamId)).toBe(true)
    expect(transport.requestsOf(streamId)).toEqual([9])
    expect(transport.runs('another stream')).toBe(false)
    release()
    while (!(await reader.read()).done);
    expect(transport.runs(streamId)).toBe(false)

    expect(transport.holdsStandaloneStream()).toBe(false)
    const get = await transport.handleRequest(
      new Request('http://localhost/mcp', { method: 'GET', headers: { accept: 'text/event-stream', ...SESSION } }),
    )
    expect(get.status).toBe(200)
    expect(transport.holdsStandaloneStream()).toBe(true)
    await get.body!.cancel()
    expect(transport.holdsStandaloneStream()).toBe(false)
  })

  it('an open stream gets keep-alive comments; a stream that ended gets none', async () => {
    const { transport } = await session(async () => {}, 40)
    const get = await transport.handleRequest(
      new Request('http://localhost/mcp', { method: 'GET', headers: { accept: 'text/event-stream', ...SESSION } }),
    )
    const reader = get.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    while (!text.includes(': keepalive\n\n')) text += decoder.decode((await reader.read()).value, { stream: true })
    transport.closeStandaloneSSEStream()
    while (!(await reader.read()).done);
    expect(transport.holdsStandaloneStream()).toBe(false)
  })

  it("a tool's messages on a web body nobody reads wait once 64 KiB are unread, and go on as the body is read", async () => {
    let sent = 0
    const { post } = await session(async ({ notify }) => {
      for (let n = 0; n < 100; n++) {
        await notify(progress(n))
        sent++
      }
    })
    const answer = await post(call(1), SESSION)
    await settle()
    // 32 KiB messages: about two fit before the body's high-water mark, none past it.
    expect(sent).toBeGreaterThan(0)
    expect(sent).toBeLessThan(10)
    const text = await answer.text()
    expect(sent).toBe(100)
    expect(text.match(/notifications\/progress/g)).toHaveLength(100)
    expect(JSON.parse(/data: (.*)\n\n$/.exec(text)![1]!)).toMatchObject({ id: 1, result: { content: [] } })
  })

  it("on the fast path, a tool's messages to a client that stopped reading wait for the Node response's drain", async () => {
    let sent = 0
    const total = 2000
    const { transport } = await session(async ({ notify }) => {
      for (let n = 0; n < total; n++) {
        await notify(progress(n))
        sent++
      }
    })
    const node = createServer((req, res) => {
      transport.serveCall({
        message: call(2) as never,
        res,
        request: { method: 'POST', url: 'http://localhost/mcp', headers: new Headers(), signal: new AbortController().signal } as Request,
        version: '2025-11-25',
        ended: () => {},
      })
    })
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
    closing.push(() => new Promise((resolve) => (node.closeAllConnections(), node.close(resolve))))
    const { port } = node.address() as AddressInfo
    const response = await new Promise<IncomingMessage>((resolve) => httpRequest({ port, host: '127.0.0.1' }, resolve).end())
    response.pause()
    await settle()
    const stalled = sent
    await settle()
    // 2000 messages of 32 KiB are 64 MiB: the socket's buffers hold a few MiB of it, and the tool waits.
    expect(stalled).toBeLessThan(total / 2)
    expect(sent).toBe(stalled)
    let bytes = 0
    response.on('data', (chunk: Buffer) => (bytes += chunk.length))
    response.resume()
    await new Promise((resolve) => response.on('end', resolve))
    expect(sent).toBe(total)
    expect(bytes).toBeGreaterThan(total * BIG.length)
  })
})
