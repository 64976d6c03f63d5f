/**
 * The SDK side of a server: a factory of low-level SDK `Server` instances
 * (one per connection, session or HTTP request) whose handlers answer from
 * the server state's current snapshots.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  ResourceNotFoundError,
  Server as SdkServer,
} from '@modelcontextprotocol/server'
import type {
  CallToolResult,
  JSONRPCRequest,
  McpServerFactory,
  Result,
  ServerCapabilities,
  ServerContext,
  Transport,
  jsonSchemaValidator,
} from '@modelcontextprotocol/server'
import { adoptSource } from '../../runtime/number-source.ts'
import type { CallContext } from '../../runtime/types.ts'
import type { Log } from '../base/logging.ts'
import { requestsToClient, directAsk, isAnswersState, startRounds, type Ask, type Rounds } from '../primitives/requests-to-client.ts'
import { complete, type CompleteParams } from '../primitives/completions.ts'
import { page } from '../primitives/pagination.ts'
import { matchTemplate, SERVED_CALL, type ServedCall } from '../primitives/resource-templates.ts'
import { promptResult } from '../primitives/prompts.ts'
import { readResult } from '../primitives/resources.ts'
import { logFailedCall } from '../tools/sendable.ts'
import { serveSubscriptions } from '../primitives/subscriptions.ts'
import type { ListKind } from '../base/list-kind.ts'
import type { ServerState, StateBinding } from './server-state.ts'
import { callTarget, dispatchCall, inRounds, isInputRequired, settled, type CallTarget } from './tool-call.ts'
import { TaskableCall } from '../tasks/task-call.ts'
import { declaresTasks, missingTasksCapability, ownerOf, serveTaskMethods } from '../tasks/task-methods.ts'
import { TASKS_EXTENSION, taskView } from '../tasks/tasks.ts'
import type { CallResult } from '../tools/tool-set.ts'
import { serveRequest } from '../operate/operate.ts'
import { endSession, sawRequest, sdkRequest } from '../operate/sdk-request.ts'
import { MODERN_REVISION } from '../../contract/protocol.ts'
import { isRecord } from '../../contract/is-record.ts'

export type { ListedTool } from '../tools/tool-set.ts'

/** Counters a serving transport reports when it ends. */
export interface ServeStats {
  requests: number
  toolCalls: number
  errors: number
}

// Tool arguments are validated by our own validators with our texts;
// this keeps the SDK from building an Ajv of its own per instance.
const PASS_THROUGH: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
}

// listChanged everywhere: a ServerHandle may change any list while serving.
// `logging` also makes the SDK answer `logging/setLevel` and filter `ctx.mcpReq.log` by it.
// The Tasks extension (docs/serving.md, "Tasks"): advertised to 2026-07-28 clients (see getCapabilities below).
const CAPABILITIES = {
  tools: { listChanged: true },
  resources: { listChanged: true, subscribe: true },
  prompts: { listChanged: true },
  logging: {},
  completions: {},
  extensions: { [TASKS_EXTENSION]: {} },
}

/** How a tools/call that became a task answers past the SDK's result check (caught in ProtoSdkServer._wrapHandler). */
class TaskCreated {
  constructor(readonly result: Record<string, unknown>) {}
}

function headersOf(req: Request | undefined): Record<string, string> | undefined {
  if (!req) return undefined
  const out: Record<string, string> = {}
  req.headers.forEach((value, key) => {
    out[key] = value
  })
  return out
}

/** The payload of the request's `requestState`, opened for `name` (it is usable once), or `undefined` without one. */
function openedState(state: ServerState, name: string, ctx: ServerContext): unknown {
  const sealed = ctx.mcpReq.requestState()
  return sealed === undefined ? undefined : state.openState(sealed, name)
}

/** How a request's context is made: its rounds, its opened requestState, what states are sealed for, the SDK instance. */
export interface ContextOptions {
  /** The request's `input_required` rounds (2026-07-28), when it may ask questions that way. */
  rounds?: Rounds
  /** Its requestState, already opened (it is usable once). */
  opened?: { state: unknown }
  /** What the handler's own states are sealed for. @default the name */
  sealAs?: string
  /** The SDK instance serving it (the initialize-era client capabilities). */
  server?: SdkServer
  /** How questions reach the client instead (a call that may become a task). */
  ask?: Ask
  /** The handler's signal instead of the request's (a call that may become a task). */
  signal?: AbortSignal
  /** The handler's progress instead of the request's (a call that may become a task). */
  progress?: CallContext['progress']
  /** Whether this instance still follows a long-running operation (a call that may become a task, in a fleet). */
  holdsOperation?: CallContext['holdsOperation']
}

/** The `CallContext` of a request: tool, signal, auth info, `_meta`, headers, progress, log, questions, client capabilities, requestState. */
export function callContext(state: ServerState, name: string, ctx: ServerContext, options: ContextOptions = {}): CallContext {
  const { rounds, opened, server, ask, signal } = options
  const sealAs = options.sealAs ?? name
  const meta = ctx.mcpReq._meta as Record<string, unknown> | undefined
  const context: CallContext = {
    tool: name,
    signal: signal ?? ctx.mcpReq.signal,
    authInfo: ctx.http?.authInfo,
    meta,
    sealRequestState: (payload) => state.sealState(payload, sealAs, ctx as StateBinding),
    ...requestsToClient(ctx, rounds, ask),
  }
  const capabilities = clientCapabilitiesOf(ctx, server)
  if (capabilities !== undefined) context.clientCapabilities = capabilities
  if (state.pollIntervalMs !== undefined) context.pollIntervalMs = state.pollIntervalMs
  if (options.holdsOperation !== undefined) context.holdsOperation = options.holdsOperation
  if (ctx.mcpReq.inputResponses !== undefined) context.inputResponses = ctx.mcpReq.inputResponses
  const headers = headersOf(ctx.http?.req)
  if (headers) context.headers = headers
  // Verified by the codec (MAC, expiry, principal, session); still to check: its tool, and that it is unused.
  const received = opened ? opened.state : openedState(state, sealAs, ctx)
  // Our own answers of earlier input_required rounds are the rounds', not the handler's.
  if (received !== undefined && !isAnswersState(received)) context.requestState = received
  const token = meta?.progressToken
  if (options.progress !== undefined) context.progress = options.progress
  else if (typeof token === 'string' || typeof token === 'number') {
    context.progress = (progress, message, total) =>
      ctx.mcpReq.notify({
        method: 'notifications/progress',
        params: {
          progressToken: token,
          progress,
          ...(total === undefined ? {} : { total }),
          ...(message === undefined ? {} : { message }),
        },
      })
  }
  return context
}

/** The client's declared capabilities: a 2026-07-28 request's own, else the session's `initialize`. */
export function clientCapabilitiesOf(ctx: ServerContext, server?: SdkServer): Record<string, unknown> | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  if (envelope !== undefined) return envelope[CLIENT_CAPABILITIES_META_KEY] as Record<string, unknown> | undefined
  return server?.getClientCapabilities() as Record<string, unknown> | undefined
}

/**
 * Runs `run` (a handler that may ask questions) in the rounds of a
 * 2026-07-28 request sealed for `sealAs` (tool-call.ts, `inRounds`).
 */
function inRequestRounds<R>(
  state: ServerState,
  ctx: ServerContext,
  sealAs: string,
  run: (options: ContextOptions) => Promise<R>,
): Promise<R | Record<string, unknown>> {
  const opened = { state: openedState(state, sealAs, ctx) }
  const rounds = startRounds(ctx, sealAs, opened.state)
  const seal = (payload: unknown): Promise<string> => state.sealState(payload, sealAs, ctx as StateBinding)
  return inRounds(rounds, seal, () => run({ rounds, opened, sealAs }))
}

type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>

/** `request` without `params.arguments` when it is `null` (docs/calls.md, "The pipeline": null arguments are `{}`). */
function withoutNullArguments(request: JSONRPCRequest): JSONRPCRequest {
  const params = request.params as Record<string, unknown> | undefined
  if (params?.arguments !== null) return request
  const { arguments: _null, ...rest } = params
  return { ...request, params: rest }
}

/** `tools/call` past the SDK's checks: null arguments dropped, a call that became a task answered with it. */
function wrapCall(method: string, wrapped: RequestHandler): RequestHandler {
  if (method !== 'tools/call') return wrapped
  // A call that became a task answers with it past the SDK's check of a CallToolResult (docs/serving.md, "Tasks").
  return (request, ctx) => {
    // The raw arguments, before the SDK's schema copies them: their text goes with the request's signal (one per request).
    adoptSource(ctx.mcpReq.signal, (request.params as { arguments?: unknown } | undefined)?.arguments)
    return wrapped(withoutNullArguments(request), ctx).catch((error: unknown) => {
      if (error instanceof TaskCreated) return error.result as Result
      throw error
    })
  }
}

/**
 * Params the SDK's request schema refuses: `-32602` with each issue as
 * `/path: message` on one line. The SDK throws them as a plain error whose
 * message is the schema library's issue list (an internal error, `-32603`,
 * except for `tools/call`), as indented JSON.
 */
function readableParamsErrors(method: string, serve: RequestHandler): RequestHandler {
  return (request, ctx) =>
    serve(request, ctx).catch((error: unknown) => {
      throw paramsError(method, error) ?? error
    })
}

/** The `-32602` of an SDK request-schema failure, or `undefined` for any other error. */
function paramsError(method: string, error: unknown): ProtocolError | undefined {
  if (!(error instanceof Error)) return undefined
  const prefix = `Invalid ${method} request: `
  const text = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message
  if (!text.startsWith('[')) return undefined
  let issues: unknown
  try {
    issues = JSON.parse(text)
  } catch {
    return undefined
  }
  const valid = (issue: unknown): issue is { path: unknown[]; message: string } =>
    isRecord(issue) && Array.isArray(issue.path) && typeof issue.message === 'string'
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every(valid)) return undefined
  const where = (path: unknown[]): string => `/${(path[0] === 'params' ? path.slice(1) : path).join('/')}`
  return new ProtocolError(
    ProtocolErrorCode.InvalidParams,
    `invalid params of ${method}: ${issues.map((issue) => `${where(issue.path)}: ${issue.message}`).join('; ')}`,
  )
}

/**
 * The SDK server of every transport. `tools/call` requests with
 * `"arguments": null` would fail the SDK's request schema (-32602) before
 * our handler runs; the SDK's `_wrapHandler` hook sees the raw request
 * first, so it drops the null there, once for stdio and HTTP, both eras.
 */
class ProtoSdkServer extends SdkServer {
  /** The state and log its requests are traced, limited and audited for (operate/operate.ts); set once created. */
  served?: { state: ServerState; log: Log }
  /** Ids of initialize-era `resources/read`s that matched no resource: answered `-32002` ({@link resourceNotFound}). */
  readonly notFound = new Set<string | number>()

  /**
   * The SDK writes every resource-not-found as `-32602` (the 2026-07-28
   * revision's code, SEP-2164); the revisions before it say `-32002`. The
   * answers to the reads {@link resourceNotFound} noted get that code back
   * on their way out, with the same message and `data.uri`. Not an async
   * function: a 2026-07-28 request connects a server of its own, and each
   * promise is dearer under an SDK's AsyncLocalStorage (docs/guide/production.md,
   * "OpenTelemetry traces and metrics").
   */
  override connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport)
    transport.send = (message, options) => {
      const id = (message as { id?: string | number }).id
      if (id !== undefined && 'error' in message && this.notFound.delete(id)) {
        return send({ ...message, error: { ...message.error, code: RESOURCE_NOT_FOUND_LEGACY } }, options)
      }
      return send(message, options)
    }
    return super.connect(transport)
  }

  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    const serve = readableParamsErrors(method, wrapCall(method, super._wrapHandler(method, handler)))
    return (request, ctx) => {
      if (this.served === undefined) return serve(request, ctx)
      sawRequest(this, ctx)
      return serveRequest(
        this.served.state,
        this.served.log,
        request.method,
        () => sdkRequest(this, request, ctx),
        () => serve(request, ctx),
      )
    }
  }

  /** The Tasks extension exists on 2026-07-28 only (SEP-2663): an initialize-era client is not told of it. */
  override getCapabilities(): ServerCapabilities {
    const capabilities = super.getCapabilities()
    const version = this.getNegotiatedProtocolVersion()
    if (version === undefined || version >= MODERN_REVISION) return capabilities
    const { extensions: _tasks, ...legacy } = capabilities
    return legacy
  }
}

/**
 * `context` with the tool call of its request ({@link SERVED_CALL}): templates of the proto's resources read,
 * list and complete through tools. A call that fails is logged as a tools/call that fails is, naming the
 * request it served: a listing that leaves a failed List out still shows why.
 */
function served<C extends CallContext>(state: ServerState, log: Log, method: string, context: C): C & { [SERVED_CALL]: ServedCall } {
  const call = async (tool: string, args: unknown): Promise<CallResult> => {
    const result = await dispatchCall(state, tool, args, { ...context, tool })
    if (result.isError) logFailedCall({ server: state.info.name, log }, tool, result, method)
    return result
  }
  return { ...context, [SERVED_CALL]: call }
}

/** Resource not found before the 2026-07-28 revision (its spec's "Error Handling" of resources). */
const RESOURCE_NOT_FOUND_LEGACY = -32002

/**
 * The error of a `resources/read` matching no resource or template: the
 * SDK's `ResourceNotFoundError` (`-32602`, `data.uri`), which an
 * initialize-era request gets as `-32002`, the code its revision says
 * (noted here, rewritten by {@link ProtoSdkServer.connect}).
 */
function resourceNotFound(server: ProtoSdkServer, ctx: ServerContext, uri: string): ResourceNotFoundError {
  if (ctx.mcpReq.envelope === undefined) server.notFound.add(ctx.mcpReq.id)
  return new ResourceNotFoundError(uri)
}

/** Sends one list_changed notification on a connected SDK instance (initialize era: unsolicited; 2026-07-28 stdio: to its listen subscriptions). */
export function notifyInstance(server: SdkServer, kind: ListKind): void {
  if (!server.transport) return
  const sent =
    kind === 'tools'
      ? server.sendToolListChanged()
      : kind === 'resources'
        ? server.sendResourceListChanged()
        : server.sendPromptListChanged()
  sent.catch(() => {
    // A connection closing while we announce: nothing to tell it any more.
  })
}

/** One page of a list method's answer, `key` naming its array. */
function listPage(key: string, items: readonly unknown[], cursor: unknown, pageSize: number | undefined): never {
  const { items: shown, nextCursor } = page(items, cursor, pageSize)
  return (nextCursor === undefined ? { [key]: shown } : { [key]: shown, nextCursor }) as never
}

/** Options of {@link sdkServerFactory}. */
export interface FactoryOptions {
  /** Counted into, for stdio's report. */
  stats?: ServeStats
  /** Instances created, until they close (the ones list changes are sent to). */
  live?: Set<SdkServer>
  /** The transport's messages. @default the server's */
  log?: Log
}

/**
 * What a task that ran a tool (`target`) stores as its result: the tool's result as `tools/call` would have
 * answered it (tool-call.ts, `settled`: a failed one logged, as every path logs one).
 */
export function taskResult(
  server: SdkServer,
  target: Pick<CallTarget, 'name' | 'entry'>,
  result: CallResult,
  to: { readonly server: string; readonly log: Log },
): Record<string, unknown> {
  if (isInputRequired(result)) {
    throw new ProtocolError(
      ProtocolErrorCode.InternalError,
      'the handler returned input_required inside a task: ask with ctx.elicit, ctx.sample or ctx.listRoots instead',
    )
  }
  // The request's own answer: a complete tools/call result (resultType included, as a 2026-07-28 one carries it).
  const done = settled(result, target, to.server, to.log)
  return { ...server.projectCallToolResult(done as CallToolResult, target.entry.listed.outputSchema), resultType: 'complete' }
}

/** Creates one SDK server instance answering from `state`. */
export function createSdkServer(state: ServerState, options: FactoryOptions = {}): SdkServer {
  const { stats, live, log = state.log } = options
  const server = new ProtoSdkServer(state.info, {
    capabilities: CAPABILITIES,
    jsonSchemaValidator: PASS_THROUGH,
    requestState: { verify: (sealed, ctx) => state.codec().verify(sealed, ctx) },
  })
  server.served = { state, log }
  const opened = performance.now()
  server.setRequestHandler('tools/list', (request, ctx) =>
    listPage('tools', state.listTools(ctx.http?.authInfo), request.params?.cursor, state.pageSize),
  )
  server.setRequestHandler('tools/call', async (request, ctx) => {
    const { name: asked, arguments: given } = request.params
    if (stats) stats.toolCalls++
    // The arguments are the SDK's copy of what came in (its schemas copy objects): they take the text it came from, for exact
    // 64-bit numbers: the HTTP request's body, or the stdio line (recorded above, before the copy, on the request's signal).
    adoptSource(given, ctx.http?.req ?? ctx.mcpReq.signal)
    // A call_tool call (search mode) is the call of the tool it names, from here on (tool-call.ts: the steps every path takes).
    const target = callTarget(state, asked, given, ctx.http?.authInfo, log)
    if ('error' in target) return server.projectCallToolResult(target.error as CallToolResult, undefined)
    const { name, args, entry } = target
    const taskable = entry.taskSupport !== undefined && declaresTasks(ctx)
    // An initialize-era call runs to its end (tasks exist on 2026-07-28 only); a 2026-07-28 one that cannot take a task is refused.
    if (entry.taskSupport === 'required' && !taskable && ctx.mcpReq.envelope !== undefined) {
      throw missingTasksCapability(`tool "${name}" runs only as a task: it`)
    }
    // A question the handler asked on a 2026-07-28 request: whatever the handler made of its rejection, the client answers first.
    const called = await inRequestRounds(state, ctx, name, async (options) => {
      if (!taskable) return entry.call(args, callContext(state, name, ctx, { ...options, server }))
      const plain = callContext(state, name, ctx, { ...options, server })
      const call = new TaskableCall(state.tasks, ownerOf(ctx), name, ctx.mcpReq.signal, {
        ...(options.rounds === undefined ? {} : { rounds: options.rounds }),
        direct: directAsk(ctx, options.rounds),
        ...(plain.progress === undefined ? {} : { requestProgress: plain.progress }),
      })
      const context = callContext(state, name, ctx, {
        ...options,
        server,
        ask: call.ask,
        signal: call.signal,
        progress: call.progress,
        holdsOperation: call.holdsOperation,
      })
      const outcome = await call.run(entry.call(args, context), (done) =>
        taskResult(server, target, done, { server: state.info.name, log }),
      )
      if ('task' in outcome) throw new TaskCreated({ resultType: 'task', ...taskView(outcome.task, false) })
      return outcome.result
    })
    const result = settled(called, target, state.info.name, log)
    if (isInputRequired(result)) return result as never
    if (result.isError && stats) stats.errors++
    return server.projectCallToolResult(result as CallToolResult, entry.listed.outputSchema)
  })
  server.setRequestHandler('resources/list', async (request, ctx) => {
    const resources: unknown[] = [...state.resources.values()].map((r) => r.resource)
    // Templates that list their resources (the proto's, when listResources asks: each page calls their List RPCs again).
    for (const template of state.templates.values()) {
      if (template.list === undefined) continue
      const context = served(state, log, 'resources/list', callContext(state, 'resources/list', ctx, { server }))
      resources.push(...(await template.list(context)))
    }
    return listPage('resources', resources, request.params?.cursor, state.pageSize)
  })
  server.setRequestHandler('resources/templates/list', (request) => {
    return listPage(
      'resourceTemplates',
      [...state.templates.values()].map((t) => t.template),
      request.params?.cursor,
      state.pageSize,
    )
  })
  server.setRequestHandler('resources/read', async (request, ctx) => {
    const { uri } = request.params
    const entry = state.resources.get(uri)
    // A listed resource wins over a template that also matches its URI.
    const matched = entry === undefined ? matchTemplate(state.templates, uri) : undefined
    if (entry === undefined && matched === undefined) throw resourceNotFound(server, ctx, uri)
    return (await inRequestRounds(state, ctx, `resources/read:${uri}`, async (options) => {
      const context = served(state, log, 'resources/read', {
        ...callContext(state, uri, ctx, { ...options, server }),
        state: state.appState,
      })
      if (entry !== undefined) return readResult(entry.resource, await entry.read(uri, context))
      const { entry: template, variables } = matched!
      const shown =
        template.template.mimeType === undefined
          ? { uri, name: template.template.name }
          : { uri, name: template.template.name, mimeType: template.template.mimeType }
      return readResult(shown, await template.read(uri, variables, context))
    })) as never
  })
  server.setRequestHandler('completion/complete', async (request, ctx) => {
    const context = served(state, log, 'completion/complete', {
      ...callContext(state, 'completion/complete', ctx, { server }),
      state: state.appState,
    })
    return (await complete(request.params as CompleteParams, state, context)) as never
  })
  server.setRequestHandler('prompts/list', (request) =>
    listPage(
      'prompts',
      [...state.prompts.values()].map((p) => p.prompt),
      request.params?.cursor,
      state.pageSize,
    ),
  )
  server.setRequestHandler('prompts/get', async (request, ctx) => {
    const { name, arguments: args = {} } = request.params
    const entry = state.prompts.get(name)
    if (entry === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name} not found`)
    for (const arg of entry.prompt.arguments ?? []) {
      if (arg.required && typeof args[arg.name] !== 'string') {
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${name}: missing required argument "${arg.name}"`)
      }
    }
    return (await inRequestRounds(state, ctx, `prompts/get:${name}`, async (options) => {
      const context = { ...callContext(state, name, ctx, { ...options, server }), state: state.appState }
      return promptResult(entry.prompt, await entry.get(args as Record<string, string>, context))
    })) as never
  })
  serveTaskMethods(server, state)
  const unsubscribe = serveSubscriptions(server, state, log)
  live?.add(server)
  server.onclose = () => {
    endSession(server, opened)
    unsubscribe()
    live?.delete(server)
  }
  return server
}

/**
 * A factory for `serveStdio` and `createMcpHandler`. Cheap per call: the
 * snapshots are shared, only the SDK instance is new.
 */
export function sdkServerFactory(state: ServerState, options: FactoryOptions = {}): McpServerFactory {
  return () => createSdkServer(state, options)
}
