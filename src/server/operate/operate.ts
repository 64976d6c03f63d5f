/**
 * The one hook a transport puts around each MCP request
 * (docs/guide/production.md): its span and duration (telemetry.ts) and,
 * for a `tools/call`, the rate limits (when the transport did not check
 * them before: stdio) and the audit line.
 */
import { verifiedPrincipal } from '../../runtime/backend.ts'
import { otelRegistered } from '../../runtime/otel.ts'
import type { Log } from '../base/logging.ts'
import { auditedTool, RATE_LIMITED, rateLimitError, rateLimiterOf } from './rate-limit.ts'
import { calledToolOf } from './called-tool.ts'
import { traceRequest, type RequestFacts } from './telemetry.ts'

export type { RequestFacts } from './telemetry.ts'

/** A request as {@link serveRequest} takes it. */
export interface ServedRequest extends RequestFacts {
  /** The request's verified auth info (the principal of the audit line and of the per-caller limit). */
  readonly authInfo?: unknown
  /** Whether the rate limits are checked here (stdio); HTTP checks them before the body reaches a handler. */
  readonly checkRate?: boolean
}

/** The key of the per-caller limit: the verified principal, else the session, else the client's address. */
export function callerKey(authInfo: unknown, sessionId: string | undefined, address: string | undefined): string {
  const principal = verifiedPrincipal({ tool: '', authInfo })
  if (principal !== undefined) return `principal ${principal.issuer} ${principal.subject}`
  if (sessionId !== undefined) return `session ${sessionId}`
  return `address ${address ?? 'local'}`
}

/**
 * Runs one MCP request (`method`) under its span, its rate limits and its
 * audit line. `factsOf` says what the transport knows of it; it is asked
 * only when something needs it, so with no SDK registered, no limits and
 * no audit a request is `run()` itself, nothing built for it.
 */
export function serveRequest<R>(state: object, log: Log, method: string, factsOf: () => ServedRequest, run: () => Promise<R>): Promise<R> {
  const call = method === 'tools/call'
  const limits = call ? rateLimiterOf(state) : undefined
  const auditing = call ? log.auditing : undefined
  if (limits === undefined && auditing === undefined) return otelRegistered() ? traceRequest(state, factsOf(), run) : run()
  const request = factsOf()
  const limiter = request.checkRate ? limits : undefined
  if (limiter === undefined && auditing === undefined) return traceRequest(state, request, run)
  // The tool the call runs (in search mode, the one a call_tool names): its per-tool bucket, its audit line.
  const tool = calledToolOf(state, request.params)
  const limited = (): Promise<R> => {
    const refusal = limiter?.take(callerKey(request.authInfo, request.sessionId, request.clientAddress), tool)
    return refusal === undefined ? run() : Promise.reject(rateLimitError(refusal))
  }
  if (auditing === undefined) return traceRequest(state, request, limited)
  const started = performance.now()
  const record = (outcome: string, result: unknown): void =>
    audit(
      log,
      {
        ...auditedTool(tool, request.params),
        authInfo: request.authInfo,
        sessionId: request.sessionId,
        arguments: request.params?.arguments,
      },
      outcome,
      started,
      result,
    )
  return traceRequest(state, request, limited).then(
    (result) => {
      const r = result as { isError?: unknown; resultType?: unknown }
      record(r?.isError === true ? 'tool_error' : r?.resultType === 'task' ? 'task' : 'ok', result)
      return result
    },
    (error: unknown) => {
      const code = (error as { code?: unknown })?.code
      record(code === RATE_LIMITED ? 'rate_limited' : typeof code === 'number' ? `error ${code}` : 'error', undefined)
      throw error
    },
  )
}

/** A tool call as its audit line names it. */
export interface AuditedCall {
  /** The tool the call runs. */
  readonly tool: string
  /** The tool it was called through, when another (search mode's `call_tool`). */
  readonly via?: string
  readonly authInfo: unknown
  readonly sessionId: string | undefined
  readonly arguments: unknown
}

/** Writes the audit line of `call` (when `log` audits): its `outcome`, the time since `started`, the bytes of `result`. */
export function audit(log: Log, call: AuditedCall, outcome: string, started: number, result?: unknown): void {
  const auditing = log.auditing
  if (auditing === undefined) return
  const principal = verifiedPrincipal({ tool: call.tool, authInfo: call.authInfo })
  const args = call.arguments ?? {}
  log.audit({
    time: new Date().toISOString(),
    principal: principal === undefined ? null : { issuer: principal.issuer, subject: principal.subject, clientId: principal.clientId },
    ...(call.sessionId === undefined ? {} : { session: call.sessionId }),
    tool: call.tool,
    ...(call.via === undefined ? {} : { via: call.via }),
    outcome,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    bytesIn: byteLength(args),
    bytesOut: result === undefined ? 0 : byteLength(result),
    ...(auditing.arguments ? { arguments: args } : {}),
  })
}

/** The bytes of `value` as JSON (UTF-8). */
function byteLength(value: unknown): number {
  try {
    return new TextEncoder().encode(JSON.stringify(value) ?? '').length
  } catch {
    return 0
  }
}
