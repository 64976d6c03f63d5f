/**
 * An initialize-era session over Streamable HTTP as a raw client (fetch,
 * JSON-RPC written by hand), and a `tools/call` on it: what the
 * rate-limit-fairness callers send (bench/rate-limit.mjs); `lightCall`, the
 * same call through node:http on kept-alive sockets, is the caller over its
 * limit, whose own client work should cost the shared cores little.
 */
import { Agent, request } from 'node:http'

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const VERSION = '2025-06-18'

/** Opens a session at `url` (`initialize`, then `notifications/initialized`); its id. */
export async function openSession(url) {
  const init = await fetch(url, {
    method: 'POST',
    headers: HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
    }),
  })
  const text = await init.text()
  const id = init.headers.get('mcp-session-id')
  if (id === null) throw new Error(`initialize at ${url} answered ${init.status} without a session: ${text.slice(0, 300)}`)
  const note = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  })
  await note.text()
  if (note.status !== 202) throw new Error(`notifications/initialized answered ${note.status}`)
  return id
}

let next = 1
/** One `tools/call` in `session`; its HTTP status (the body read to its end). */
export async function sessionCall(url, session, name, args) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': VERSION },
    body: JSON.stringify({ jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name, arguments: args } }),
  })
  await response.text()
  return response.status
}

const agent = new Agent({ keepAlive: true, maxSockets: 8 })
/** {@link sessionCall} through node:http on kept-alive sockets (a cheaper client than fetch). */
export function lightCall(url, session, name, args) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name, arguments: args } })
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: { ...HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': VERSION, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}
