/**
 * A POST the server failed to handle after reading it (its store
 * unreachable: a database restarting, docs/cluster.md): the SDK's
 * transport would answer such a failure as HTTP 400 `-32700 Parse error`
 * with the error's text as `data`, which names the database's address and
 * the driver's `ECONNREFUSED`. The session transport (session-transport.ts)
 * answers a `503` with `Retry-After` and a JSON-RPC internal error in plain
 * words; the cause goes to the server's log (the transport's `onerror`).
 */
import type { ServerResponse } from 'node:http'
import { jsonRpcErrorBody } from '../../contract/json-rpc-error.ts'

/** The text of a request the server could not handle for a failure of its own. */
export const POST_FAILED =
  'Internal error: the server could not handle the request (its session or event store is unavailable); retry shortly'

/** Seconds a client is asked to wait before it retries. */
const RETRY_AFTER_SECONDS = '1'

/** The answer to a POST that failed after it was read. */
export function postFailed(): Response {
  return Response.json(jsonRpcErrorBody(-32603, POST_FAILED), { status: 503, headers: { 'retry-after': RETRY_AFTER_SECONDS } })
}

/** The same answer, written on a Node response (the session fast path). */
export function writePostFailed(res: ServerResponse): void {
  res.writeHead(503, { 'content-type': 'application/json', 'retry-after': RETRY_AFTER_SECONDS })
  res.end(JSON.stringify(jsonRpcErrorBody(-32603, POST_FAILED)))
}
