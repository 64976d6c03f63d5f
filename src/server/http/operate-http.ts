/**
 * What Node HTTP adds for production (docs/guide/production.md): the rate
 * limits of `tools/call`s checked before a handler sees the body (`429`
 * with `Retry-After`), and the `/healthz` and `/readyz` answers of
 * `serveHttp()`, which no guard or auth stands in front of.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Cluster } from '../cluster/cluster.ts'
import { healthAnswer, HEALTH_PATH, READY_PATH } from '../operate/health.ts'
import { audit, callerKey } from '../operate/operate.ts'
import type { Log } from '../base/logging.ts'
import { rateLimitAnswer, rateLimiterOf } from '../operate/rate-limit.ts'
import type { ServerState } from '../serving/server-state.ts'
import { readRequest, type ReadRequest } from './inbound.ts'
import { stepUpRejection } from './step-up.ts'

/**
 * With rate limits, reads a POST's body and takes each `tools/call` in it
 * from the caller's, the tool's and the global bucket: `false` once a call
 * over a limit was answered `429`, else the body as read (inbound.ts: the
 * request goes on with it, never read again), `undefined` when no body was
 * read (no limits, or no POST). A refused call has its audit line.
 */
export async function rateLimited(
  state: ServerState,
  log: Log,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<ReadRequest | undefined | false> {
  const limiter = rateLimiterOf(state)
  if (limiter === undefined || req.method !== 'POST') return undefined
  const started = performance.now()
  const read = await readRequest(req)
  const { message } = read
  const header = req.headers['mcp-session-id']
  const session = typeof header === 'string' ? header : undefined
  const authInfo = (req as { auth?: unknown }).auth
  // A call answered 403 for more scopes (step-up.ts, after this) takes nothing from the buckets: it runs nothing.
  if (stepUpRejection(state, message, authInfo) !== undefined) return read
  const answer = rateLimitAnswer(state, limiter, message, () => callerKey(authInfo, session, req.socket?.remoteAddress))
  if (answer === undefined) return read
  audit(log, { ...answer.refused, authInfo, sessionId: session }, 'rate_limited', started)
  res.writeHead(answer.status, answer.headers)
  res.end(answer.body)
  return false
}

/** Answers `GET`/`HEAD` of `/healthz` and `/readyz` (true), or leaves the request (false). */
export function servedHealth(state: ServerState, req: IncomingMessage, res: ServerResponse, cluster?: Cluster): boolean {
  if (req.method !== 'GET' && req.method !== 'HEAD') return false
  const url = req.url ?? '/'
  const q = url.indexOf('?')
  const path = q === -1 ? url : url.slice(0, q)
  if (path !== HEALTH_PATH && path !== READY_PATH) return false
  healthAnswer(path, state, cluster).then(
    (answer) => {
      res.writeHead(answer!.status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(answer!.body))
    },
    () => {
      res.writeHead(503, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ status: 'not ready' }))
    },
  )
  return true
}
