/**
 * The texts of issue 22's item 7 on the wire: each says what happened and
 * is the same wherever it happens.
 * - a body past the limit gets one 413 text, declared or sent in chunks,
 *   through `serveHttp` and `fetch()`;
 * - a well-formed but unknown `Last-Event-ID` says it cannot resume from
 *   that event (not "Invalid event ID format");
 * - GET and DELETE without a session say they need one (not 405 with
 *   `Allow: POST`, which contradicted the endpoint's `Allow`); PUT is still
 *   405 with the endpoint's methods.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_BODY_BYTES, Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { INITIALIZE, rawRequest } from '../helpers/raw-http.ts'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }
const TOO_LARGE = {
  jsonrpc: '2.0',
  id: null,
  error: { code: -32000, message: `request body too large: the limit is ${MAX_BODY_BYTES} bytes` },
}

let server: Server
let http: HttpHandle
beforeAll(async () => {
  server = Server.builder('texts')
    .tool({ name: 'Ping', inputSchema: { type: 'object' } }, () => ({ content: [] }))
    .build()
  http = await server.serveHttp({ port: 0 })
})
afterAll(() => http?.close())

/** A body one byte past the limit, sent in chunks (no Content-Length). */
function chunked(): ReadableStream<Uint8Array> {
  const piece = new Uint8Array(64 * 1024).fill(32)
  let sent = 0
  return new ReadableStream({
    pull(controller) {
      if (sent > MAX_BODY_BYTES) return controller.close()
      controller.enqueue(piece)
      sent += piece.length
    },
  })
}

describe('413', () => {
  it('is one text whether the length was declared, the body came in chunks, or it came through fetch()', async () => {
    const declared = await fetch(http.url, { method: 'POST', headers: HEADERS, body: ' '.repeat(MAX_BODY_BYTES + 1) })
    expect(declared.status).toBe(413)
    expect(await declared.json()).toEqual(TOO_LARGE)
    const streamed = await fetch(http.url, { method: 'POST', headers: HEADERS, body: chunked(), duplex: 'half' } as RequestInit)
    expect(streamed.status).toBe(413)
    expect(await streamed.json()).toEqual(TOO_LARGE)
    const viaFetch = await server.fetch(
      new Request('http://localhost/mcp', { method: 'POST', headers: HEADERS, body: ' '.repeat(MAX_BODY_BYTES + 1) }),
    )
    expect(viaFetch.status).toBe(413)
    expect(await viaFetch.json()).toEqual(TOO_LARGE)
    // And the server answers afterwards.
    expect((await fetch(http.url, { method: 'POST', headers: HEADERS, body: INITIALIZE })).status).toBe(200)
  })
})

describe('sessions', () => {
  it('an unknown Last-Event-ID says the session cannot resume from it', async () => {
    const init = await rawRequest(http.url, { body: INITIALIZE })
    const resumed = await rawRequest(http.url, {
      method: 'GET',
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': '2025-06-18',
        'mcp-session-id': init.headers['mcp-session-id']!,
        'last-event-id': '12345',
      },
    })
    expect(resumed.status).toBe(400)
    expect(JSON.parse(resumed.body).error.message).toBe(
      'cannot resume from event "12345": this session never sent it or no longer keeps it (maxSessionEvents, maxSessionEventBytes)',
    )
  })

  it("GET and DELETE without a session say they need one; PUT is 405 with the endpoint's methods", async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await rawRequest(http.url, { method, headers: { accept: 'text/event-stream' } })
      expect(response.status, method).toBe(400)
      expect(response.headers.allow, method).toBeUndefined()
      expect(JSON.parse(response.body).error.message, method).toBe(
        `Bad Request: ${method} needs the Mcp-Session-Id header of a session (initialize one with a POST)`,
      )
    }
    const put = await rawRequest(http.url, { method: 'PUT' })
    expect(put.status).toBe(405)
    expect(put.headers.allow).toBe('GET, POST, DELETE')
  })
})
