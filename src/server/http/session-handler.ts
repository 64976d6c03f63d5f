/**
 * The sessionful handler of `serveHttp()` and `nodeHandler()`:
 * 2026-07-28 requests through the SDK's `createMcpHandler`, initialize-era
 * ones (`isLegacyRequest`) to a map of sessions, each on its own
 * transport (session-transport.ts; one SDK instance per session, idle timeout, DELETE, resumable
 * SSE, touched in the fleet), the rest statelessly; held streams counted
 * per caller, and a session lent to the fast path of a call in it
 * (`sessionCall`, session-tool-call.ts).
 */
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  legacyStatelessFallback,
  type AuthInfo,
  type JSONRPCMessage,
  type Server as SdkServer,
} from '@modelcontextprotocol/server'
import { DEFAULT_MAX_EVENTS, DEFAULT_MAX_SESSION_EVENT_BYTES } from '../../contract/defaults.ts'
import type { ClusterMessage, SessionRecord } from '../cluster/cluster.ts'
import type { ClusterOptions } from '../cluster/cluster-options.ts'
import {
  FleetBus,
  fleetRouting,
  LIST_EVENTS,
  listKindOf,
  noteMethods,
  replayInitialize,
  resumeElsewhere,
  sessionEvents,
  type SessionEvents,
} from '../cluster/fleet.ts'
import { memoryCluster } from '../cluster/memory-cluster.ts'
import { onResourceUpdated } from '../primitives/subscriptions.ts'
import { DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS_PER_CALLER, DEFAULT_SESSION_IDLE_MS, MAX_BODY_BYTES } from '../serving/limits.ts'
import type { Log } from '../serving/logging.ts'
import { principalOf } from '../serving/principal.ts'
import { createSdkServer, notifyInstance, sdkServerFactory } from '../serving/sdk-server.ts'
import type { ListKind, ServerState } from '../serving/server-state.ts'
import { joinFleetTasks } from '../tasks/task-takeover.ts'
import { answerExtensions } from './extension-answers.ts'
import { jsonRpcError, notifyModern, readBody, report } from './handler-io.ts'
import type { FindSession } from './session-tool-call.ts'
import { SessionTransport } from './session-transport.ts'
import { stepUpRejection } from './step-up.ts'

/** Session options of HTTP serving. */
export interface SessionOptions extends ClusterOptions {
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
  /** Bytes of SSE events all sessions keep together; the oldest of any session go first (without a `cluster`). @default 67108864 (64 MiB) */
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
export interface SessionHandler {
  /** `parsedBody`: the body, already read and parsed (the Node adapter passes it on). */
  fetch(request: Request, options?: { authInfo?: unknown; parsedBody?: unknown }): Promise<Response>
  /** Initialize-era sessions open now. */
  readonly sessionCount: number
  /** A session of this instance for the fast path of a call in it (session-tool-call.ts). */
  readonly sessionCall: FindSession
  /** Resolves once the cluster listens (rejects when it cannot be reached). */
  ready(): Promise<void>
  /** Closes every session and the 2026-07-28 streams. */
  close(): Promise<void>
}

interface Session {
  readonly server: SdkServer
  readonly transport: SessionTransport
  readonly events: SessionEvents
  /** Who opened it (see principal.ts): a request of anyone else is answered as for an unknown session. */
  readonly principal: string
  lastSeen: number
  /** The session lives in the cluster until at least `touched + idleMs` (as a touch left it, by this instance's clock). */
  touched: number
  /** A touch due for requests served without one (in a fleet). */
  trailing?: ReturnType<typeof setTimeout>
  streams: number
  /** In a fleet: delivers a client's response another instance received for this one. */
  deliver?: (message: ClusterMessage) => void
}

const sessionNotFound = (): Response => jsonRpcError(404, -32001, 'Session not found: initialize a new session')

function tooManySessions(maxSessions: number): Response {
  const busy = jsonRpcError(503, -32000, `too many sessions: all ${maxSessions} are in use; retry later`)
  busy.headers.set('retry-after', '5')
  return busy
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

/** Creates the sessionful handler of `serveHttp()` and `nodeHandler()`; its messages go to `log`. */
export function createSessionHandler(state: ServerState, options: SessionOptions = {}, log: Log = state.log): SessionHandler {
  // requestState needs its key from serve time on.
  state.codec()
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS
  const onerror = report(state, log, 'http')
  // Without a cluster option: this server's own state in memory, shared with no one (fleet-only work is skipped).
  const fleet = options.cluster !== undefined
  const cluster = options.cluster ?? memoryCluster(options.maxEventBytes === undefined ? {} : { maxEventBytes: options.maxEventBytes })
  const bus = new FleetBus(cluster, onerror)
  const modern = createMcpHandler(sdkServerFactory(state, { log }), { legacy: 'reject', maxRequestBodySize: MAX_BODY_BYTES, onerror, bus })
  const stateless = legacyStatelessFallback(sdkServerFactory(state, { log }), onerror, { maxRequestBodySize: MAX_BODY_BYTES })
  const sessions = new Map<string, Session>()
  const rebuilding = new Map<string, Promise<Session | undefined>>()
  const live = new Set<SdkServer>()
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS
  const limits = {
    maxEvents: options.maxSessionEvents ?? DEFAULT_MAX_EVENTS,
    maxBytes: options.maxSessionEventBytes ?? DEFAULT_MAX_SESSION_EVENT_BYTES,
  }
  // Initializes still in flight count too: a burst must not overshoot the cap.
  let opening = 0
  // A change here goes out on the bus: to this instance's listen streams and sessions (below), and to every other instance.
  const off = state.onChange((kind) => notifyModern(modern, kind), log)
  const offBus = bus.subscribe((event) => {
    const kind = listKindOf(event)
    if (kind !== undefined) for (const server of live) notifyInstance(server, kind)
  })
  const offUpdates = onResourceUpdated(state, (uri) => modern.notify.resourceUpdated(uri), log)

  /** Frees this instance's copy of a session (in a fleet, others may serve it on). */
  const free = (id: string): void => {
    const session = sessions.get(id)
    if (!session) return
    clearTimeout(session.trailing)
    sessions.delete(id)
    live.delete(session.server)
    session.server.close().catch(onerror)
  }

  /** Ends a session everywhere: its record and events go, every instance frees its copy. */
  const endSession = (id: string): void => {
    free(id)
    cluster.endSession(id).catch(onerror)
  }

  const attached = cluster.attach({
    event: (event) => bus.deliver(event),
    ended: free,
    response: (sessionId, message) => sessions.get(sessionId)?.deliver?.(message),
    reconnected: () => {
      // Changes may have been missed: one of each kind, here only; and the sessions that ended meanwhile go.
      for (const event of Object.values(LIST_EVENTS)) bus.deliver(event)
      for (const id of sessions.keys()) {
        cluster.touchSession(id, idleMs).then((record) => record ?? free(id), onerror)
      }
    },
    error: onerror,
  })
  // Reported by ready() and by each request.
  attached.catch(() => {})
  // In a fleet, tasks live in the cluster, and this instance takes over those whose runner stopped.
  const leaveTasks = fleet ? joinFleetTasks(state, cluster, onerror) : undefined

  /** Makes room for one more session: frees the one idle the longest; `false` when every session is busy. */
  const makeRoom = (): boolean => {
    if (sessions.size + opening < maxSessions) return true
    let oldest: [string, Session] | undefined
    for (const entry of sessions)
      if (entry[1].streams === 0 && (oldest === undefined || entry[1].lastSeen < oldest[1].lastSeen)) oldest = entry
    if (oldest === undefined) return false
    endSession(oldest[0])
    return sessions.size + opening < maxSessions
  }

  const sweep = setInterval(
    () => {
      const now = Date.now()
      for (const [id, session] of sessions) {
        // An open stream keeps the session alive on every instance.
        if (session.streams > 0) cluster.touchSession(id, idleMs).catch(onerror)
        // Idle here: in a fleet, another instance may still serve it (its record expires by itself).
        else if (now - session.lastSeen >= idleMs) (fleet ? free : endSession)(id)
      }
    },
    Math.max(10, Math.min(idleMs / 4, 30_000)),
  )
  sweep.unref()

  /**
   * In a fleet, a session this instance confirmed within `touchEveryMs`
   * is served without asking the cluster: it cannot have expired (its
   * expiry is at least `idleMs` after that touch), and an end anywhere
   * frees this copy (`ended`, heard before the DELETE is answered). One
   * touch follows, setting the expiry from the last request.
   */
  const touchEveryMs = Math.min(1000, idleMs / 4)
  const touchLater = (id: string, session: Session): void => {
    if (session.trailing !== undefined) return
    session.trailing = setTimeout(
      () => {
        session.trailing = undefined
        const seen = session.lastSeen
        cluster.touchSession(id, idleMs - (Date.now() - seen)).then((record) => {
          if (record === undefined) free(id)
          else session.touched = Math.max(session.touched, seen)
        }, onerror)
      },
      Math.max(0, session.touched + touchEveryMs - Date.now()),
    )
    session.trailing.unref?.()
  }

  /**
   * `response` with its SSE body counted as an open stream of `session`
   * until it ends or the client goes away (else an abandoned session would
   * never be idle).
   */
  const tracked = (session: Session, request: Request, response: Response): Response => {
    const watched = watchStream(request, response, () => streamEnded(session))
    if (watched === undefined) return response
    session.streams++
    return watched
  }
  /** A stream of `session` ended: it is idle from now on, here and in the cluster. */
  const streamEnded = (session: Session): void => {
    session.streams--
    session.lastSeen = Date.now()
    const id = session.transport.sessionId
    if (id === undefined) return
    // The expiry slides from the stream's end (at most one touch a second in a fleet).
    if (fleet) touchLater(id, session)
    else cluster.touchSession(id, idleMs).catch(onerror)
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
      `${state.info.name}: a caller holding ${maxHeld} streams (maxStreamsPerCaller) asked for one more: answered 429`,
    )
    return jsonRpcError(429, -32000, `too many open streams: this caller already holds ${maxHeld} (maxStreamsPerCaller); close one first`)
  }

  /**
   * A session on a new transport: a new one (`record` undefined; the
   * transport's initialize records it) or one another instance opened.
   */
  const newSession = async (principal: string, initialize: ClusterMessage, record?: SessionRecord): Promise<Session> => {
    const id = record?.id ?? globalThis.crypto.randomUUID()
    // The store reads the transport's streams when it stores, after the transport exists.
    const events = sessionEvents(cluster.events(id, limits), () => transport, fleet, onerror)
    const transport = new SessionTransport({
      sessionId: id,
      eventStore: events,
      maxRequestBodySize: MAX_BODY_BYTES,
      onsessioninitialized: async () => {
        // Called while a request is handled, after `session` below is set.
        sessions.set(id, session)
        live.add(session.server)
        if (record === undefined) {
          const params = (initialize.params ?? {}) as { protocolVersion?: unknown }
          const protocolVersion = typeof params.protocolVersion === 'string' ? params.protocolVersion : ''
          // Not recorded, not opened: the initialize fails (the transport answers it with an error).
          await cluster.createSession({ id, initialize, protocolVersion, principal }, idleMs).catch((error: unknown) => {
            free(id)
            throw error
          })
        }
      },
      // Awaited by the transport: the DELETE is answered once every instance would answer 404.
      onsessionclosed: () => {
        free(id)
        return cluster.endSession(id).catch(onerror)
      },
    })
    if (fleet) transport.routing = fleetRouting(cluster, id, onerror)
    const server = createSdkServer(state, { log })
    const session: Session = { server, transport, events, principal, lastSeen: Date.now(), touched: Date.now(), streams: 0 }
    await server.connect(transport)
    if (fleet) session.deliver = (message) => transport.receive(message as unknown as JSONRPCMessage)
    return session
  }

  const openSession = async (request: Request, parsed: unknown, authInfo: AuthInfo | undefined, principal: string): Promise<Response> => {
    if (!makeRoom()) return tooManySessions(maxSessions)
    opening++
    let session: Session | undefined
    let response: Response
    try {
      session = await newSession(principal, parsed as ClusterMessage)
      response = await session.transport.handleRequest(request, { parsedBody: parsed, ...(authInfo ? { authInfo } : {}) })
    } finally {
      opening--
    }
    const { transport, server } = session
    // An initialize that failed opened no session: nothing may stay behind.
    if (transport.sessionId === undefined || !sessions.has(transport.sessionId)) {
      await server.close().catch(onerror)
      return response
    }
    return tracked(session, request, response)
  }

  /** This instance's copy of a session another instance opened (one rebuild at a time per session). */
  const rebuild = (record: SessionRecord, url: string): Promise<Session | undefined> => {
    let building = rebuilding.get(record.id)
    if (building) return building
    building = (async () => {
      if (!makeRoom()) return undefined
      opening++
      try {
        const session = await newSession(record.principal as string, record.initialize, record)
        session.events.muted = true
        const ok = await replayInitialize(session.transport, record, url).finally(() => (session.events.muted = false))
        if (ok && sessions.get(record.id) === session) return session
        free(record.id)
        await session.server.close().catch(onerror)
        return undefined
      } finally {
        opening--
        rebuilding.delete(record.id)
      }
    })()
    rebuilding.set(record.id, building)
    return building
  }

  /** The session `id` for this caller, touched (its expiry slides), rebuilt here if another instance opened it. */
  const sessionFor = async (id: string, principal: string, url: string): Promise<Session | Response> => {
    const local = sessions.get(id)
    // Another caller's session (a GET with Last-Event-ID, a DELETE, a POST) is answered as an unknown one.
    if (local !== undefined && local.principal !== principal) return sessionNotFound()
    if (local !== undefined && fleet && Date.now() - local.touched < touchEveryMs) {
      touchLater(id, local)
      return local
    }
    const at = Date.now()
    const record = await cluster.touchSession(id, idleMs)
    if (record === undefined) {
      if (local !== undefined) free(id)
      return sessionNotFound()
    }
    if (local !== undefined) {
      local.touched = at
      return local
    }
    if (JSON.stringify(record.principal) !== JSON.stringify(principal)) return sessionNotFound()
    return (await rebuild(record, url)) ?? tooManySessions(maxSessions)
  }

  /** Answers one request: 2026-07-28 to the modern handler, initialize-era ones to their session (rebuilt here if another instance opened it), a new one, or statelessly. */
  const route = async (request: Request, parsed: unknown, authInfo: AuthInfo | undefined, principal: string): Promise<Response> => {
    const legacy = await isLegacyRequest(request, parsed, { maxRequestBodySize: MAX_BODY_BYTES })
    const handled = { ...(parsed === undefined ? {} : { parsedBody: parsed }), ...(authInfo ? { authInfo } : {}) }
    if (!legacy) return (await answerExtensions(state, parsed, request, authInfo)) ?? modern.fetch(request, handled)
    const id = request.headers.get('mcp-session-id')
    if (id !== null) {
      await attached
      const session = await sessionFor(id, principal, request.url)
      if (session instanceof Response) return session
      session.lastSeen = Date.now()
      if (!fleet) {
        const last = request.method === 'GET' ? request.headers.get('last-event-id') : null
        // The SDK says "Invalid event ID format" for any event it cannot resume from; ours are too old or never were.
        if (last !== null && (await session.events.getStreamIdForEventId!(last)) === undefined) {
          return jsonRpcError(
            400,
            -32000,
            `cannot resume from event ${JSON.stringify(last)}: this session never sent it or no longer keeps it (maxSessionEvents, maxSessionEventBytes)`,
          )
        }
        return tracked(session, request, await session.transport.handleRequest(request, handled))
      }
      const open = (): boolean => sessions.get(id) === session
      const resumed =
        request.method === 'GET' ? await resumeElsewhere(request, session.transport, session.events, cluster, open) : undefined
      if (resumed instanceof Response) return tracked(session, request, resumed)
      if (request.method === 'POST') noteMethods(session.events, parsed)
      const response = await session.transport.handleRequest(request, handled)
      // A GET stream resumed here: what the instances announced while it was away may be lost, so once more.
      if (resumed === 'announce' && response.ok)
        for (const kind of Object.keys(LIST_EVENTS) as ListKind[]) notifyInstance(session.server, kind)
      return tracked(session, request, response)
    }
    // A GET stream and a DELETE belong to a session (the SDK's stateless answer, 405 with `Allow: POST`, would contradict the endpoint's `Allow`).
    if (request.method !== 'POST') {
      return jsonRpcError(
        400,
        -32000,
        `Bad Request: ${request.method} needs the Mcp-Session-Id header of a session (initialize one with a POST)`,
      )
    }
    if (isInitializeRequest(parsed)) {
      await attached
      return openSession(request, parsed, authInfo, principal)
    }
    // Initialize-era requests outside a session (a plain POST) are served statelessly.
    return stateless(request, handled)
  }

  return {
    get sessionCount() {
      return sessions.size
    },
    // What route() does for a session's POST before the transport: only a session open here (one to rebuild goes to the SDK path).
    async sessionCall(id, principal, url, message, authInfo) {
      await attached
      if (!sessions.has(id) || stepUpRejection(state, message, authInfo) !== undefined) return undefined
      const session = await sessionFor(id, principal, url)
      if (session instanceof Response) return undefined
      session.lastSeen = Date.now()
      if (fleet) noteMethods(session.events, message)
      const { server, transport } = session
      return {
        server,
        transport,
        opened: () => {
          session.streams++
          return () => streamEnded(session)
        },
      }
    },
    async fetch(request, options) {
      const authInfo = options?.authInfo as AuthInfo | undefined
      let parsed: unknown = options?.parsedBody
      if (request.method === 'POST' && parsed === undefined) {
        const body = await readBody(request)
        if (body instanceof Response) return body
        parsed = body.parsed
      }
      // A call of a tool the token lacks the scopes of: 403 for more (step-up.ts), on both eras.
      const stepUp = stepUpRejection(state, parsed, authInfo)
      if (stepUp !== undefined) return stepUp
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
    ready: () => attached.then(() => {}),
    async close() {
      clearInterval(sweep)
      leaveTasks?.()
      off()
      offBus()
      offUpdates()
      // Without a fleet, this server's sessions end with it; in one, the other instances serve them on.
      for (const id of [...sessions.keys()]) (fleet ? free : endSession)(id)
      await modern.close()
      await (
        await attached.catch(() => undefined)
      )?.()
    },
  }
}
