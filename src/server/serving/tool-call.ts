/**
 * One `tools/call`, whichever way it came (docs/internals.md, "One call
 * path"): the SDK's handler (sdk-server.ts: stdio, sessions, `fetch()`,
 * the SDK path of `serveHttp()`) and the 2026-07-28 fast path
 * (http/modern-tool-call.ts) take the same steps here. The tool the call
 * names ({@link callTarget}); the handler run in the request's
 * `input_required` rounds ({@link inRounds}); the result it is answered
 * with ({@link settled}). What differs between the paths is passed in: the
 * handler's context (how it asks the client, reports progress, logs) and
 * the era's projection of the result. A call in process (`Server.call`, a
 * resource template's List or Get) takes the first step and gets the
 * handler's own result ({@link dispatchCall}).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { adoptSource } from '../../runtime/number-source.ts'
import type { CallContext } from '../../runtime/types.ts'
import type { Log } from '../base/logging.ts'
import { inputRequiredOf, type Rounds } from '../primitives/requests-to-client.ts'
import { answered } from '../tools/sendable.ts'
import type { CallResult, InputRequiredResult, ToolEntry } from '../tools/tool-set.ts'
import type { ServerState } from './server-state.ts'

/** The JSON-RPC `-32602` error of a tool this caller does not have (unknown or hidden: the same error). */
export function unknownToolError(name: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`)
}

/** The tool a `tools/call` runs, and its arguments. */
export interface CallTarget {
  readonly name: string
  readonly args: unknown
  readonly entry: ToolEntry
}

/**
 * The tool `asked` runs with `given`: a `call_tool` of search mode is the
 * call of the tool it names (docs/guide/big-apis.md), its arguments keeping
 * the text they came in; `{ error }`, the result a `call_tool` that names
 * no tool is answered with. Throws the `-32602` of a tool this caller does
 * not have (unknown, or hidden from it: logged).
 */
export function callTarget(
  state: ServerState,
  asked: string,
  given: unknown,
  authInfo: unknown,
  log: Log,
): CallTarget | { error: CallResult } {
  const target = state.unwrap(asked, given, authInfo)
  if ('error' in target) return target
  const { name, args } = target
  if (args !== given) adoptSource(args, given)
  const entry = state.lookupTool(name, authInfo, log)
  if (entry === undefined) throw unknownToolError(name)
  return { name, args, entry }
}

/**
 * Runs `run` (a handler that may ask questions) in `rounds`, a 2026-07-28
 * request's (`undefined`: its questions reach the client another way): a
 * question without an answer makes the result an `input_required` one,
 * its answers so far sealed by `seal`, whatever the handler made of its
 * rejection (a throw too).
 */
export async function inRounds<R>(
  rounds: Rounds | undefined,
  seal: (payload: unknown) => Promise<string>,
  run: () => Promise<R>,
): Promise<R | Record<string, unknown>> {
  let result: R
  try {
    result = await run()
  } catch (error) {
    if (!rounds?.pending.size) throw error
  }
  if (rounds?.pending.size) return inputRequiredOf(rounds, seal)
  return result!
}

/** Whether a call's result is an `input_required` one (the client answers, then calls again). */
export function isInputRequired(result: unknown): result is InputRequiredResult {
  return (result as { resultType?: unknown } | null)?.resultType === 'input_required'
}

/**
 * The result a run of `target` is answered with, before its era's
 * projection: an `input_required` one as it is; any other as `answered`
 * makes it (one no transport could write becomes a tool error, a failed
 * call is logged).
 */
export function settled(called: unknown, target: Pick<CallTarget, 'name' | 'entry'>, server: string, log: Log): CallResult {
  if (isInputRequired(called)) return called
  return answered(called as CallResult, target.entry, target.name, { server, log })
}

/**
 * Calls a tool in process on the snapshot current when the call starts
 * (`Server.call`, a resource template's calls): its handler's result as it
 * is; rejects with `-32602` for an unknown or hidden tool.
 */
export function dispatchCall(state: ServerState, name: string, args: unknown, context: CallContext): Promise<CallResult> {
  let target: CallTarget | { error: CallResult }
  try {
    target = callTarget(state, name, args, context.authInfo, state.log)
  } catch (error) {
    return Promise.reject(error as Error)
  }
  if ('error' in target) return Promise.resolve(target.error)
  return target.entry.call(target.args, target.name === name ? context : { ...context, tool: target.name })
}
