/**
 * The fast path of a plain 2026-07-28 `tools/call` over Node HTTP
 * (docs/internals.md, "One call path"): a request the SDK would serve with
 * nothing but the tool's call (an envelope of protocol version, client
 * capabilities and client info only, no progress token, no log level, no
 * requestState or answers, a tool that is there for this caller, runs no
 * task and mirrors no header; in search mode its meta-tools and a
 * `call_tool` too) is answered here without the SDK's request machinery.
 * The call takes the steps every path takes (serving/tool-call.ts); what
 * the SDK's `Server` then does on this era is done here (the check of an
 * `input_required` result, the projection, the result check, `resultType`
 * and the server's identity in `_meta`): what this path answers is the
 * JSON the SDK answers (test/server/modern-tool-call.test.ts), and its span
 * and audit line say what the SDK path's say.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { specTypeSchemas } from '@modelcontextprotocol/server'
import type { CallContext } from '../../runtime/types.ts'
import { rememberSource } from '../../runtime/number-source.ts'
import { principalOf } from '../base/principal.ts'
import type { ServerState } from '../serving/server-state.ts'
import { headerParamsOf } from '../tools/header-params.ts'
import { firstRound, questionsOf, roundAsk, type InputRequest } from '../primitives/requests-to-client.ts'
import { isVisible, scopesOf, type CallResult } from '../tools/tool-set.ts'
import type { Log } from '../base/logging.ts'
import { callTarget, inRounds, isInputRequired, settled, type CallTarget } from '../serving/tool-call.ts'
import { declined, type Era, type NextPath, type ReadRequest } from './inbound.ts'
import { serveRequest, type ServedRequest } from '../operate/operate.ts'
import { isRecord } from '../../contract/is-record.ts'
import { MODERN_REVISION } from '../../contract/protocol.ts'

const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION, CLIENT_INFO, CLIENT_CAPABILITIES])
const PARAM_KEYS = new Set(['name', 'arguments', '_meta'])
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo'

/** The reason a fast call's signal aborts with once its response closed (an `AbortError`, as `abort()` gives). */
const RESPONSE_CLOSED = new DOMException('the response was closed', 'AbortError')

/** Whether the headers say this may be a plain 2026-07-28 `tools/call` (the body decides). */
export function mayBeFastCall(req: IncomingMessage): boolean {
  const h = req.headers
  return (
    req.method === 'POST' &&
    h['mcp-method'] === 'tools/call' &&
    h['mcp-protocol-version'] === MODERN_REVISION &&
    typeof h['mcp-name'] === 'string' &&
    !h['mcp-name'].startsWith('=?') &&
    (h['content-type'] ?? '').startsWith('application/json') &&
    (h.accept ?? '').includes('application/json') &&
    (h.accept ?? '').includes('text/event-stream') &&
    h['content-encoding'] === undefined
  )
}

/** The params of a plain `tools/call` this path may answer (`era`: the edge's classification of its body), or `undefined`. */
function plainCall(
  era: Era,
  name: string,
): { id: string | number; params: Record<string, unknown>; meta: Record<string, unknown> } | undefined {
  // The SDK's classifier has checked the JSON-RPC shape and the envelope (its keys' values, clientInfo when there).
  if (era.kind !== 'modern' || era.messageKind !== 'request' || era.message.method !== 'tools/call') return undefined
  const { id, params } = era.message as { id: string | number; params?: unknown }
  if (!isRecord(params) || params.name !== name) return undefined
  for (const key of Object.keys(params)) if (!PARAM_KEYS.has(key)) return undefined
  if (params.arguments !== undefined && !isRecord(params.arguments)) return undefined
  const meta = params._meta
  if (!isRecord(meta) || meta[PROTOCOL_VERSION] !== MODERN_REVISION) return undefined
  for (const key of Object.keys(meta)) if (!ENVELOPE_KEYS.has(key)) return undefined
  if (!isRecord(meta[CLIENT_CAPABILITIES])) return undefined
  return { id, params, meta }
}

/** A JSON-RPC error. */
interface RpcError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/** A JSON-RPC error as this path sends it, with its HTTP status. */
interface ErrorAnswer {
  readonly status: number
  readonly error: RpcError
}

/** As the SDK answers a handler's throw: its JSON-RPC code (`-32021` with HTTP 400), else an internal error. */
function thrownAnswer(error: unknown): ErrorAnswer {
  const e = error as { code?: unknown; message?: unknown; data?: unknown }
  const code = Number.isSafeInteger(e?.code) ? (e.code as number) : -32603
  return {
    status: code === -32021 ? 400 : 200,
    error: {
      code,
      message: typeof e?.message === 'string' ? e.message : 'Internal error',
      ...(e?.data === undefined ? {} : { data: e.data }),
    },
  }
}

/**
 * Serves a request {@link mayBeFastCall} let through, its body read and
 * classified once at the edge (`body`, `era`: inbound.ts), if it is a plain
 * 2026-07-28 `tools/call`: the steps every path takes (serving/tool-call.ts)
 * with this path's context, then the era's checks and projection of the
 * result. Else hands the request, its body and its era to `next` (the SDK path).
 */
export async function serveFastCall(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  body: ReadRequest,
  era: Era,
  next: NextPath,
  log: Log,
): Promise<void> {
  const call = plainCall(era, req.headers['mcp-name'] as string)
  if (call === undefined) return declined(req, body, next, era)
  const asked = call.params.name as string
  const args = call.params.arguments
  // The body's text goes with the arguments, for exact 64-bit numbers (as the SDK path does).
  if (args !== null && typeof args === 'object') rememberSource(args, body.text)
  const authInfo = (req as IncomingMessage & { auth?: unknown }).auth
  const named = state.tools.byName.get(state.calledTool(call.params) ?? asked)
  // A tool hidden from this caller (called, or named by a call_tool) is the SDK path's: its step-up answer (step-up.ts), its log line.
  if (named !== undefined && state.tools.gated && !isVisible(named, scopesOf(authInfo), state.features))
    return declined(req, body, next, era)
  let target: CallTarget | { error: CallResult }
  try {
    target = callTarget(state, asked, args, authInfo, log)
  } catch {
    // An unknown tool: the SDK's answer.
    return declined(req, body, next, era)
  }
  // A call that may run as a task, and one whose tool mirrors arguments in headers (checked before the SDK), are the SDK's.
  if (
    'entry' in target &&
    (target.entry.taskSupport !== undefined || (target.name === asked && headerParamsOf(target.entry.listed.inputSchema).length > 0))
  ) {
    return declined(req, body, next, era)
  }
  const abort = new AbortController()
  // The response closed (answered, or the client gone): what the call left running stops, as on the SDK's path. With
  // one reason made once: abort() without one makes a DOMException each time, some 10 µs on every call.
  res.once('close', () => abort.abort(RESPONSE_CLOSED))
  const capabilities = call.meta[CLIENT_CAPABILITIES] as Record<string, unknown>
  const send = (status: number, answer: Record<string, unknown>): void => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ...answer, jsonrpc: '2.0', id: call.id }))
  }
  const run = async (): Promise<Record<string, unknown>> => {
    if ('error' in target) return answerable(target.error, capabilities)
    const { name, args: given, entry } = target
    // A first request: every question the handler asks is one to answer in an input_required round.
    const rounds = firstRound(name)
    const principal = principalOf(authInfo, req.headers.authorization)
    const seal = (payload: unknown): Promise<string> => state.sealState(payload, name, { principal })
    const context: CallContext = {
      tool: name,
      signal: abort.signal,
      authInfo,
      // No _meta but the envelope's (the SDK path's ctx.mcpReq._meta is then undefined too).
      meta: undefined,
      headers: { ...req.headers },
      clientCapabilities: capabilities,
      // A request without a log level gets no log entries (2026-07-28).
      log: () => Promise.resolve(),
      ...questionsOf(roundAsk(rounds)),
      sealRequestState: seal,
    }
    if (state.pollIntervalMs !== undefined) context.pollIntervalMs = state.pollIntervalMs
    return answerable(settled(await inRounds(rounds, seal, () => entry.call(given, context)), target, state.info.name, log), capabilities)
  }
  let result: Record<string, unknown>
  try {
    // The era's checks run inside: a call the client gets an error for has that error in its span and audit line.
    result = await serveRequest(state, log, 'tools/call', () => fastRequest(call, req, authInfo), run)
  } catch (error) {
    const { status, error: answer } = thrownAnswer(error)
    return send(status, { error: answer })
  }
  // What the SDK's encoder adds after its span and audit line: a complete result's resultType, the server's identity.
  const stamped = isInputRequired(result) ? result : { ...result, resultType: 'complete' }
  send(200, { result: { ...stamped, _meta: { ...(result._meta as object | undefined), [SERVER_INFO]: state.info } } })
}

/** An error to throw with a JSON-RPC code (and data), as `thrownAnswer` answers it. */
const rpcError = ({ code, message, data }: RpcError): Error =>
  Object.assign(new Error(message), data === undefined ? { code } : { code, data })

/**
 * What the SDK's `Server` does with a `tools/call` result on the
 * 2026-07-28 era: an `input_required` one checked ({@link inputRequiredError}),
 * any other projected (SEP-2106) and checked as a `CallToolResult`. Throws
 * the error the SDK answers instead.
 */
function answerable(called: CallResult, capabilities: Record<string, unknown>): Record<string, unknown> {
  const result = called as Record<string, unknown>
  if (isInputRequired(result)) {
    const refused = inputRequiredError(result, capabilities)
    if (refused !== undefined) throw rpcError(refused)
    return result
  }
  const normalized = projected(result.content === undefined && !FOREIGN.some((k) => k in result) ? { ...result, content: [] } : result)
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(normalized) as { issues?: readonly unknown[] }
  // The text the SDK gives (zod's message: its issues as indented JSON).
  if (checked.issues) throw rpcError({ code: -32602, message: `Invalid tools/call result: ${JSON.stringify(checked.issues, null, 2)}` })
  return normalized
}

/** The fast call as operate.ts takes it (HTTP checked its rate limits before the body was read). */
function fastRequest(
  call: { id: string | number; params: Record<string, unknown> },
  req: IncomingMessage,
  authInfo: unknown,
): ServedRequest {
  return {
    method: 'tools/call',
    params: call.params,
    id: call.id,
    transport: 'tcp',
    protocolVersion: MODERN_REVISION,
    headers: req.headers,
    authInfo,
    ...(req.socket?.remoteAddress === undefined ? {} : { clientAddress: req.socket.remoteAddress }),
  }
}

/** Result keys of other result families: such a result gets no default `content`. */
const FOREIGN = ['task', 'inputRequests', 'requestState']

/** SEP-2106 §4.3: non-object `structuredContent` without a text item gets its JSON as text (as both SDK codecs do). */
function projected(result: Record<string, unknown>): Record<string, unknown> {
  const sc = result.structuredContent
  if (sc === undefined || isRecord(sc)) return result
  const content = (result.content ?? []) as Array<{ type?: unknown }>
  if (content.some((c) => c.type === 'text')) return result
  return { ...result, content: [...content, { type: 'text', text: JSON.stringify(sc) }] }
}

const QUESTION_METHODS: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage', 'roots/list'])

/**
 * The SDK's check of an `input_required` result, which its `Server` makes
 * of every handler's on the 2026-07-28 era: `undefined` when it may go
 * out, else the error the SDK answers instead (its texts). Our rounds'
 * results and a handler's own pass the same check.
 */
function inputRequiredError(result: Record<string, unknown>, declared: Record<string, unknown>): RpcError | undefined {
  const internal = (message: string): RpcError => ({ code: -32603, message })
  const requests = result.inputRequests as Record<string, unknown> | null | undefined
  const asks = requests != null && Object.keys(requests).length > 0
  if (!asks && typeof result.requestState !== 'string') {
    return internal(
      'Handler for tools/call returned an input-required result with neither inputRequests nor requestState (every InputRequiredResult must include at least one of the two)',
    )
  }
  if (!asks) return undefined
  for (const [key, request] of Object.entries(requests)) {
    if (!isRecord(request) || typeof request.method !== 'string') {
      return internal(
        `Handler for tools/call returned an invalid input request '${key}': each inputRequests entry must be an embedded elicitation/create, sampling/createMessage, or roots/list request`,
      )
    }
    if (!QUESTION_METHODS.has(request.method)) {
      return internal(
        `Handler for tools/call returned an input request '${key}' of kind '${request.method}', which is not an embedded request the 2026-07-28 revision defines`,
      )
    }
    const missing = missingCapabilities(request as unknown as InputRequest, declared)
    if (missing !== undefined) {
      return {
        code: -32021,
        message: `Cannot request input '${key}' (${request.method}): the request's client capabilities do not declare the required capability`,
        data: { requiredCapabilities: missing },
      }
    }
  }
  return undefined
}

/** The capabilities a question needs that the request did not declare (as the SDK reads them), or `undefined`. */
function missingCapabilities(request: InputRequest, declared: Record<string, unknown>): Record<string, unknown> | undefined {
  const has = (key: string): Record<string, unknown> | undefined =>
    isRecord(declared[key]) ? (declared[key] as Record<string, unknown>) : undefined
  if (request.method === 'elicitation/create') {
    const elicitation = has('elicitation')
    const mode = request.params.mode === 'url' ? 'url' : 'form'
    if (elicitation === undefined) return { elicitation: { [mode]: {} } }
    // A bare `elicitation: {}` declares form mode (its meaning before modes existed).
    const bare = Object.keys(elicitation).length === 0
    return elicitation[mode] !== undefined || (mode === 'form' && bare) ? undefined : { elicitation: { [mode]: {} } }
  }
  if (request.method === 'sampling/createMessage') {
    const sampling = has('sampling')
    const tools = request.params.tools !== undefined || request.params.toolChoice !== undefined
    if (sampling === undefined) return { sampling: tools ? { tools: {} } : {} }
    return tools && sampling.tools === undefined ? { sampling: { tools: {} } } : undefined
  }
  return has('roots') === undefined ? { roots: {} } : undefined
}
