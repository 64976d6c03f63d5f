/**
 * What fleet.ts and the session fast path read of the SDK transport's private state (which stream
 * answers which request, whether the GET stream is open here): this fails
 * if an SDK update moves it.
 */
import { describe, expect, it } from 'vitest'
import { Server as SdkServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import { MemoryEventStore } from '../../src/server/cluster/event-store.ts'
import { holdsGetStream, runsHere } from '../../src/server/cluster/fleet.ts'
import { internals } from '../../src/server/http/session-fast-call.ts'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

describe('the SDK transport internals a fleet reads', () => {
  it('a running request maps to its stream until answered; the GET stream is seen while open', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const events = new MemoryEventStore()
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => 'session', eventStore: events })
    const server = new SdkServer({ name: 'internals', version: '0' }, { capabilities: { tools: {} } })
    server.setRequestHandler('tools/call', async () => {
      await gate
      return { content: [] }
    })
    await server.connect(transport)
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      transport.handleRequest(
        new Request('http://localhost/mcp', { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) }),
        {
          parsedBody: body,
        },
      )
    const session = { 'mcp-session-id': 'session', 'mcp-protocol-version': '2025-11-25' }
    await (
      await post({
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '0' } },
      })
    ).text()
    await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)
    // The session fast path (http/session-fast-call.ts) finds the members it registers its streams in.
    expect(internals(transport)).toBe(transport)
    expect(internals({} as never)).toBeUndefined()
    const call = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'x', arguments: {} } }, session)
    const reader = call.body!.getReader()
    const priming = new TextDecoder().decode((await reader.read()).value)
    const streamId = (await events.getStreamIdForEventId(/id: (\S+)/.exec(priming)![1]!))!
    expect(runsHere(transport, streamId)).toBe(true)
    expect(runsHere(transport, 'another stream')).toBe(false)
    release()
    while (!(await reader.read()).done);
    expect(runsHere(transport, streamId)).toBe(false)

    expect(holdsGetStream(transport)).toBe(false)
    const get = await transport.handleRequest(
      new Request('http://localhost/mcp', { method: 'GET', headers: { accept: 'text/event-stream', ...session } }),
    )
    expect(get.status).toBe(200)
    expect(holdsGetStream(transport)).toBe(true)
    await get.body!.cancel()
    expect(holdsGetStream(transport)).toBe(false)
    await server.close()
  })
})
