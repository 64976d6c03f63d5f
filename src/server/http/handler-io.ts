/**
 * What the stateless and the session handler of HTTP serving share: the
 * POST body read once (its text kept for exact 64-bit numbers), JSON-RPC
 * error responses, the SDK's `onerror`, and list changes told to a
 * 2026-07-28 handler.
 */
import { readRequestBody, type createMcpHandler } from '@modelcontextprotocol/server'
import { jsonRpcErrorBody } from '../../contract/json-rpc-error.ts'
import { rememberSource } from '../../runtime/number-source.ts'
import { BODY_NOT_JSON, BODY_TOO_LARGE, MAX_BODY_BYTES } from '../serving/limits.ts'
import type { ErrorSource, Log } from '../base/logging.ts'
import type { ListKind } from '../base/list-kind.ts'
import type { ServerState } from '../serving/server-state.ts'

/** A JSON-RPC error response with HTTP status `status`. */
export const jsonRpcError = (status: number, code: number, message: string): Response =>
  Response.json(jsonRpcErrorBody(code, message), { status })

/** The SDK's `onerror` of a handler: the error, told to `log`. */
export const report =
  (state: ServerState, log: Log, where: ErrorSource) =>
  (error: Error): void => {
    log.error(`${state.info.name}: ${error.message}`, error, where)
  }

/** Tells a 2026-07-28 handler's listen streams that `kind` changed. */
export function notifyModern(mcp: ReturnType<typeof createMcpHandler>, kind: ListKind): void {
  if (kind === 'tools') mcp.notify.toolsChanged()
  else if (kind === 'resources') mcp.notify.resourcesChanged()
  else mcp.notify.promptsChanged()
}

/**
 * The parsed JSON body of a POST, or a `413`/`400` response. The text is
 * kept with the request, for the exact reading of 64-bit numbers
 * (runtime/number-source.ts).
 */
export async function readBody(request: Request): Promise<{ parsed: unknown } | Response> {
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
