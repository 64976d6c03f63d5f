/**
 * What a handler can ask of the client it serves: log entries
 * (`notifications/message`, filtered by the client's level), elicitation
 * (`elicitation/create`) and sampling (`sampling/createMessage`). In the
 * initialize era a question is a request to the client tied to the one
 * being handled; on a 2026-07-28 `tools/call` it is an `input_required`
 * round: the call answers with the question, the client retries with the
 * answer, and the handler runs again from the start, its earlier questions
 * answered from the sealed `requestState`.
 */
import type { ServerContext } from '@modelcontextprotocol/server'
import type { CallContext, ElicitAnswer, ElicitRequest, LogLevel, SampleAnswer, SampleRequest } from '../runtime/types.ts'

/** The MCP log levels, least severe first. */
export const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']

/** `context.log`: the SDK's filtered log, refusing a level MCP does not have. */
function logOf(ctx: ServerContext): NonNullable<CallContext['log']> {
  return (level, data, logger) => {
    if (!LOG_LEVELS.includes(level)) {
      return Promise.reject(new Error(`unknown log level ${JSON.stringify(level)}: use one of ${LOG_LEVELS.join(', ')}`))
    }
    // The SDK drops entries below the level the client set (logging/setLevel, or a 2026-07-28 request's own).
    return ctx.mcpReq.log(level, data, logger)
  }
}

/**
 * Sends `method` to the client as a request related to the one being
 * handled; the SDK refuses it on a 2026-07-28 request, whose answer to
 * "ask the client" is an `input_required` result, so say that.
 */
async function ask<T>(
  ctx: ServerContext,
  method: 'elicitation/create' | 'sampling/createMessage',
  params: Record<string, unknown>,
): Promise<T> {
  try {
    return (await ctx.mcpReq.send({ method, params }, { signal: ctx.mcpReq.signal })) as T
  } catch (error) {
    if (ctx.mcpReq.envelope !== undefined && !(error as { code?: unknown }).code) {
      throw new Error(`${method} cannot be sent on a 2026-07-28 request: return an input_required result instead`, { cause: error })
    }
    throw error
  }
}

/** Where the answers of a tool's earlier `input_required` rounds travel inside its sealed `requestState`. */
const ANSWERS = 'unplugin-proto-mcp/answers'

/** One embedded question of an `input_required` result. */
interface InputRequest {
  method: 'elicitation/create' | 'sampling/createMessage'
  params: Record<string, unknown>
}

/**
 * The questions of one 2026-07-28 tool call: the answers so far (earlier
 * rounds' from the requestState, this round's from `inputResponses`) and
 * the first question without one.
 */
export interface Rounds {
  readonly tool: string
  readonly answers: Record<string, unknown>
  asked: number
  pending?: { key: string; request: InputRequest }
}

/** Whether a verified requestState payload is one of ours (the answers of earlier rounds), not the handler's own. */
export function isAnswersState(payload: unknown): boolean {
  return payload !== null && typeof payload === 'object' && ANSWERS in payload
}

/** The rounds of a 2026-07-28 `tools/call` (a request with an envelope; `state`: its opened requestState), `undefined` in the initialize era. */
export function startRounds(ctx: ServerContext, tool: string, state: unknown): Rounds | undefined {
  if (ctx.mcpReq.envelope === undefined) return undefined
  const earlier = isAnswersState(state)
    ? (state as Record<string, { tool?: unknown; answers?: Record<string, unknown> }>)[ANSWERS]
    : undefined
  const answers = { ...(earlier?.tool === tool ? earlier.answers : {}), ...ctx.mcpReq.inputResponses }
  return { tool, answers, asked: 0 }
}

/** Why a question of a 2026-07-28 call does not resolve in this round (a handler that catches it gets this text). */
class InputPending extends Error {
  override name = 'InputPending'
}

/** Answers question number `rounds.asked` from the earlier rounds, or records it as the one to ask. */
function askInRound<T>(rounds: Rounds, request: InputRequest): Promise<T> {
  const key = `ask-${rounds.asked++}`
  if (key in rounds.answers) return Promise.resolve(rounds.answers[key] as T)
  rounds.pending ??= { key, request }
  return Promise.reject(new InputPending(`${request.method}: waiting for the client's answer (an input_required round)`))
}

/** The `input_required` result asking the pending question, with every answer so far sealed in its requestState. */
export async function inputRequiredOf(rounds: Rounds, seal: (payload: unknown) => Promise<string>): Promise<Record<string, unknown>> {
  const { key, request } = rounds.pending!
  return {
    resultType: 'input_required',
    inputRequests: { [key]: request },
    requestState: await seal({ [ANSWERS]: { tool: rounds.tool, answers: rounds.answers } }),
  }
}

/** The `log`, `elicit` and `sample` of a request's context; with `rounds`, questions are `input_required` rounds. */
export function clientRequests(ctx: ServerContext, rounds?: Rounds): Pick<CallContext, 'log' | 'elicit' | 'sample'> {
  const question = <T>(request: InputRequest): Promise<T> =>
    rounds ? askInRound<T>(rounds, request) : ask<T>(ctx, request.method, request.params)
  return {
    log: logOf(ctx),
    elicit: (request: ElicitRequest) => question<ElicitAnswer>({ method: 'elicitation/create', params: { mode: 'form', ...request } }),
    sample: (request: SampleRequest) => question<SampleAnswer>({ method: 'sampling/createMessage', params: { ...request } }),
  }
}
