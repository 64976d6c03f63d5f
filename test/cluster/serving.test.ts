/**
 * The `cluster` and `requestStateKey` options of `serveHttp()`,
 * `nodeHandler()` and `fetchHandler()`, and serving over a cluster in one
 * process: instances sharing one in-memory fleet behave as one server
 * (a session rebuilt where it lands, a client's answer routed to the
 * instance asking, list changes to every listen stream).
 */
import { afterAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server, memoryCluster, memoryFleet, type HttpHandle } from '../../src/entries/runtime.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const KEY = 'a key of at least thirty-two bytes, shared'
const info = { name: 'serving-test', version: '0.0.0' }
const closers = new Closer()
afterAll(() => closers.close())

describe('the cluster options', () => {
  it('a cluster without a requestStateKey is a start-up error, on every transport', async () => {
    const server = Server.builder('keyless').build()
    const message = 'a cluster needs a requestStateKey shared by every instance'
    await expect(server.serveHttp({ port: 0, cluster: memoryCluster() })).rejects.toThrow(`serveHttp(): ${message}`)
    expect(() => server.nodeHandler({ cluster: memoryCluster() })).toThrow(`nodeHandler(): ${message}`)
    expect(() => server.fetchHandler({ cluster: memoryCluster() })).toThrow(`fetchHandler(): ${message}`)
  })

  it('fetchHandler({ auth }): its options checked, the metadata served, a request without a token refused with the challenge', async () => {
    const server = Server.builder('gated').requestStateKey(KEY).build()
    expect(() => server.fetchHandler({ auth: { issuer: 'https://issuer.example' } })).toThrow(
      'fetchHandler(): option "auth" needs "resource"',
    )
    const auth = { issuer: 'https://issuer.example', resource: 'http://127.0.0.1:9/mcp' }
    const handler = server.fetchHandler({ cluster: memoryCluster(), auth, logger: false })
    closers.push(() => handler.close())
    const metadata = await handler(new Request('http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp'))
    expect(await metadata.json()).toMatchObject({ resource: auth.resource, authorization_servers: [auth.issuer] })
    const refused = await handler(
      new Request(auth.resource, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      }),
      { authInfo: { token: 'not verified here', clientId: 'x', scopes: [] } },
    )
    expect(refused.status).toBe(401)
    expect(refused.headers.get('www-authenticate')).toContain(
      'resource_metadata="http://127.0.0.1:9/.well-known/oauth-protected-resource/mcp"',
    )
  })

  it("the builder's key counts; another key than the one the server seals with is refused", async () => {
    const server = Server.builder('keyed').requestStateKey(KEY).build()
    const http = await server.serveHttp({ port: 0, cluster: memoryCluster() })
    closers.push(() => http.close())
    expect(() => server.nodeHandler({ cluster: memoryCluster(), requestStateKey: 'another key, also thirty-two bytes long' })).toThrow(
      'nodeHandler(): option "requestStateKey" differs from the key this server already seals requestState with',
    )
    expect(() => server.nodeHandler({ requestStateKey: KEY })).not.toThrow()
  })

  it('checks what it is given', () => {
    const server = Server.builder('checked').build()
    expect(() => server.nodeHandler({ requestStateKey: 'short' })).toThrow(
      'nodeHandler(): option "requestStateKey" must be a Uint8Array or a string of at least 32 bytes, got "short"',
    )
    expect(() => server.nodeHandler({ cluster: {} as never, requestStateKey: KEY })).toThrow(
      'nodeHandler(): option "cluster" must be a Cluster',
    )
    expect(() => server.fetchHandler({ clutser: memoryCluster() } as never)).toThrow('fetchHandler(): unknown option "clutser"')
  })
})

/** Instances of one server sharing an in-memory fleet, and a fetch that takes turns among them. */
async function fleetOf(count: number): Promise<{ https: HttpHandle[]; servers: Server[]; roundRobin: typeof fetch; asked: string[] }> {
  const fleet = memoryFleet()
  const asked: string[] = []
  const servers: Server[] = []
  const https: HttpHandle[] = []
  for (let i = 0; i < count; i++) {
    const name = `instance-${i}`
    const server = Server.builder('fleet')
      .requestStateKey(KEY)
      .tool({ name: 'Where', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: name }] }))
      .tool({ name: 'Ask', inputSchema: { type: 'object' } }, async (_args, ctx) => {
        asked.push(name)
        const answer = await ctx.elicit!({
          message: 'word?',
          requestedSchema: { type: 'object', properties: { word: { type: 'string' } } },
        })
        return { content: [{ type: 'text', text: `${String(answer.content?.word)} on ${name}` }] }
      })
      .build()
    const http = await server.serveHttp({ port: 0, cluster: memoryCluster({ fleet }) })
    closers.push(() => http.close())
    servers.push(server)
    https.push(http)
  }
  let turn = 0
  const roundRobin: typeof fetch = (input, init) => {
    const target = new URL(https[turn++ % https.length]!.url)
    const url = new URL(input instanceof Request ? input.url : String(input))
    url.host = target.host
    return fetch(url, init)
  }
  return { https, servers, roundRobin, asked }
}

describe('instances sharing a memory fleet', () => {
  it('serve one session together, rebuilding it where it lands; a client answer goes to the instance asking', async () => {
    const { https, roundRobin, asked } = await fleetOf(3)
    const client = new ClientV1(info, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { word: 'shared' } }))
    await client.connect(new HttpV1(new URL(https[0]!.url), { fetch: roundRobin }))
    closers.push(() => client.close())
    const where = new Set<string>()
    for (let i = 0; i < 6; i++) where.add(text(await client.callTool({ name: 'Where', arguments: {} })))
    expect(where).toEqual(new Set(['instance-0', 'instance-1', 'instance-2']))
    for (let i = 0; i < 3; i++) expect(text(await client.callTool({ name: 'Ask', arguments: {} }))).toBe(`shared on ${asked.at(-1)}`)
    expect(https.map((h) => h.sessionCount)).toEqual([1, 1, 1])
  })

  it("fetchHandler(): a 2026-07-28 listen stream hears another instance's change", async () => {
    const fleet = memoryFleet()
    const make = () => Server.builder('fetching').requestStateKey(KEY).build()
    const listening = make()
    const changing = make()
    const handler = listening.fetchHandler({ cluster: memoryCluster({ fleet }) })
    await handler.ready()
    closers.push(() => handler.close())
    const other = changing.fetchHandler({ cluster: memoryCluster({ fleet }) })
    await other.ready()
    closers.push(() => other.close())
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    let heard = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      heard++
    })
    await client.connect(new HttpV2(new URL('http://fleet.test/mcp'), { fetch: (input, init) => handler(new Request(input, init)) }))
    closers.push(() => client.close())
    await client.listen({ toolsListChanged: true })
    changing.handle().addTool({ name: 'New', inputSchema: { type: 'object' } }, () => ({ content: [] }))
    await expect.poll(() => heard, { timeout: 5000 }).toBe(1)
  })

  it('a session served from a copy without asking the fleet still expires sessionIdleMs after its last request', async () => {
    // Idle 4 s: an instance that confirmed the session within 1 s serves it from its copy, then touches it once.
    const fleet = memoryFleet()
    const make = async () => {
      const http = await Server.builder('idle')
        .requestStateKey(KEY)
        .build()
        .serveHttp({ port: 0, cluster: memoryCluster({ fleet }), sessionIdleMs: 4000 })
      closers.push(() => http.close())
      return http
    }
    const [a, b] = [await make(), await make()]
    const post = (http: HttpHandle, body: object, session?: string) =>
      fetch(http.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-11-25',
          ...(session ? { 'mcp-session-id': session } : {}),
        },
        body: JSON.stringify(body),
      })
    const opened = await post(a, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: info },
    })
    const session = opened.headers.get('mcp-session-id')!
    await opened.text()
    const start = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 600))
    // Within a second of the touch at initialize: served from A's copy.
    const last = await post(a, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, session)
    expect(last.status).toBe(200)
    await last.text()
    // Past 4 s from the initialize, before 4 s from that request: alive on B (which asks the fleet), since the touch followed.
    await new Promise((resolve) => setTimeout(resolve, start + 4300 - Date.now()))
    const later = await post(b, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, session)
    expect(later.status).toBe(200)
    await later.text()
  })
})
