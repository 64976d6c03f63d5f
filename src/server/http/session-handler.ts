/**
 * The sessionful handler of `serveHttp()` and `nodeHandler()`:
 * 2026-07-28 requests through the SDK's `createMcpHandler`, initialize-era
 * ones (the SDK's classification, made once: inbound.ts) to a map of sessions, each on its own
 * transport (session-transport.ts; one SDK instance per session, idle timeout, DELETE, resumable
 * SSE, touched in the fleet), the rest statelessly; held streams counted
 * per caller, and a session lent to the fast path of a call in it
 * (`sessionCall`, session-tool-call.ts).
 */
import { createMcpHandler, isInitializeRequest, legacyStatelessFallback, type AuthInfo } from '@modelcontextprotocol/server'
import { DEFAULT_MAX_EVENTS, DEFAULT_MAX_SESSION_EVENT_BYTES } from '../../contract/defaults.ts'
import type { ClusterOptions } from '../cluster/cluster-options.ts'
import { FleetBus, listKindOf, noteMethods } from '../cluster/fleet.ts'
import { memoryCluster } from '../cluster/memory-cluster.ts'
import { onResourceUpdated } from '../primitives/subscriptions.ts'
import { DEFAULT_MAX_SESSIONS, DEFAULT_MAX_STREAMS_PER_CALLER, DEFAULT_SESSION_IDLE_MS, MAX_BODY_BYTES } from '../serving/limits.ts'
import type { Log } from '../base/logging.ts'
import { principalOf } from '../base/principal.ts'
import { notifyInstance, sdkServerFactory } from '../serving/sdk-server.ts'
import type { ServerState } from '../serving/server-state.ts'
import { joinFleetTasks } from '../serving/task-takeover.ts'
import { answerExtensions } from './extension-answers.ts'
import { jsonRpcError, notifyModern, readBody, report } from './handler-io.ts'
import { eraOf, type Era } from './inbound.ts'
import { createSessionMap, watchStream } from './session-map.ts'
import type { FindSession } from './session-tool-call.ts'
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
   * gets `429`. A caller is a principal (docs/serving.md, "Sessions and their binding"): callers
   * without auth are one caller.
   * @default 100
   */
  maxStreamsPerCaller?: number
}

/** A fetch-shaped handler with its sessions. */
export interface SessionHandler {
  /**
   * `parsedBody`: the body, already read and parsed (the Node adapter passes it on); `era`: its
   * classification, when the edge made it (inbound.ts; else made here, once).
   */
  fetch(request: Request, options?: { authInfo?: unknown; parsedBody?: unknown; era?: Era }): Promise<Response>
  /** Initialize-era sessions open now. */
  readonly sessionCount: number
  /** A session of this instance for the fast path of a call in it (session-tool-call.ts). */
  readonly sessionCall: FindSession
  /** Resolves once the cluster listens (rejects when it cannot be reached). */
  ready(): Promise<void>
  /** Closes every session and the 2026-07-28 streams. */
  close(): Promise<void>
}

/** Whether a request asks for a stream held open for notifications: a GET, or a 2026-07-28 `subscriptions/listen`. */
const isHeldStream = (request: Request, parsed: unknown): boolean =>
  request.method === 'GET' || (parsed as { method?: unknown } | null)?.method === 'subscriptions/listen'

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
  const map = createSessionMap({
    state,
    log,
    onerror,
    cluster,
    fleet,
    bus,
    idleMs,
    maxSessions: options.maxSessions ?? DEFAULT_MAX_SESSIONS,
    limits: {
      maxEvents: options.maxSessionEvents ?? DEFAULT_MAX_EVENTS,
      maxBytes: options.maxSessionEventBytes ?? DEFAULT_MAX_SESSION_EVENT_BYTES,
    },
  })
  const { attached } = map
  // In a fleet, tasks live in the cluster, and this instance takes over those whose runner stopped.
  const leaveTasks = fleet ? joinFleetTasks(state, cluster, onerror) : undefined
  // A change here goes out on the bus: to this instance's listen streams and sessions (below), and to every other instance.
  const off = state.onChange((kind) => notifyModern(modern, kind), log)
  const offBus = bus.subscribe((event) => {
    const kind = listKindOf(event)
    if (kind !== undefined) for (const server of map.live) notifyInstance(server, kind)
  })
  const offUpdates = onResourceUpdated(state, (uri) => modern.notify.resourceUpdated(uri), log)

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

  /** Answers one request: 2026-07-28 to the modern handler, initialize-era ones to their session (rebuilt here if another instance opened it), a new one, or statelessly. */
  const route = async (
    request: Request,
    parsed: unknown,
    era: Era,
    authInfo: AuthInfo | undefined,
    principal: string,
  ): Promise<Response> => {
    const legacy = era.kind === 'legacy'
    const handled = { ...(parsed === undefined ? {} : { parsedBody: parsed }), ...(authInfo ? { authInfo } : {}) }
    if (!legacy) {
      const answered = answerExtensions(state, parsed, request, authInfo)
      if (answered === undefined) return modern.fetch(request, handled)
      return (await answered) ?? modern.fetch(request, handled)
    }
    const id = request.headers.get('mcp-session-id')
    if (id !== null) {
      await attached
      const session = await map.sessionFor(id, principal, request.url)
      return session instanceof Response ? session : map.serve(session, request, parsed, handled)
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
      return map.open(request, parsed, authInfo, principal)
    }
    // Initialize-era requests outside a session (a plain POST) are served statelessly.
    return stateless(request, handled)
  }

  return {
    get sessionCount() {
      return map.size
    },
    // What route() does for a session's POST before the transport: only a session open here (one to rebuild goes to the SDK path).
    async sessionCall(id, principal, url, message, authInfo) {
      await attached
      if (!map.has(id) || stepUpRejection(state, message, authInfo) !== undefined) return undefined
      const session = await map.sessionFor(id, principal, url)
      if (session instanceof Response) return undefined
      session.lastSeen = Date.now()
      if (fleet) noteMethods(session.events, message)
      const { server, transport } = session
      return {
        server,
        transport,
        opened: () => map.opened(session),
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
      // The request's era, decided once: by the edge that read its body, else here (a POST's body is JSON by now).
      const era = options?.era ?? eraOf(request.method, (name) => request.headers.get(name), parsed)
      if (!isHeldStream(request, parsed)) return route(request, parsed, era, authInfo, principal)
      // The place is taken before the request is served, so a burst cannot overshoot the cap.
      if ((held.get(principal) ?? 0) >= maxHeld) return tooManyStreams()
      held.set(principal, (held.get(principal) ?? 0) + 1)
      let response: Response
      try {
        response = await route(request, parsed, era, authInfo, principal)
      } catch (error) {
        release(principal)
        throw error
      }
      return hold(principal, request, response)
    },
    ready: () => attached.then(() => {}),
    async close() {
      leaveTasks?.()
      off()
      offBus()
      offUpdates()
      map.endAll()
      await modern.close()
      await map.detach()
    },
  }
}
