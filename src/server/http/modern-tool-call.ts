/**
 * The fast path of a plain 2026-07-28 `tools/call` over Node HTTP
 * (docs/serving.md, "Transports"): a request the SDK would serve with nothing but the
 * tool's result (a valid envelope and standard headers, no progress token,
 * no log level, no requestState or answers, a tool that is visible, runs
 * no task and mirrors no header) is answered here, from the tool's call to
 * the JSON response, with the fields the SDK's encoder would add
 * (`resultType`, the server's identity in `_meta`). Anything else, and any
 * call whose handler asks a question, goes to the SDK: what this path
 * answers is byte for byte what the SDK answers (test/server/modern-tool-call.test.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { specTypeSchemas } from '@modelcontextprotocol/server'
import type { CallContext } from '../../runtime/types.ts'
import { rememberSource } from '../../runtime/number-source.ts'
import { MAX_BODY_BYTES } from '../serving/limits.ts'
import { principalOf } from '../base/principal.ts'
import type { ServerState } from '../serving/server-state.ts'
import { headerParamsOf } from '../tools/header-params.ts'
import { firstRound, inputRequiredOf, questionsOf, roundAsk, type InputRequest } from '../primitives/requests-to-client.ts'
import { isVisible, scopesOf, type CallResult } from '../tools/tool-set.ts'
import type { Log } from '../base/logging.ts'
import { answered } from '../tools/sendable.ts'
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

/**
 * The request body's chunks; `complete` is false past the body limit (the
 * rest is left unread). Read by `read()` as it becomes readable, not by
 * `for await` (that would destroy the stream when left early), in one
 * promise for the whole body (each is dearer under an SDK's
 * AsyncLocalStorage: docs/guide/production.md, "OpenTelemetry traces and metrics").
 */
function bodyOf(req: IncomingMessage): Promise<{ chunks: Buffer[]; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = (complete: boolean): void => {
      req.off('readable', pull)
      req.off('end', end)
      req.off('error', fail)
      resolve({ chunks, complete })
    }
    function pull(): void {
      for (let chunk = req.read() as Buffer | null; chunk !== null; chunk = req.read() as Buffer | null) {
        chunks.push(chunk)
        size += chunk.length
        if (size > MAX_BODY_BYTES) return finish(false)
      }
      if (req.readableEnded) finish(true)
    }
    const end = (): void => finish(true)
    const fail = (error: Error): void => {
      req.off('readable', pull)
      req.off('end', end)
      req.off('error', fail)
      reject(error)
    }
    req.on('readable', pull)
    req.on('end', end)
    req.on('error', fail)
    pull()
  })
}

/**
 * The body of `req` read for a fast path: its chunks (to replay to the SDK's
 * path), its text and its JSON; `message` is undefined when the body is past
 * the limit or not JSON (the SDK's path then says so, as for any request).
 */
export async function jsonBodyOf(req: IncomingMessage): Promise<{ chunks: Buffer[]; text: string; message: unknown }> {
  const { chunks, complete } = await bodyOf(req)
  if (!complete) return { chunks, text: '', message: undefined }
  const text = Buffer.concat(chunks).toString('utf8')
  try {
    return { chunks, text, message: JSON.parse(text) as unknown }
  } catch {
    return { chunks, text, message: undefined }
  }
}

/** The params of a plain `tools/call` this path may answer, or `undefined`. */
function plainCall(
  message: unknown,
  name: string,
): { id: string | number; params: Record<string, unknown>; meta: Record<string, unknown> } | undefined {
  if (!isRecord(message) || message.jsonrpc !== '2.0' || message.method !== 'tools/call') return undefined
  const { id, params } = message
  if ((typeof id !== 'string' && typeof id !== 'number') || !isRecord(params) || params.name !== name) return undefined
  for (const key of Object.keys(params)) if (!PARAM_KEYS.has(key)) return undefined
  if (params.arguments !== undefined && !isRecord(params.arguments)) return undefined
  const meta = params._meta
  if (!isRecord(meta) || meta[PROTOCOL_VERSION] !== MODERN_REVISION) return undefined
  for (const key of Object.keys(meta)) if (!ENVELOPE_KEYS.has(key)) return undefined
  // clientInfo is a SHOULD of the revision (a request without it is served): checked only when there.
  const info = meta[CLIENT_INFO]
  if (info !== undefined && (!isRecord(info) || typeof info.name !== 'string' || typeof info.version !== 'string')) return undefined
  if (!isRecord(meta[CLIENT_CAPABILITIES])) return undefined
  return { id, params, meta }
}

/** A body a fast path read whole and parsed, handed on to the SDK path with the request it came in. */
export interface ReadBody {
  /** The body's text (for exact 64-bit numbers). */
  readonly text: string
  /** The body's JSON: an object or an array. */
  readonly message: object
}

/** How a fast path hands a request it declines to the SDK path: its body replayed, or (`read`) already read and parsed. */
export type NextPath = (req: IncomingMessage, read?: ReadBody) => Promise<void>

/**
 * Hands a request a fast path read (`body`, as {@link jsonBodyOf} gave it)
 * and declined to `next`: a body read whole and parsed goes with it as it
 * is (the SDK path does not read or parse it again, which cost some 60
 * promises a request: docs/guide/production.md, "OpenTelemetry traces and metrics"); any other (past the
 * limit, not JSON, JSON but no object or array) is replayed as it came, for the SDK path's own answer.
 */
export function declined(req: IncomingMessage, body: { chunks: Buffer[]; text: string; message: unknown }, next: NextPath): Promise<void> {
  const { message } = body
  return message !== null && typeof message === 'object' ? next(req, { text: body.text, message }) : next(replayed(req, body.chunks))
}

/**
 * The request again, its body replayed: `chunks` (what was read of it),
 * then whatever is left unread. What the SDK path reads when the fast path
 * declines, as it came (a body past the limit too: the SDK answers 413).
 */
export function replayed(req: IncomingMessage, chunks: readonly Buffer[]): IncomingMessage {
  const again = Readable.from(
    (async function* () {
      yield* chunks
      if (!req.readableEnded) yield* req as AsyncIterable<Buffer>
    })(),
  ) as Readable & Record<string, unknown>
  for (const key of ['method', 'url', 'headers', 'rawHeaders', 'httpVersion', 'socket', 'auth'] as const)
    again[key] = (req as unknown as Record<string, unknown>)[key]
  return again as unknown as IncomingMessage
}

/**
 * Reads the body of a request {@link mayBeFastCall} let through and serves
 * it if it is a plain 2026-07-28 `tools/call`; else hands the request and
 * its body to `next` (the SDK path: {@link declined}).
 */
export async function serveFastCall(
  state: ServerState,
  req: IncomingMessage,
  res: ServerResponse,
  next: NextPath,
  log: Log,
): Promise<void> {
  const body = await jsonBodyOf(req)
  const { text, message } = body
  if (message === undefined) return declined(req, body, next)
  const call = plainCall(message, req.headers['mcp-name'] as string)
  const authInfo = (req as IncomingMessage & { auth?: unknown }).auth
  const entry = call === undefined ? undefined : state.tools.byName.get(call.params.name as string)
  if (
    call === undefined ||
    entry === undefined ||
    entry.taskSupport !== undefined ||
    (state.tools.gated && !isVisible(entry, scopesOf(authInfo), state.features)) ||
    headerParamsOf(entry.listed.inputSchema).length > 0
  ) {
    return declined(req, body, next)
  }
  const abort = new AbortController()
  // The response closed (answered, or the client gone): what the call left running stops, as on the SDK's path. With
  // one reason made once: abort() without one makes a DOMException each time, some 10 µs on every call.
  res.once('close', () => abort.abort(RESPONSE_CLOSED))
  const tool = entry.listed.name
  const principal = principalOf(authInfo, req.headers.authorization)
  const capabilities = call.meta[CLIENT_CAPABILITIES] as Record<string, unknown>
  // A first request: every question the handler asks is one to answer in an input_required round.
  const rounds = firstRound(tool)
  const seal = (payload: unknown): Promise<string> => state.sealState(payload, tool, { principal })
  const context: CallContext = {
    tool,
    signal: abort.signal,
    authInfo,
    meta: {},
    headers: { ...req.headers },
    clientCapabilities: capabilities,
    // A request without a log level gets no log entries (2026-07-28).
    log: () => Promise.resolve(),
    ...questionsOf(roundAsk(rounds)),
    sealRequestState: seal,
  }
  if (state.pollIntervalMs !== undefined) context.pollIntervalMs = state.pollIntervalMs
  const send = (status: number, body: Record<string, unknown>): void => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ ...body, jsonrpc: '2.0', id: call.id }))
  }
  const answer = (result: Record<string, unknown>): void =>
    send(200, { result: { ...result, _meta: { ...(result._meta as object | undefined), [SERVER_INFO]: state.info } } })
  let result: Record<string, unknown>
  try {
    const args = call.params.arguments
    // The body's text goes with the arguments, for exact 64-bit numbers (as the SDK path does).
    if (args !== null && typeof args === 'object') rememberSource(args, text)
    result = (await serveRequest(
      state,
      log,
      'tools/call',
      () => fastRequest(call, req, authInfo),
      () => entry.call(args, context),
    )) as Record<string, unknown>
  } catch (error) {
    // As the SDK answers a handler's throw: its JSON-RPC code, else an internal error.
    const e = error as { code?: unknown; message?: unknown; data?: unknown }
    const code = Number.isSafeInteger(e?.code) ? (e.code as number) : -32603
    return send(code === -32021 ? 400 : 200, {
      error: {
        code,
        message: typeof e?.message === 'string' ? e.message : 'Internal error',
        ...(e?.data === undefined ? {} : { data: e.data }),
      },
    })
  }
  if (rounds.pending.size > 0) {
    // The SDK's check of an input_required result: each question needs its capability declared (else -32021, HTTP 400).
    for (const [key, request] of rounds.pending) {
      const missing = missingCapabilities(request, capabilities)
      if (missing !== undefined) {
        return send(400, {
          error: {
            code: -32021,
            message: `Cannot request input '${key}' (${request.method}): the request's client capabilities do not declare the required capability`,
            data: { requiredCapabilities: missing },
          },
        })
      }
    }
    return answer(await inputRequiredOf(rounds, seal))
  }
  if (result.resultType === 'input_required') return answer(result)
  // As on the SDK path: a result no transport could write is answered as a tool error, and a failed call is logged.
  result = answered(result as CallResult, entry, tool, { server: state.info.name, log }) as Record<string, unknown>
  const normalized = projected(result.content === undefined && !FOREIGN.some((k) => k in result) ? { ...result, content: [] } : result)
  const checked = specTypeSchemas.CallToolResult['~standard'].validate(normalized) as { issues?: readonly unknown[] }
  if (checked.issues) {
    // The text the SDK gives (zod's message: its issues as indented JSON).
    return send(200, { error: { code: -32602, message: `Invalid tools/call result: ${JSON.stringify(checked.issues, null, 2)}` } })
  }
  answer({ ...normalized, resultType: 'complete' })
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
