/**
 * What the HTTP handlers answer themselves of the extensions the SDK does
 * not serve, before a 2026-07-28 request reaches its `createMcpHandler`: a
 * `tools/call` whose `Mcp-Param-*` headers disagree with its arguments
 * (SEP-2243, param-headers.ts), and a `subscriptions/listen` asking for
 * task notifications (the Tasks extension, task-listen.ts).
 */
import { paramHeaderRejection } from './param-headers.ts'
import type { ServerState } from '../serving/server-state.ts'
import { taskListen } from '../tasks/task-listen.ts'

/** The methods answered here: only their bodies need reading (a 2026-07-28 request names its method in `Mcp-Method`). */
export const EXTENSION_METHODS: ReadonlySet<string> = new Set(['tools/call', 'subscriptions/listen'])

/**
 * The answer to a parsed 2026-07-28 `message`, or `undefined` to leave it to
 * the SDK. Synchronous but for a `subscriptions/listen`: a `tools/call` costs
 * no promise here (each is dearer under an SDK's AsyncLocalStorage:
 * docs/guide/production.md, "OpenTelemetry traces and metrics").
 */
export function answerExtensions(
  state: ServerState,
  message: unknown,
  request: Request,
  authInfo: unknown,
): Response | undefined | Promise<Response | undefined> {
  const rejected = paramHeaderRejection(state, message, request.headers, authInfo)
  if (rejected !== undefined) return rejected
  if ((message as { method?: unknown } | null)?.method !== 'subscriptions/listen') return undefined
  return taskListen(state, message, request, authInfo)
}
