/**
 * The raw request path `@modelcontextprotocol/ext-tasks` needs beside an
 * SDK v2 `Client` to drive 2026-07-28 tasks (the SDK's codecs refuse a
 * `tools/call` answered with a task): over HTTP a POST of its own, over
 * stdio the client's own transport, whose answers to these requests are
 * taken off before the client sees them.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client'
import type { JsonRpcResponse } from '@modelcontextprotocol/ext-tasks/client'

/** What ext-tasks' `rawDispatch` resolves with. */
export type RawResponse = JsonRpcResponse

/** A framed request as ext-tasks hands it over: `{ method, params }`. */
type Framed = { method: string; params?: Record<string, any> }

let next = 1

const NAME_FIELD: Record<string, string> = {
  'tools/call': 'name',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
}

/** A `rawDispatch` POSTing each request to `url` with the standard headers (and `headers`), reading a JSON or SSE answer. */
export function httpDispatch(url: string, headers: Record<string, string> = {}): (request: unknown) => Promise<RawResponse> {
  return async (request) => {
    const { method, params = {} } = request as Framed
    const name = NAME_FIELD[method] === undefined ? undefined : params[NAME_FIELD[method]!]
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: `raw-${next++}`, method, params }),
    })
    const text = await response.text()
    const last = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text
          .split('\n')
          .filter((line) => line.startsWith('data: '))
          .map((line) => JSON.parse(line.slice(6)))
          .at(-1)
      : JSON.parse(text)
    return 'error' in last ? { kind: 'error', error: last.error } : { kind: 'result', result: last.result }
  }
}

/**
 * A `rawDispatch` over a connected transport (stdio): each request goes out
 * with an id of its own, and its answer is taken off the transport before
 * the SDK client sees it. Call after `client.connect(transport)`.
 */
export function transportDispatch(transport: Transport): (request: unknown) => Promise<RawResponse> {
  const waiting = new Map<string, (response: RawResponse) => void>()
  const deliver = transport.onmessage
  transport.onmessage = ((message: JSONRPCMessage, extra?: unknown) => {
    const id = (message as { id?: unknown }).id
    const resolve = typeof id === 'string' ? waiting.get(id) : undefined
    if (resolve === undefined || 'method' in message)
      return (deliver as (m: JSONRPCMessage, e?: unknown) => void)?.call(transport, message, extra)
    waiting.delete(id as string)
    const reply = message as { result?: any; error?: any }
    resolve(reply.error ? { kind: 'error', error: reply.error } : { kind: 'result', result: reply.result })
  }) as Transport['onmessage']
  return (request) =>
    new Promise<RawResponse>((resolve, reject) => {
      const id = `raw-${next++}`
      waiting.set(id, resolve)
      const { method, params } = request as Framed
      transport.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) } as JSONRPCMessage).catch(reject)
    })
}
