/**
 * What an SDK server instance knows of a request, as operate.ts takes it
 * (the SDK path of every transport: stdio, both HTTP handlers, the session
 * fast path), and the end of an initialize-era session.
 */
import { PROTOCOL_VERSION_META_KEY, type JSONRPCRequest, type Server as SdkServer, type ServerContext } from '@modelcontextprotocol/server'
import type { ServedRequest } from './operate.ts'
import { recordSession } from './telemetry.ts'
import { MODERN_REVISION } from '../../contract/protocol.ts'

function headersOf(req: Request | undefined): Record<string, string> | undefined {
  if (req === undefined) return undefined
  const traceparent = req.headers.get('traceparent')
  if (traceparent === null) return {}
  const tracestate = req.headers.get('tracestate')
  return tracestate === null ? { traceparent } : { traceparent, tracestate }
}

/** The client's address of a request over Node HTTP, by the web `Request` the SDK sees (a web `Request` carries none). */
const addresses = new WeakMap<object, string>()

/** Notes the address of the client that sent `request` (Node HTTP: its socket's remote address), for its span's `client.address`. */
export function noteClientAddress(request: object, address: string | undefined): void {
  if (address !== undefined) addresses.set(request, address)
}

/** How each SDK instance was reached, seen on its first request (its session's duration says it). */
const transports = new WeakMap<SdkServer, 'pipe' | 'tcp'>()

/** Notes how `server` is reached, on each request (what its session's duration says when it ends). */
export function sawRequest(server: SdkServer, ctx: ServerContext): void {
  if (!transports.has(server)) transports.set(server, ctx.http === undefined ? 'pipe' : 'tcp')
}

/** The facts of `request` as `server` serves it in `ctx`. */
export function sdkRequest(server: SdkServer, request: JSONRPCRequest, ctx: ServerContext): ServedRequest {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const version = envelope?.[PROTOCOL_VERSION_META_KEY]
  const http = ctx.http
  // Built whole, without spreads: with an SDK registered this runs for every request.
  return {
    method: request.method,
    params: request.params as Record<string, unknown> | undefined,
    id: request.id,
    transport: http === undefined ? 'pipe' : 'tcp',
    authInfo: http?.authInfo,
    checkRate: http === undefined,
    protocolVersion: typeof version === 'string' ? version : server.getNegotiatedProtocolVersion(),
    // The conventions' mcp.session.id: initialize-era sessions only (2026-07-28 has none).
    sessionId: envelope === undefined ? ctx.sessionId : undefined,
    headers: headersOf(http?.req),
    clientAddress: http?.req === undefined ? undefined : addresses.get(http.req),
  }
}

/** Records the session's duration when an initialize-era session (or stdio connection) of `server` closes. */
export function endSession(server: SdkServer, openedAt: number): void {
  const version = server.getNegotiatedProtocolVersion()
  if (version === undefined || version >= MODERN_REVISION) return
  recordSession(openedAt, { 'mcp.protocol.version': version, 'network.transport': transports.get(server) ?? 'pipe' })
}
