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
import type { CallContext, ElicitAnswer, ElicitRequest, LogLevel, RootsAnswer, SampleAnswer, SampleRequest } from '../../runtime/types.ts'
import { isRecord } from '../../contract/is-record.ts'

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
 * "ask the client" is an `input_required` result, so say that. The
 * client's own error answer is the question's failure, not a JSON-RPC
 * error of the call: it is rethrown as a plain error with its text.
 */
async function send<T>(ctx: ServerContext, method: QuestionMethod, params: Record<string, unknown>): Promise<T> {
  try {
    return (await ctx.mcpReq.send({ method, params }, { signal: ctx.mcpReq.signal })) as T
  } catch (error) {
    if (ctx.mcpReq.envelope !== undefined && !(error as { code?: unknown }).code) {
      throw new Error(`${method} cannot be sent on a 2026-07-28 request: return an input_required result instead`, { cause: error })
    }
    throw new Error((error as Error).message, { cause: error })
  }
}

/** Where the answers of earlier `input_required` rounds travel inside the sealed `requestState`. */
const ANSWERS = 'unplugin-proto-mcp/answers'

/** The methods a question may use, each with the client capability it needs. */
export type QuestionMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list'

/** One embedded question of an `input_required` result. */
export interface InputRequest {
  method: QuestionMethod
  params: Record<string, unknown>
}

/**
 * Whether `answer` has the shape of a result of `method` (the client's
 * answers are untrusted input): an elicitation result has an `action`, a
 * sampling result a `role` and `content`, a roots result a `roots` array.
 * A malformed answer counts as none, so the question is asked again.
 */
export function isAnswerOf(method: QuestionMethod, answer: unknown): boolean {
  if (!isRecord(answer)) return false
  const a = answer as Record<string, unknown>
  if (method === 'elicitation/create') {
    return (a.action === 'accept' || a.action === 'decline' || a.action === 'cancel') && (a.content === undefined || isRecord(a.content))
  }
  if (method === 'sampling/createMessage') return typeof a.role === 'string' && a.content !== null && typeof a.content === 'object'
  return Array.isArray(a.roots)
}

/**
 * The questions of one 2026-07-28 request (a `tools/call`, `prompts/get` or
 * `resources/read`): the answers so far (earlier rounds' from the
 * requestState, this round's from `inputResponses`), the ones the handler
 * used, and every question it asked without an answer.
 */
export interface Rounds {
  /** What the requestState is sealed for (a tool name, `prompts/get:<name>`, `resources/read:<uri>`). */
  readonly name: string
  readonly answers: Record<string, unknown>
  /** Answers the handler read this round, by key: the ones the next round's state carries. */
  readonly used: Record<string, unknown>
  /** Questions asked without a key so far (their keys are `ask-<n>`). */
  asked: number
  /** Questions without an answer, by key; the handler may ask several before it stops (`Promise.all`). */
  readonly pending: Map<string, InputRequest>
}

/** Whether a verified requestState payload is one of ours (the answers of earlier rounds), not the handler's own. */
export function isAnswersState(payload: unknown): boolean {
  return payload !== null && typeof payload === 'object' && ANSWERS in payload
}

/** The rounds of a 2026-07-28 request (one with an envelope; `state`: its opened requestState), `undefined` in the initialize era. */
export function startRounds(ctx: ServerContext, name: string, state: unknown): Rounds | undefined {
  if (ctx.mcpReq.envelope === undefined) return undefined
  const earlier = isAnswersState(state)
    ? (state as Record<string, { tool?: unknown; answers?: Record<string, unknown> }>)[ANSWERS]
    : undefined
  const answers = { ...(earlier?.tool === name ? earlier.answers : {}), ...ctx.mcpReq.inputResponses }
  return { name, answers, used: {}, asked: 0, pending: new Map() }
}

/** Why a question of a 2026-07-28 request does not resolve in this round (a handler that catches it gets this text). */
class InputPending extends Error {
  override name = 'InputPending'
}

/** Answers a question from the rounds so far, or records it as one to ask (`key`: the handler's, else `ask-<n>`). */
function askInRound<T>(rounds: Rounds, request: InputRequest, key?: string): Promise<T> {
  const id = key ?? `ask-${rounds.asked++}`
  const answer = rounds.answers[id]
  if (isAnswerOf(request.method, answer)) {
    rounds.used[id] = answer
    return Promise.resolve(answer as T)
  }
  if (!rounds.pending.has(id)) rounds.pending.set(id, request)
  return Promise.reject(new InputPending(`${request.method}: waiting for the client's answer (an input_required round)`))
}

/** The `input_required` result asking every pending question, with the answers used so far sealed in its requestState. */
export async function inputRequiredOf(rounds: Rounds, seal: (payload: unknown) => Promise<string>): Promise<Record<string, unknown>> {
  return {
    resultType: 'input_required',
    inputRequests: Object.fromEntries(rounds.pending),
    requestState: await seal({ [ANSWERS]: { tool: rounds.name, answers: rounds.used } }),
  }
}

/** Options of a question: `key` names it in `inputRequests` (2026-07-28); @default `ask-<n>`, n counting the questions asked */
export interface AskOptions {
  key?: string
}

/** How a handler's questions reach the client: a request on the call's stream, or an `input_required` round. */
export type Ask = <T>(request: InputRequest, key?: string) => Promise<T>

/** A fresh round with no answers yet (a first request), sealed for `name`: every question the handler asks is pending. */
export function firstRound(name: string): Rounds {
  return { name, answers: {}, used: {}, asked: 0, pending: new Map() }
}

/** How questions are asked in `rounds` (answered from it, or recorded as pending). */
export function roundAsk(rounds: Rounds): Ask {
  return <T>(request: InputRequest, key?: string) => askInRound<T>(rounds, request, key)
}

/** How a request's questions reach the client by themselves: `input_required` rounds (2026-07-28), else requests on its stream. */
export function directAsk(ctx: ServerContext, rounds?: Rounds): Ask {
  return <T>(request: InputRequest, key?: string) =>
    rounds ? askInRound<T>(rounds, request, key) : send<T>(ctx, request.method, request.params)
}

/** A context's questions (`elicit`, `sample`, `listRoots`), each asked with `ask`. */
export function questionsOf(ask: Ask): Pick<CallContext, 'elicit' | 'sample' | 'listRoots'> {
  return {
    elicit: (request: ElicitRequest, options?: AskOptions) =>
      ask<ElicitAnswer>({ method: 'elicitation/create', params: { mode: 'form', ...request } }, options?.key),
    sample: (request: SampleRequest, options?: AskOptions) =>
      ask<SampleAnswer>({ method: 'sampling/createMessage', params: { ...request } }, options?.key),
    listRoots: (options?: AskOptions) => ask<RootsAnswer>({ method: 'roots/list', params: {} }, options?.key),
  }
}

/** The `log`, `elicit`, `sample` and `listRoots` of a request's context; with `rounds`, questions are `input_required` rounds, with `ask`, asked that way. */
export function requestsToClient(
  ctx: ServerContext,
  rounds?: Rounds,
  ask?: Ask,
): Pick<CallContext, 'log' | 'elicit' | 'sample' | 'listRoots'> {
  return { log: logOf(ctx), ...questionsOf(ask ?? directAsk(ctx, rounds)) }
}
