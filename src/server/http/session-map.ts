/**
 * The initialize-era sessions of one HTTP handler (session-handler.ts): a
 * map of sessions, each an SDK instance on its own transport
 * (session-transport.ts), opened by an `initialize`, rebuilt here when
 * another instance of the fleet opened it, touched as requests come (its
 * expiry slides in the cluster), freed when idle, ended by a DELETE; the
 * oldest idle one makes room for a new one past `maxSessions`, and open
 * streams keep a session from going idle.
 */
import type { AuthInfo, JSONRPCMessage, Server as SdkServer } from '@modelcontextprotocol/server'
import type { Cluster, ClusterMessage, SessionRecord } from '../cluster/cluster.ts'
import {
  fleetRouting,
  LIST_EVENTS,
  noteMethods,
  replayInitialize,
  resumeElsewhere,
  sessionEvents,
  type FleetBus,
  type SessionEvents,
} from '../cluster/fleet.ts'
import { MAX_BODY_BYTES } from '../serving/limits.ts'
import type { Log } from '../base/logging.ts'
import { createSdkServer, notifyInstance } from '../serving/sdk-server.ts'
import type { ListKind } from '../base/list-kind.ts'
import type { ServerState } from '../serving/server-state.ts'
import { jsonRpcError } from './handler-io.ts'
import { SessionTransport } from './session-transport.ts'

/** What a session map is made with: the handler's settings, resolved. */
export interface SessionMapSettings {
  readonly state: ServerState
  readonly log: Log
  readonly onerror: (error: Error) => void
  /** The cluster sessions are recorded in (a private in-memory one without a fleet). */
  readonly cluster: Cluster
  /** Whether other instances share the cluster (fleet-only work is skipped otherwise). */
  readonly fleet: boolean
  /** Where other instances' changes arrive. */
  readonly bus: FleetBus
  readonly idleMs: number
  readonly maxSessions: number
  /** Events each session keeps for resumption. */
  readonly limits: { maxEvents: number; maxBytes: number }
}

/** The sessions of one handler. */
export interface SessionMap {
  readonly size: number
  /** The SDK instances of the sessions open here (list changes go to them). */
  readonly live: ReadonlySet<SdkServer>
  /** Resolves once the cluster listens (rejects when it cannot be reached). */
  readonly attached: Promise<unknown>
  has(id: string): boolean
  /** The session `id` for this caller, touched (its expiry slides), rebuilt here if another instance opened it. */
  sessionFor(id: string, principal: string, url: string): Promise<Session | Response>
  /** Answers an `initialize`: a new session, or the failure that opened none. */
  open(request: Request, parsed: unknown, authInfo: AuthInfo | undefined, principal: string): Promise<Response>
  /** Answers a GET, POST or DELETE of `session` (its streams counted, resumed from another instance in a fleet). */
  serve(session: Session, request: Request, parsed: unknown, handled: { parsedBody?: unknown; authInfo?: AuthInfo }): Promise<Response>
  /** Counts a fast-path stream of `session` as open; returns its end. */
  opened(session: Session): () => void
  /** Frees every session here (and ends them, without a fleet). */
  endAll(): void
  /** Leaves the cluster. */
  detach(): Promise<void>
}

export interface Session {
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

export const sessionNotFound = (): Response => jsonRpcError(404, -32001, 'Session not found: initialize a new session')

export function tooManySessions(maxSessions: number): Response {
  const busy = jsonRpcError(503, -32000, `too many sessions: all ${maxSessions} are in use; retry later`)
  busy.headers.set('retry-after', '5')
  return busy
}

/**
 * `response` with `end` called once its SSE body ends or the client goes
 * away (`request.signal`: the Node adapter only notices a dead socket at
 * the next chunk, which an idle stream never writes); `undefined` when it
 * is not an SSE response.
 */
export function watchStream(request: Request, response: Response, end: () => void): Response | undefined {
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

/** Creates the session map of a handler. */
export function createSessionMap(settings: SessionMapSettings): SessionMap {
  const { cluster, fleet, onerror, idleMs, maxSessions } = settings
  const sessions = new Map<string, Session>()
  const rebuilding = new Map<string, Promise<Session | undefined>>()
  const live = new Set<SdkServer>()
  // Initializes still in flight count too: a burst must not overshoot the cap.
  let opening = 0

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

  const attached = attachSessions(settings, sessions, free)
  // Reported by ready() and by each request.
  attached.catch(() => {})

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

  /**
   * A session on a new transport: a new one (`record` undefined; the
   * transport's initialize records it) or one another instance opened.
   */
  const newSession = (principal: string, initialize: ClusterMessage, record?: SessionRecord): Promise<Session> =>
    openTransport({ settings, sessions, live, free }, principal, initialize, record)

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

  return {
    get size() {
      return sessions.size
    },
    live,
    attached,
    has: (id) => sessions.has(id),
    sessionFor,
    open: openSession,
    serve: (session, request, parsed, handled) => serveSession({ settings, sessions, tracked }, session, request, parsed, handled),
    opened(session) {
      session.streams++
      return () => streamEnded(session)
    },
    endAll() {
      clearInterval(sweep)
      // Without a fleet, this server's sessions end with it; in one, the other instances serve them on.
      for (const id of [...sessions.keys()]) (fleet ? free : endSession)(id)
    },
    async detach() {
      await (
        await attached.catch(() => undefined)
      )?.()
    },
  }
}

/** What a new session's transport needs of its map. */
interface MapLink {
  readonly settings: SessionMapSettings
  readonly sessions: Map<string, Session>
  readonly live: Set<SdkServer>
  free(id: string): void
}

/**
 * A session on a new transport: a new one (`record` undefined; the
 * transport's initialize records it) or one another instance opened.
 */
async function openTransport(link: MapLink, principal: string, initialize: ClusterMessage, record?: SessionRecord): Promise<Session> {
  const { settings, sessions, live, free } = link
  const { state, log, cluster, fleet, onerror, idleMs, limits } = settings
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

/** Attaches a handler's sessions to the cluster: other instances' changes, ends and routed responses reach them. */
function attachSessions(
  settings: SessionMapSettings,
  sessions: Map<string, Session>,
  free: (id: string) => void,
): Promise<() => Promise<void>> {
  const { cluster, bus, idleMs, onerror } = settings
  return cluster.attach({
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
}

/** A request of a session: resumed from the store when its stream ran elsewhere (a fleet), else its transport answers. */
async function serveSession(
  link: {
    settings: SessionMapSettings
    sessions: Map<string, Session>
    tracked: (session: Session, request: Request, response: Response) => Response
  },
  session: Session,
  request: Request,
  parsed: unknown,
  handled: { parsedBody?: unknown; authInfo?: AuthInfo },
): Promise<Response> {
  const {
    settings: { fleet, cluster },
    sessions,
    tracked,
  } = link
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
  const id = session.transport.sessionId
  const open = (): boolean => id !== undefined && sessions.get(id) === session
  const resumed = request.method === 'GET' ? await resumeElsewhere(request, session.transport, session.events, cluster, open) : undefined
  if (resumed instanceof Response) return tracked(session, request, resumed)
  if (request.method === 'POST') noteMethods(session.events, parsed)
  const response = await session.transport.handleRequest(request, handled)
  // A GET stream resumed here: what the instances announced while it was away may be lost, so once more.
  if (resumed === 'announce' && response.ok) for (const kind of Object.keys(LIST_EVENTS) as ListKind[]) notifyInstance(session.server, kind)
  return tracked(session, request, response)
}
