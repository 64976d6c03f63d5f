/**
 * The fast path of a `tools/call` POSTed in an initialize-era session over
 * Node HTTP (docs/serving.md, "Transports"). It skips what costs most on the way to
 * the session's SDK instance: the web `Request` with its body, the SDK
 * entry's classification, the transport's POST handling and the web
 * `Response` piped back. It skips nothing of the session itself: the
 * request is handed to the session's transport (`onmessage`: the SDK's own
 * dispatch, validation, progress, log level, questions to the client,
 * cancellation) with its response stream registered in the transport as the
 * transport registers its own, so every message back goes through the
 * transport's `send`: stored in the session's event store with its id (a
 * GET with `Last-Event-ID` replays it, here or on another instance) and
 * written as SSE. A response that is complete before the stream's first
 * flush goes out in one write. A notification POSTed in the session
 * (`initialized`, `cancelled`) is handed to the transport and answered 202,
 * as the transport does. Anything it does not handle as the transport
 * would (another protocol version, a batch, another request, a response, a
 * session to rebuild from the fleet) goes to the SDK path, its body replayed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  classifyInboundRequest,
  isJsonContentType,
  type AuthInfo,
  type JSONRPCMessage,
  type Server as SdkServer,
  type WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server'
import { rememberSource } from '../../runtime/number-source.ts'
import { jsonBodyOf, replayed } from './fast-call.ts'
import { principalOf } from '../base/principal.ts'
import { writePostFailed } from './post-failure.ts'

/** What session-handler.ts lends this path of one of its sessions. */
export interface SessionLink {
  readonly server: SdkServer
  readonly transport: WebStandardStreamableHTTPServerTransport
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

/** One stream of the transport's `_streamMapping`, as the transport makes its own. */
interface Stream {
  controller: { enqueue(chunk: string): void; close(): void }
  encoder: { encode(text: string): string }
  cleanup(): void
}

/*
 * What this path uses of the SDK transport beyond its public API: the maps
 * that route a request's messages to its stream (fleet.ts reads them too),
 * and the steps of its own POST handling. test/server/session-fast-call.test.ts
 * fails if an SDK update moves them.
 */
interface TransportInternals {
  _closed: boolean
  _scopeChallengeResolver: unknown
  _streamMapping: Map<string, Stream>
  _requestToStreamMapping: Map<string | number, string>
  supportsEmptySSEData(protocolVersion: string): boolean
  writePrimingEvent(controller: Stream['controller'], encoder: Stream['encoder'], streamId: string, protocolVersion: string): Promise<void>
  startKeepAlive(controller: Stream['controller'], encoder: Stream['encoder']): ReturnType<typeof setInterval> | undefined
}

/**
 * The transport's private members this path uses, or undefined when this SDK
 * version does not have them as expected: then every request takes the SDK's
 * own path (slower, never wrong). test/cluster/transport-internals.test.ts
 * fails when an SDK update moves them.
 */
export function internals(transport: WebStandardStreamableHTTPServerTransport): TransportInternals | undefined {
  const open = transport as unknown as Partial<Record<keyof TransportInternals, unknown>>
  const fits =
    typeof open._closed === 'boolean' &&
    open._streamMapping instanceof Map &&
    open._requestToStreamMapping instanceof Map &&
    typeof open.supportsEmptySSEData === 'function' &&
    typeof open.writePrimingEvent === 'function' &&
    typeof open.startKeepAlive === 'function'
  return fits ? (transport as unknown as TransportInternals) : undefined
}

/** The response headers of a POST's SSE stream, as the transport writes them. */
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
}

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
  if (message === null || typeof message !== 'object' || Array.isArray(message)) return undefined
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
 * Reads the body of a request {@link mayBeSessionCall} let through and, if
 * it is a `tools/call` or a notification in a session of this instance the
 * transport would take, hands it to the session; else hands the request, its body replayed
 * as it came, to `next` (the SDK path).
 */
export async function serveSessionCall(
  find: FindSession,
  req: IncomingMessage,
  res: ServerResponse,
  next: (req: IncomingMessage) => Promise<void>,
): Promise<void> {
  const { chunks, text, message } = await jsonBodyOf(req)
  const h = req.headers
  const version = h['mcp-protocol-version'] as string
  const kind = kindOf(message)
  if (kind === undefined) return next(replayed(req, chunks))
  // The SDK entry's own classification: only what it routes to the initialize era is a session's.
  const era = classifyInboundRequest({
    httpMethod: 'POST',
    protocolVersionHeader: version,
    ...(typeof h['mcp-method'] === 'string' ? { mcpMethodHeader: h['mcp-method'] } : {}),
    ...(typeof h['mcp-name'] === 'string' ? { mcpNameHeader: h['mcp-name'] } : {}),
    body: message,
  })
  if (era.kind !== 'legacy') return next(replayed(req, chunks))
  const id = h['mcp-session-id'] as string
  const authInfo = (req as IncomingMessage & { auth?: AuthInfo }).auth
  const url = `http://${h.host ?? 'localhost'}${req.url ?? '/'}`
  const session = await find(id, principalOf(authInfo, h.authorization), url, message, authInfo)
  const transport = session?.transport
  const open = transport && internals(transport)
  // The transport's checks, narrowed: its session, open, and the version it negotiated (any other goes to the SDK's check).
  if (
    session === undefined ||
    open === undefined ||
    open._closed ||
    open._scopeChallengeResolver !== undefined ||
    transport!.sessionId !== id ||
    version !== session.server.getNegotiatedProtocolVersion() ||
    !open.supportsEmptySSEData(version)
  ) {
    return next(replayed(req, chunks))
  }
  if (kind === 'call') return streamCall(session, open, req, res, message as Call, url, authInfo, text)
  // A notification (initialized, cancelled, progress): delivered, and 202 with no body, as the transport answers it.
  const request = requestOf(req, url, new AbortController().signal)
  transport!.onmessage?.(message as Notification as JSONRPCMessage, { ...(authInfo === undefined ? {} : { authInfo }), request })
  res.writeHead(202)
  res.end()
}

/** Serves `message` on a new SSE stream of `session`'s transport, as its POST handling would. */
function streamCall(
  session: SessionLink,
  open: TransportInternals,
  req: IncomingMessage,
  res: ServerResponse,
  message: { id: string | number },
  url: string,
  authInfo: AuthInfo | undefined,
  text: string,
): void {
  const { transport } = session
  const streamId = globalThis.crypto.randomUUID()
  const headers = { ...SSE_HEADERS, 'mcp-session-id': transport.sessionId! }
  // Chunks held until the stream is flushed: a response complete by then goes out in one write, with its length.
  let held: string[] | undefined = []
  let ended = false
  let keepAlive: ReturnType<typeof setInterval> | undefined
  const done = session.opened()
  const abort = new AbortController()
  const finish = (): void => {
    ended = true
    if (keepAlive !== undefined) clearInterval(keepAlive)
    done()
  }
  const controller: Stream['controller'] = {
    enqueue(chunk) {
      if (ended) throw new TypeError('the stream is closed')
      if (held) held.push(chunk)
      else res.write(chunk)
    },
    close() {
      if (ended) throw new TypeError('the stream is closed')
      finish()
      if (held === undefined) return void res.end()
      const body = held.join('')
      res.writeHead(200, { ...headers, 'content-length': Buffer.byteLength(body) })
      res.end(body)
    },
  }
  const encoder: Stream['encoder'] = { encode: (chunk) => chunk }
  const flush = (): void => {
    if (held === undefined || ended) return
    res.writeHead(200, headers)
    res.flushHeaders()
    for (const chunk of held) res.write(chunk)
    held = undefined
    keepAlive = open.startKeepAlive(controller, encoder)
  }
  // The client gone: as the transport's stream cancelled, the request runs on and its answer is stored for a resume.
  res.once('close', () => {
    if (ended) return
    abort.abort()
    finish()
    if (open._streamMapping.get(streamId)?.controller === controller) open._streamMapping.delete(streamId)
  })
  open._streamMapping.set(streamId, {
    controller,
    encoder,
    cleanup: () => {
      if (keepAlive !== undefined) clearInterval(keepAlive)
      open._streamMapping.delete(streamId)
      try {
        controller.close()
      } catch {
        // Closed already.
      }
    },
  })
  open._requestToStreamMapping.set(message.id, streamId)
  const request = requestOf(req, url, abort.signal)
  // The body's text goes with the request, for exact 64-bit numbers (as the SDK path's readBody does).
  rememberSource(request, text)
  const version = req.headers['mcp-protocol-version'] as string
  open
    .writePrimingEvent(controller, encoder, streamId, version)
    .then(() => {
      transport.onmessage?.(message as JSONRPCMessage, {
        ...(authInfo === undefined ? {} : { authInfo }),
        request,
        closeSSEStream: () => transport.closeSSEStream(message.id),
        closeStandaloneSSEStream: () => transport.closeStandaloneSSEStream(),
      })
      // Still open after the turn the handler started in: the headers and what is held go now, then as it comes.
      if (!ended) setImmediate(flush)
    })
    .catch((error: unknown) => {
      // As the transport answers a failure of its POST handling (the store unreachable for the priming event, say).
      transport.onerror?.(error as Error)
      open._requestToStreamMapping.delete(message.id)
      open._streamMapping.delete(streamId)
      if (ended) return
      finish()
      writePostFailed(res)
    })
}
