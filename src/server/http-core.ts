/**
 * The web-standard side of HTTP serving: 2026-07-28 requests through the
 * SDK's `createMcpHandler`, initialize-era requests (`isLegacyRequest`) to a
 * map of sessions on the SDK's sessionful transport (one SDK instance per
 * session, idle timeout, DELETE, resumable SSE), the rest statelessly.
 */
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  legacyStatelessFallback,
  readRequestBody,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type Server as SdkServer,
} from '@modelcontextprotocol/server'
import { DEFAULT_MAX_EVENT_BYTES, EventBudget, MemoryEventStore } from './event-store.ts'
import {
  BODY_NOT_JSON,
  BODY_TOO_LARGE,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_STREAMS_PER_CALLER,
  DEFAULT_SESSION_IDLE_MS,
  MAX_BODY_BYTES,
} from './limits.ts'
import type { ErrorSource, Log } from './logging.ts'
import { principalOf } from './principal.ts'
import { createSdkServer, notifyInstance, sdkServerFactory } from './sdk-server.ts'
import type { ListKind, ServingCore } from './serving-core.ts'
import { answerBeforeSdk, METHODS_BEFORE_SDK } from './before-sdk.ts'
import { onResourceUpdated } from './subscriptions.ts'
import { jsonRpcErrorBody } from '../contract/json-rpc-error.ts'
import { rememberSource } from '../runtime/number-source.ts'

/** Session options of HTTP serving. */
export interface SessionOptions {
  /** Idle time after which an initialize-era session is closed and freed (an open GET stream keeps it alive). @default 600000 (10 min) */
  sessionIdleMs?: number
  /**
   * Initialize-era sessions open at once. A new one past it closes the
   * session idle the longest (no open stream); when every session is busy,
   * the initialize gets `503` with `Retry-After`.
   * @default 1000
   */
  maxSessions?: number
  /** SSE events each session keeps for resumption (`Last-Event-ID`). @default 1000 */
  maxSessionEvents?: number
  /** Bytes of SSE events each session keeps for resumption; the oldest go first. @default 8388608 (8 MiB) */
  maxSessionEventBytes?: number
  /** Bytes of SSE events all sessions keep together; the oldest of any session go first. @default 67108864 (64 MiB) */
  maxEventBytes?: number
  /**
   * Held SSE streams (a session's GET stream, a 2026-07-28
   * `subscriptions/listen`) one caller may have open at once; one more
   * gets `429`. A caller is a principal (docs/serving.md §3): callers
   * without auth are one caller.
   * @default 100
   */
  maxStreamsPerCaller?: number
}

/** A fetch-shaped handler with its sessions. */
export interface HttpCore {
  /** `parsedBody`: the body, already read and parsed (the Node adapter passes it on). */
  fetch(request: Request, options?: { authInfo?: unknown; parsedBody?: unknown }): Promise<Response>
  /** Initialize-era sessions open now. */
  readonly sessionCount: number
  /** Closes every session and the 2026-07-28 streams. */
  close(): Promise<void>
}

/** A web-standard handler: one request in, one response out. */
export type FetchHandler = (request: Request, options?: { authInfo?: unknown }) => Promise<Response>

interface Session {
  readonly server: SdkServer
  readonly transport: WebStandardStreamableHTTPServerTransport
  readonly events: MemoryEventStore
  /** Who opened it (see principal.ts): a request of anyone else is answered as for an unknown session. */
  readonly principal: string
  lastSeen: number
  streams: number
}

const jsonRpcError = (status: number, code: number, message: string): Response => Response.json(jsonRpcErrorBody(code, message), { status })

/** The SDK's `onerror` of a handler: the error, told to `log`. */
const report =
  (core: ServingCore, log: Log, where: ErrorSource) =>
  (error: Error): void => {
    log.error(`${core.info.name}: ${error.message}`, error, where)
  }

/** Tells a 2026-07-28 handler's listen streams that `kind` changed. */
function notifyModern(mcp: ReturnType<typeof createMcpHandler>, kind: ListKind): void {
  if (kind === 'tools') mcp.notify.toolsChanged()
  else if (kind === 'resources') mcp.notify.resourcesChanged()
  else mcp.notify.promptsChanged()
}

/**
 * The parsed JSON body of a POST, or a `413`/`400` response. The text is
 * kept with the request, for the exact reading of 64-bit numbers
 * (runtime/number-source.ts).
 */
async function readBody(request: Request): Promise<{ parsed: unknown } | Response> {
  const body = await readRequestBody(request.clone(), MAX_BODY_BYTES)
  if (body.tooLarge) return jsonRpcError(413, -32000, BODY_TOO_LARGE)
  try {
    const parsed: unknown = JSON.parse(body.text)
    rememberSource(request, body.text)
    return { parsed }
  } catch {
    return jsonRpcError(400, -32700, BODY_NOT_JSON)
  }
}

/**
 * The stateless handler of `server.fetch()`: both eras, no sessions; its
 * listen streams hear list changes. Its messages go to the server's log.
 */
export function createFetchHandler(core: ServingCore): FetchHandler {
  core.codec()
  const mcp = createMcpHandler(sdkServerFactory(core), { maxRequestBodySize: MAX_BODY_BYTES, onerror: report(core, core.log, 'fetch') })
  core.onChange((kind) => notifyModern(mcp, kind))
  onResourceUpdated(core, (uri) => mcp.notify.resourceUpdated(uri))
  return async (request, options) => {
    const authInfo = options?.authInfo === undefined ? {} : { authInfo: options.authInfo as AuthInfo }
    if (request.method !== 'POST') return mcp.fetch(request, authInfo)
    // Read here as for serveHttp: one wording for a body too large or not JSON, and the text kept for exact 64-bit numbers.
    const body = await readBody(request)
    if (body instanceof Response) return body
    // A 2026-07-28 request names its method in Mcp-Method: those answered before the SDK are answered here.
    if (METHODS_BEFORE_SDK.has(request.headers.get('mcp-method') ?? '')) {
      const answered = await answerBeforeSdk(core, body.parsed, request, options?.authInfo)
      if (answered) return answered
    }
    return mcp.fetch(request, { ...authInfo, parsedBody: body.parsed })
  }
}

/** Whether a request asks for a stream held open for notifications: a GET, or a 2026-07-28 `subscriptions/listen`. */
const isHeldStream = (request: Request, parsed: unknown): boolean =>
  request.method === 'GET' || (parsed as { method?: unknown } | null)?.method === 'subscriptions/listen'

/**
 * `response` with `end` called once its SSE body ends or the client goes
 * away (`request.signal`: the Node adapter only notices a dead socket at
 * the next chunk, which an idle stream never writes); `undefined` when it
 * is not an SSE response.
 */
function watchStream(request: Request, response: Response, end: () => void): Response | undefined {
  if (!response.body || !response.headers.get('content-type')?.includes('text/event-stream')) return undefined
  let open = true
  const ended = (): void => {
    if (!open) return
    open = false
    end()
  }
  const reader = response.body.getReader()
  const gone = (): void => {
    ended()
    reader.cancel().catch(() => {
      // The stream already ended or failed: nothing left to release.
    })
  }
  if (request.signal.aborted) gone()
  else request.signal.addEventListener('abort', gone, { once: true })
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read()
        if (done) {
          ended()
          controller.close()
        } else controller.enqueue(value)
      } catch (error) {
        ended()
        controller.error(error)
      }
    },
    cancel(reason) {
      ended()
      return reader.cancel(reason)
    },
  })
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers })
}

/**
 * Ends the SSE stream of a request its client cancelled: the SDK aborts the
 * handler and, as the spec says, sends no response, so the transport would
 * keep the POST's stream open (and the connection) for the session's life.
 */
function endCancelledStreams(transport: WebStandardStreamableHTTPServerTransport): void {
  const deliver = transport.onmessage
  if (deliver === undefined) return
  transport.onmessage = (message, extra) => {
    deliver.call(transport, message, extra)
    if (!('method' in message) || message.method !== 'notifications/cancelled') return
    const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    // After the abort has run, so a handler that answers anyway is not cut mid-write.
    setImmediate(() => transport.closeSSEStream(requestId))
  }
}

/** Creates the sessionful handler of `serveHttp()` and `nodeHandler()`; its messages go to `log`. */
export function createHttpCore(core: ServingCore, options: SessionOptions = {}, log: Log = core.log): HttpCore {
  // requestState needs its key from serve time on.
  core.codec()
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS
  const onerror = report(core, log, 'http')
  const modern = createMcpHandler(sdkServerFactory(core, { log }), { legacy: 'reject', maxRequestBodySize: MAX_BODY_BYTES, onerror })
  const stateless = legacyStatelessFallback(sdkServerFactory(core, { log }), onerror, { maxRequestBodySize: MAX_BODY_BYTES })
  const sessions = new Map<string, Session>()
  const live = new Set<SdkServer>()
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS
  const budget = new EventBudget(options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES)
  // Initializes still in flight count too: a burst must not overshoot the cap.
  let opening = 0
  const off = core.onChange((kind) => {
    notifyModern(modern, kind)
    for (const server of live) notifyInstance(server, kind)
  }, log)
  const offUpdates = onResourceUpdated(core, (uri) => modern.notify.resourceUpdated(uri), log)

  const free = (id: string): void => {
    const session = sessions.get(id)
    if (!session) return
    sessions.delete(id)
    live.delete(session.server)
    session.events.clear()
    session.server.close().catch(onerror)
  }

  /** Makes room for one more session: frees the one idle the longest; `false` when every session is busy. */
  const makeRoom = (): boolean => {
    if (sessions.size + opening < maxSessions) return true
    let oldest: [string, Session] | undefined
    for (const entry of sessions)
      if (entry[1].streams === 0 && (oldest === undefined || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry
    if (oldest === undefined) return false
    free(oldest[0])
    return sessions.size + opening < maxSessions
  }

  const sweep = setInterval(
    () => {
      const now = Date.now()
      for (const [id, session] of sessions) if (session.streams === 0 && now - session.lastSeen >= idleMs) free(id)
    },
    Math.max(10, Math.min(idleMs / 4, 30_000)),
  )
  sweep.unref()

  /**
   * `response` with its SSE body counted as an open stream of `session`
   * until it ends or the client goes away (else an abandoned session would
   * never be idle).
   */
  const tracked = (session: Session, request: Request, response: Response): Response => {
    const watched = watchStream(request, response, () => {
      session.streams--
      session.lastSeen = Date.now()
    })
    if (watched === undefined) return response
    session.streams++
    return watched
  }

  // Held streams per caller, so one caller cannot hold every connection (maxConnections).
  const maxHeld = options.maxStreamsPerCaller ?? DEFAULT_MAX_STREAMS_PER_CALLER
  const held = new Map<string, number>()
  const release = (caller: string): void => {
    const left = held.get(caller)! - 1
    if (left === 0) held.delete(caller)
    else held.set(caller, left)
  }
  /** `response` to a request that took a place of `caller`: kept until its stream ends, given back at once when it is no stream. */
  const hold = (caller: string, request: Request, response: Response): Response => {
    const watched = watchStream(request, response, () => release(caller))
    if (watched === undefined) release(caller)
    return watched ?? response
  }
  const tooManyStreams = (): Response => {
    log.warnThrottled(
      'held streams',
      `${core.info.name}: a caller holding ${maxHeld} streams (maxStreamsPerCaller) asked for one more: answered 429`,
    )
    return jsonRpcError(429, -32000, `too many open streams: this caller already holds ${maxHeld} (maxStreamsPerCaller); close one first`)
  }

  const openSession = async (request: Request, parsed: unknown, authInfo: AuthInfo | undefined, principal: string): Promise<Response> => {
    if (!makeRoom()) {
      const busy = jsonRpcError(503, -32000, `too many sessions: all ${maxSessions} are in use; retry later`)
      busy.headers.set('retry-after', '5')
      return busy
    }
    const events = new MemoryEventStore({
      ...(options.maxSessionEvents === undefined ? {} : { maxEvents: options.maxSessionEvents }),
      ...(options.maxSessionEventBytes === undefined ? {} : { maxBytes: options.maxSessionEventBytes }),
      budget,
    })
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => globalThis.crypto.randomUUID(),
      eventStore: events,
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: (id) => {
        // Called while a request is handled, after `session` below is set.
        sessions.set(id, session)
        live.add(session.server)
      },
      onsessionclosed: (id) => free(id),
    })
    const server = createSdkServer(core, { log })
    const session: Session = { server, transport, events, principal, lastSeen: Date.now(), streams: 0 }
    opening++
    let response: Response
    try {
      await server.connect(transport)
      endCancelledStreams(transport)
      response = await transport.handleRequest(request, { parsedBody: parsed, ...(authInfo ? { authInfo } : {}) })
    } finally {
      opening--
    }
    // An initialize that failed opened no session: nothing may stay behind.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
      events.clear()
      await server.close().catch(onerror)
      return response
    }
    return tracked(session, request, response)
  }

  /** Answers one request: 2026-07-28 to the modern handler, initialize-era ones to their session, a new one, or statelessly. */
  const route = async (request: Request, parsed: unknown, authInfo: AuthInfo | undefined, principal: string): Promise<Response> => {
    const legacy = await isLegacyRequest(request, parsed, { maxRequestBodySize: MAX_BODY_BYTES })
    const handled = { ...(parsed === undefined ? {} : { parsedBody: parsed }), ...(authInfo ? { authInfo } : {}) }
    if (!legacy) return (await answerBeforeSdk(core, parsed, request, authInfo)) ?? modern.fetch(request, handled)
    const id = request.headers.get('mcp-session-id')
    if (id !== null) {
      const session = sessions.get(id)
      // Another caller's session (a GET with Last-Event-ID, a DELETE, a POST) is answered as an unknown one.
      if (session === undefined || session.principal !== principal)
        return jsonRpcError(404, -32001, 'Session not found: initialize a new session')
      session.lastSeen = Date.now()
      const last = request.method === 'GET' ? request.headers.get('last-event-id') : null
      // The SDK says "Invalid event ID format" for any event it cannot resume from; ours are too old or never were.
      if (last !== null && (await session.events.getStreamIdForEventId(last)) === undefined) {
        return jsonRpcError(
          400,
          -32000,
          `cannot resume from event ${JSON.stringify(last)}: this session never sent it or no longer keeps it (maxSessionEvents, maxSessionEventBytes)`,
        )
      }
      return tracked(session, request, await session.transport.handleRequest(request, handled))
    }
    // A GET stream and a DELETE belong to a session (the SDK's stateless answer, 405 with `Allow: POST`, would contradict the endpoint's `Allow`).
    if (request.method !== 'POST') {
      return jsonRpcError(
        400,
        -32000,
        `Bad Request: ${request.method} needs the Mcp-Session-Id header of a session (initialize one with a POST)`,
      )
    }
    if (isInitializeRequest(parsed)) return openSession(request, parsed, authInfo, principal)
    // Initialize-era requests outside a session (a plain POST, GET/DELETE without a session id) are served statelessly.
    return stateless(request, handled)
  }

  return {
    get sessionCount() {
      return sessions.size
    },
    async fetch(request, options) {
      const authInfo = options?.authInfo as AuthInfo | undefined
      let parsed: unknown = options?.parsedBody
      if (request.method === 'POST' && parsed === undefined) {
        const body = await readBody(request)
        if (body instanceof Response) return body
        parsed = body.parsed
      }
      const principal = principalOf(authInfo, request.headers.get('authorization'))
      if (!isHeldStream(request, parsed)) return route(request, parsed, authInfo, principal)
      // The place is taken before the request is served, so a burst cannot overshoot the cap.
      if ((held.get(principal) ?? 0) >= maxHeld) return tooManyStreams()
      held.set(principal, (held.get(principal) ?? 0) + 1)
      let response: Response
      try {
        response = await route(request, parsed, authInfo, principal)
      } catch (error) {
        release(principal)
        throw error
      }
      return hold(principal, request, response)
    },
    async close() {
      clearInterval(sweep)
      off()
      offUpdates()
      for (const id of [...sessions.keys()]) free(id)
      await modern.close()
    },
  }
}
