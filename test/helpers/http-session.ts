/**
 * An initialize-era session over Streamable HTTP, opened as a raw client
 * (fetch, JSON-RPC written by hand) for tests that then send their own
 * requests on it.
 */

/** The headers of a JSON-RPC POST: a JSON body, JSON or SSE accepted. */
export const JSON_RPC_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

export interface OpenSessionOptions {
  /** The `initialize`'s protocolVersion, sent as `mcp-protocol-version` on the notification. @default '2025-06-18' */
  protocolVersion?: string
  /** Headers sent with both requests (an `authorization`, say). */
  headers?: Record<string, string>
}

/**
 * Opens a session at `url`: `initialize`, then `notifications/initialized`,
 * which must be answered 202. Resolves with the session id; rejects, saying
 * what came instead, when there is none or the notification is refused.
 */
export async function openSession(url: string, options: OpenSessionOptions = {}): Promise<string> {
  const protocolVersion = options.protocolVersion ?? '2025-06-18'
  const headers = { ...JSON_RPC_HEADERS, ...options.headers }
  const init = await fetch(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    }),
  })
  const body = await init.text()
  const id = init.headers.get('mcp-session-id')
  if (id === null) throw new Error(`initialize at ${url} answered ${init.status} without a session: ${body.slice(0, 500)}`)
  const note = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-session-id': id, 'mcp-protocol-version': protocolVersion },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  const answer = await note.text()
  if (note.status !== 202) throw new Error(`notifications/initialized answered ${note.status}: ${answer.slice(0, 500)}`)
  return id
}
