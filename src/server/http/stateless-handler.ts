/**
 * The stateless handler of `server.fetch()` and `fetchHandler()`: every
 * request through the SDK's `createMcpHandler`, 2026-07-28 and
 * initialize-era alike, with no sessions; in a fleet, its bus and tasks
 * shared with the other instances (`fetchLinks`).
 */
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server'
import type { ClusterOptions } from '../cluster/cluster-options.ts'
import { linkFetch, type FetchLinks } from '../cluster/fleet.ts'
import { memoryCluster } from '../cluster/memory-cluster.ts'
import { onResourceUpdated } from '../primitives/subscriptions.ts'
import { audit, callerKey } from '../operate/operate.ts'
import { rateLimitAnswer, rateLimiterOf } from '../operate/rate-limit.ts'
import { MAX_BODY_BYTES } from '../serving/limits.ts'
import { Log, type LoggingOptions } from '../base/logging.ts'
import { sdkServerFactory } from '../serving/sdk-server.ts'
import type { ServerState } from '../serving/server-state.ts'
import { joinFleetTasks } from '../serving/task-takeover.ts'
import { answerExtensions, EXTENSION_METHODS } from './extension-answers.ts'
import { notifyModern, readBody, report } from './handler-io.ts'
import { stepUpRejection } from './step-up.ts'

/** A web-standard handler: one request in, one response out. */
export type FetchHandler = (request: Request, options?: { authInfo?: unknown }) => Promise<Response>

/**
 * The stateless handler of `server.fetch()`: both eras, no sessions; its
 * listen streams hear list changes. Its messages go to the server's log;
 * with `links` (`fetchHandler()`), to its own, its bus shared with a cluster.
 */
export function createFetchHandler(state: ServerState, links?: FetchLinks): FetchHandler {
  state.codec()
  const onerror = links?.onerror ?? report(state, state.log, 'fetch')
  const mcp = createMcpHandler(sdkServerFactory(state, links ? { log: links.log } : {}), {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror,
    ...(links ? { bus: links.bus } : {}),
  })
  const offs = [
    state.onChange((kind) => notifyModern(mcp, kind)),
    onResourceUpdated(state, (uri) => mcp.notify.resourceUpdated(uri)),
    () => mcp.close(),
  ]
  links?.closers.push(...offs)
  return async (request, options) => {
    const authInfo = options?.authInfo === undefined ? {} : { authInfo: options.authInfo as AuthInfo }
    if (request.method !== 'POST') return mcp.fetch(request, authInfo)
    // Read here as for serveHttp: one wording for a body too large or not JSON, and the text kept for exact 64-bit numbers.
    const body = await readBody(request)
    if (body instanceof Response) return body
    // A call answered 403 for more scopes takes nothing from the rate limits' buckets: it runs nothing.
    const stepUp = stepUpRejection(state, body.parsed, options?.authInfo)
    if (stepUp !== undefined) return stepUp
    const limited = rateLimitedFetch(state, links?.log ?? state.log, body.parsed, request, options?.authInfo)
    if (limited !== undefined) return limited
    // A 2026-07-28 request names its method in Mcp-Method: those answered before the SDK are answered here.
    if (EXTENSION_METHODS.has(request.headers.get('mcp-method') ?? '')) {
      const answered = await answerExtensions(state, body.parsed, request, options?.authInfo)
      if (answered) return answered
    }
    return mcp.fetch(request, { ...authInfo, parsedBody: body.parsed })
  }
}

/**
 * The `429` of a request whose `tools/call` is over a rate limit (as
 * serveHttp() answers it, before the SDK sees the body), else `undefined`.
 * The caller is the verified principal, else the session the request names;
 * a web `Request` carries no client address, so anonymous callers share one
 * bucket (docs/guide/production.md).
 */
function rateLimitedFetch(state: ServerState, log: Log, message: unknown, request: Request, authInfo: unknown): Response | undefined {
  const limiter = rateLimiterOf(state)
  if (limiter === undefined) return undefined
  const started = performance.now()
  const session = request.headers.get('mcp-session-id') ?? undefined
  const answer = rateLimitAnswer(state, limiter, message, () => callerKey(authInfo, session, undefined))
  if (answer === undefined) return undefined
  audit(log, { ...answer.refused, authInfo, sessionId: session }, 'rate_limited', started)
  return new Response(answer.body, { status: answer.status, headers: answer.headers })
}

/** The links of a `fetchHandler()` to its cluster (`fetch()` has none: no one else hears it). */
export function fetchLinks(state: ServerState, options: ClusterOptions & LoggingOptions): FetchLinks {
  const log = new Log(options, state.log)
  const onerror = report(state, log, 'fetch')
  const links = linkFetch(options.cluster ?? memoryCluster(), log, onerror)
  if (options.cluster !== undefined) links.closers.push(joinFleetTasks(state, options.cluster, onerror))
  return links
}
