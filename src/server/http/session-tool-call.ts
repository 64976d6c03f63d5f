/**
 * The fast path of a `tools/call` POSTed in an initialize-era session over
 * Node HTTP (docs/serving.md, "Transports"). It skips what costs most on the way to
 * the session's SDK instance: the web `Request` with its body, the SDK
 * entry's classification, the transport's web POST handling and the web
 * `Response` piped back. It skips nothing of the session itself: the
 * request is handed to the session's transport (session-transport.ts,
 * `serveCall`: the SDK's own dispatch, validation, progress, log level,
 * questions to the client, cancellation) on a stream the transport
 * registers as its own, written straight onto the Node response, so every
 * message back is stored in the session's event store with its id (a GET
 * with `Last-Event-ID` replays it, here or on another instance) and written
 * as SSE. A response that is complete before the stream's first flush goes
 * out in one write. A notification POSTed in the session (`initialized`,
 * `cancelled`) is handed to the transport and answered 202, as the
 * transport does. Anything it does not handle as the transport would
 * (another protocol version, a batch, another request, a response, a
 * session to rebuild from the fleet) goes to the SDK path, its body and
 * its era with it (inbound.ts, `declined`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { isJsonContentType, type AuthInfo, type JSONRPCMessage, type Server as SdkServer } from '@modelcontextprotocol/server'
import { rememberSource } from '../../runtime/number-source.ts'
import { noteClientAddress } from '../operate/sdk-request.ts'
import { declined, type Era, type NextPath, type ReadRequest } from './inbound.ts'
import { principalOf } from '../base/principal.ts'
import type { SessionTransport } from './session-transport.ts'
import { isRecord } from '../../contract/is-record.ts'

/** What session-handler.ts lends this path of one of its sessions. */
export interface SessionLink {
  readonly server: SdkServer
  readonly transport: SessionTransport
  /** Counts a response stream of the session as open (it keeps the session from going idle); returns its end. */
  opened(): () => void
}

/**
 * The session `id` of this caller (`principal`) when it lives on this
 * instance, touched as the SDK path touches it (`message`: the request, for
 * a fleet's stream records); `undefined` when the SDK path must answer
 * (also for a call that needs more scopes than `authInfo` holds: step-up.ts).
 */
export type FindSession = (
  id: string,
  principal: string,
  url: string,
  message: unknown,
  authInfo?: AuthInfo,
) => Promise<SessionLink | undefined>

/** Whether the headers say this may be a `tools/call` or a notification in an initialize-era session (the body and the session decide). */
export function mayBeSessionCall(req: IncomingMessage): boolean {
  const h = req.headers
  const accept = h.accept ?? ''
  return (
    req.method === 'POST' &&
    typeof h['mcp-session-id'] === 'string' &&
    typeof h['mcp-protocol-version'] === 'string' &&
    h['content-length'] !== undefined &&
    h['content-encoding'] === undefined &&
    isJsonContentType(h['content-type'] ?? null) &&
    accept.includes('application/json') &&
    accept.includes('text/event-stream')
  )
}

type Call = { jsonrpc: '2.0'; id: string | number; method: 'tools/call'; params: unknown }
type Notification = { jsonrpc: '2.0'; method: string; params?: unknown }

/** A single JSON-RPC `tools/call` request with an id, or a single notification (what this path serves); else `undefined`. */
function kindOf(message: unknown): 'call' | 'notification' | undefined {
  if (!isRecord(message)) return undefined
  const m = message as Record<string, unknown>
  if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') return undefined
  if (!('id' in m)) return m.method.startsWith('notifications/') ? 'notification' : undefined
  return m.method === 'tools/call' && (typeof m.id === 'string' || typeof m.id === 'number') ? 'call' : undefined
}

/**
 * What the SDK path hands the transport as the request (its `ctx.http.req`):
 * its method, URL, headers and signal, which is all the handlers read of it
 * (a whole web `Request` costs more than the rest of the way to the tool).
 */
function requestOf(req: IncomingMessage, url: string, signal: AbortSignal): Request {
  const headers = new Headers()
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || name.startsWith(':')) continue
    if (Array.isArray(value)) for (const item of value) headers.append(name, item)
    else headers.set(name, value)
  }
  return { method: 'POST', url, headers, signal } as Request
}

/**
 * Serves a request {@link mayBeSessionCall} let through, its body read and
 * classified once at the edge (`body`, `era`: inbound.ts), if it is a
 * `tools/call` or a notification of the initialize era in a session of this
 * instance the transport would take: hands it to the session. Else hands
 * the request, its body and its era to `next` (the SDK path).
 */
export async function serveSessionCall(
  find: FindSession,
  req: IncomingMessage,
  res: ServerResponse,
  body: ReadRequest,
  era: Era,
  next: NextPath,
): Promise<void> {
  const { text, message } = body
  const h = req.headers
  const version = h['mcp-protocol-version'] as string
  const kind = kindOf(message)
  // Only what the SDK's entry routes to the initialize era is a session's.
  if (kind === undefined || era.kind !== 'legacy') return declined(req, body, next, era)
  const id = h['mcp-session-id'] as string
  const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth
  const url = `http://${h.host ?? 'localhost'}${req.url ?? '/'}`
  const session = await find(id, principalOf(authInfo, h.authorization), url, message, authInfo)
  // The session's checks, narrowed: open here, and the version it negotiated (any other goes to the transport's check).
  if (session === undefined || session.transport.closed || session.transport.sessionId !== id) return declined(req, body, next, era)
  if (version !== session.server.getNegotiatedProtocolVersion()) return declined(req, body, next, era)
  const { transport } = session
  if (kind === 'notification') {
    // Delivered, and 202 with no body, as the transport answers it.
    const request = requestOf(req, url, new AbortController().signal)
    transport.receive(message as Notification as JSONRPCMessage, { ...(authInfo === undefined ? {} : { authInfo }), request })
    res.writeHead(202)
    res.end()
    return
  }
  // A version without priming events: the transport's web path (which answers it without them).
  if (!transport.supportsEmptySSEData(version)) return declined(req, body, next, era)
  const abort = new AbortController()
  const request = requestOf(req, url, abort.signal)
  noteClientAddress(request, req.socket?.remoteAddress)
  // The body's text goes with the request, for exact 64-bit numbers (as the SDK path's readBody does).
  rememberSource(request, text)
  const done = session.opened()
  const served = transport.serveCall({
    message: message as Call as JSONRPCMessage & { id: string | number },
    res,
    request,
    ...(authInfo === undefined ? {} : { authInfo }),
    version,
    ended(gone) {
      // The client gone: as for the web path's stream, the request runs on and its answer is stored for a resume.
      if (gone) abort.abort()
      done()
    },
  })
  if (!served) {
    done()
    return declined(req, body, next, era)
  }
}
