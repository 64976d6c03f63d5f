/**
 * A call its client cancels (`notifications/cancelled`) ends its SSE
 * stream: the SDK sends no response for it, and the POST's stream used to
 * stay open for the session's life. On the wire, with `serveHttp`.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { Closer } from '../helpers/closer.ts'
import { openSession } from '../helpers/http-session.ts'

const closers = new Closer()
afterAll(() => closers.close())

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }

describe('a cancelled call', () => {
  it('ends its SSE stream, and the session keeps serving', async () => {
    let aborted = false
    const server = Server.builder('cancel')
      .tool(
        { name: 'Hang', inputSchema: { type: 'object' } },
        (_args, ctx) =>
          new Promise((_resolve, reject) => {
            ctx.signal?.addEventListener('abort', () => {
              aborted = true
              reject(new Error('cancelled'))
            })
          }),
      )
      .build()
    const http: HttpHandle = await server.serveHttp({ port: 0 })
    closers.push(() => http.close())
    const post = (body: unknown, id?: string) =>
      fetch(http.url, { method: 'POST', headers: { ...HEADERS, ...(id ? { 'mcp-session-id': id } : {}) }, body: JSON.stringify(body) })
    const id = await openSession(http.url)

    const call = await post({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'Hang', arguments: {} } }, id)
    expect(call.headers.get('content-type')).toContain('text/event-stream')
    const reader = call.body!.getReader()
    // The handler is running: the stream is open.
    await new Promise((resolve) => setTimeout(resolve, 200))
    const cancel = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'user' } }, id)
    expect(cancel.status).toBe(202)
    const ended = (async () => {
      for (;;) if ((await reader.read()).done) return true
    })()
    const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 5000).unref())
    expect(await Promise.race([ended, timeout])).toBe(true)
    expect(aborted).toBe(true)
    const listed = await post({ jsonrpc: '2.0', id: 8, method: 'tools/list' }, id)
    expect(listed.status).toBe(200)
    expect(await listed.text()).toContain('Hang')
  })
})
