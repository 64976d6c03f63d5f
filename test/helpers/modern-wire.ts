/**
 * 2026-07-28 requests written by hand: the per-request `_meta` envelope
 * (protocol version, client info, capabilities) and the standard headers
 * (`MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`), for tests that look
 * at the wire itself (HTTP status, exact result fields) rather than at what
 * a client library makes of it.
 */

/** Options of {@link modernRequest}. */
export interface ModernRequestOptions {
  /** The client capabilities the envelope declares. @default {} */
  capabilities?: Record<string, unknown>
  /** More headers (or `null` to leave a standard one out). */
  headers?: Record<string, string | null>
  /** More `_meta` keys. */
  meta?: Record<string, unknown>
  /** Aborts the request (the client going away). */
  signal?: AbortSignal
  /** Rewrites the body's JSON text before it is sent: for a literal `JSON.stringify` cannot write (a number past 2^53). */
  rewrite?: (text: string) => string
}

/** What came back: the HTTP status and the JSON-RPC response (the last message of an SSE body). */
export interface ModernResponse {
  status: number
  body: { result?: Record<string, any>; error?: { code: number; message: string; data?: any }; id?: unknown }
  /** Every message of an SSE body (notifications before the response), or the one JSON body. */
  messages: Array<Record<string, any>>
}

let nextId = 1

/** The `Mcp-Name` a method carries (SEP-2243, and SEP-2663 for `tasks/*`). */
function nameOf(method: string, params: Record<string, unknown>): string | undefined {
  const field = {
    'tools/call': 'name',
    'prompts/get': 'name',
    'resources/read': 'uri',
    'tasks/get': 'taskId',
    'tasks/update': 'taskId',
    'tasks/cancel': 'taskId',
  }[method]
  const value = field === undefined ? undefined : params[field]
  return typeof value === 'string' ? value : undefined
}

/** Sends one 2026-07-28 request to `url` and reads its answer (JSON or SSE). */
export async function modernRequest(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  options: ModernRequestOptions = {},
): Promise<ModernResponse> {
  const body = {
    jsonrpc: '2.0',
    id: nextId++,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'modern-wire', version: '0.0.0' },
        'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {},
        ...options.meta,
      },
    },
  }
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
  }
  const name = nameOf(method, params)
  if (name !== undefined) headers['mcp-name'] = name
  for (const [key, value] of Object.entries(options.headers ?? {})) {
    if (value === null) delete headers[key.toLowerCase()]
    else headers[key.toLowerCase()] = value
  }
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: options.rewrite ? options.rewrite(JSON.stringify(body)) : JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  })
  const text = await response.text()
  const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as Record<string, any>)
    : [JSON.parse(text) as Record<string, any>]
  return { status: response.status, body: messages.at(-1) as ModernResponse['body'], messages }
}
