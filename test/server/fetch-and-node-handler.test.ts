/**
 * `server.fetch(request)` (web-standard, stateless, both eras) and
 * `server.nodeHandler()` mounted as connect-style middleware.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server } from '../../src/entries/runtime.ts'
import { Closer } from '../helpers/closer.ts'

const closers = new Closer()
afterAll(() => closers.close())

const ok = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: false })
const info = { name: 'fetch-test', version: '0.0.0' }

function echoServer() {
  return Server.builder('echo')
    .version('1.2.3')
    .tool(
      { name: 'Echo', inputSchema: { type: 'object', properties: { say: { type: 'string' } }, required: ['say'] } },
      (args: { say: string }) => ok(args.say),
    )
    .build()
}

describe('fetch(request)', () => {
  it('answers a 2026-07-28 client and a raw initialize-era request, with no session', async () => {
    const server = echoServer()
    const client = new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new HttpV2(new URL('http://worker.example/mcp'), { fetch: (url, init) => server.fetch(new Request(url, init)) }))
    closers.push(() => client.close())
    expect(client.getProtocolEra()).toBe('modern')
    expect(await client.callTool({ name: 'Echo', arguments: { say: 'hi' } })).toMatchObject(ok('hi'))
    expect(await client.callTool({ name: 'Echo', arguments: {} })).toMatchObject({
      isError: true,
      content: [{ text: 'invalid arguments: : "say" is a required property' }],
    })

    const res = await server.fetch(
      new Request('http://worker.example/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
        }),
      }),
    )
    expect(res.status).toBe(200)
    expect(res.headers.get('mcp-session-id')).toBeNull()
    expect(await res.text()).toContain('"serverInfo":{"name":"echo","version":"1.2.3"}')
  })
})

describe('nodeHandler()', () => {
  it('serves its path as middleware and passes other paths to next()', async () => {
    const handler = echoServer().nodeHandler({ path: '/mcp' })
    const http = createServer((req, res) =>
      handler(req, res, () => {
        res.writeHead(418).end('next')
      }),
    )
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    closers.push(async () => {
      await handler.close()
      http.closeAllConnections()
      await new Promise((resolve) => http.close(resolve))
    })
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
    const other = await fetch(`${base}/elsewhere`)
    expect([other.status, await other.text()]).toEqual([418, 'next'])
    const client = new ClientV2(info)
    await client.connect(new HttpV2(new URL(`${base}/mcp`)))
    closers.push(() => client.close())
    expect(client.getProtocolEra()).toBe('legacy')
    expect(handler.sessionCount).toBe(1)
    expect(await client.callTool({ name: 'Echo', arguments: { say: 'mounted' } })).toMatchObject(ok('mounted'))
    // close() ends the handler's sessions, the node server itself staying up.
    await handler.close()
    expect(handler.sessionCount).toBe(0)
    await client.close()
  })
})
