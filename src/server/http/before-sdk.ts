/**
 * What the HTTP handlers answer themselves before a 2026-07-28 request
 * reaches the SDK's `createMcpHandler`: a `tools/call` whose `Mcp-Param-*`
 * headers disagree with its arguments (param-headers.ts), and a
 * `subscriptions/listen` asking for task notifications (task-listen.ts).
 */
import { paramHeaderRejection } from './param-headers.ts'
import type { ServerState } from '../serving/server-state.ts'
import { taskListen } from '../tasks/task-listen.ts'

/** The methods answered here: only their bodies need reading (a 2026-07-28 request names its method in `Mcp-Method`). */
export const METHODS_BEFORE_SDK: ReadonlySet<string> = new Set(['tools/call', 'subscriptions/listen'])

/** The answer to a parsed 2026-07-28 `message`, or `undefined` to leave it to the SDK. */
export async function answerBeforeSdk(
  state: ServerState,
  message: unknown,
  request: Request,
  authInfo: unknown,
): Promise<Response | undefined> {
  return paramHeaderRejection(state, message, request.headers, authInfo) ?? (await taskListen(state, message, request, authInfo))
}
