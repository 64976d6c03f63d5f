/**
 * `Server`: the default export of a `?mcp` module, or a server built with
 * `Server.builder(name)`. It binds backends, calls tools in process, serves
 * over stdio and Streamable HTTP with the MCP SDK, and changes while it
 * serves through its `ServerHandle`.
 */
import { bindBackend, type Backend } from '../runtime/backend.ts'
import { checkOptions, type OptionRule } from '../runtime/check-options.ts'
import { isRuntimeError, runtimeError } from '../runtime/errors.ts'
import { bindImplementation, compileToolTable, type ToolTable } from '../runtime/tool-table.ts'
import type { CallContext, ProtoServerSpec, ToolResult } from '../runtime/types.ts'
import type { Transport } from '@modelcontextprotocol/server'
import { ServerBuilder } from './builder.ts'
import { connectTransport, type Connection } from './transports/connect.ts'
import type { CheckedImplementation, ImplementationOf } from './tools/typed-implementation.ts'
import { SERVER_STATE, ServerHandle } from './handle.ts'
import type { FetchHandler } from './http/stateless-handler.ts'
import type { HttpHandle, McpNodeHandler, NodeHandlerOptions, ServeHttpOptions } from './http/http.ts'
import { checkAuth, checkNodeHandlerOptions, checkServeHttpOptions } from './http/http-options.ts'
import { applyClusterOptions, checkFetchHandlerOptions, type FetchHandlerOptions, type McpFetchHandler } from './cluster/cluster-options.ts'
import { LOGGING_RULES, type LoggingOptions } from './base/logging.ts'
import { noteBackend } from './operate/health.ts'
import { checkRateLimit, setRateLimit, type RateLimitOptions } from './operate/rate-limit.ts'
import { setTelemetry, TELEMETRY_RULES, type TelemetryOptions } from './operate/telemetry.ts'
import { loadHttp, loadStdio } from './transports/node-transports.ts'
import { principalOf } from './base/principal.ts'
import { ServerState } from './serving/server-state.ts'
import { dispatchCall } from './serving/tool-call.ts'
import type { ServeReport, ServeStdioOptions } from './stdio/stdio.ts'
import { protoEntries, type ListedTool } from './tools/tool-set.ts'
import { typeDetailEntries } from './tools/type-detail.ts'
import { protoTemplateEntries } from './primitives/proto-resources.ts'
import { jsonRpcErrorBody } from '../contract/json-rpc-error.ts'
import { discoverySettings } from './tools/discovery.ts'
import { protoPromptEntries } from './primitives/prompts.ts'
import type { AuthOptions } from '../contract/auth-options.ts'

export type { Connection } from './transports/connect.ts'
export type { ErrorSource, Logger, LoggingOptions } from './base/logging.ts'
export type { HttpHandle, McpNodeHandler, NodeHandlerOptions, ServeHttpOptions } from './http/http.ts'
export type { ClusterOptions, FetchHandlerOptions, McpFetchHandler } from './cluster/cluster-options.ts'
export type {
  Cluster,
  ClusterEventStore,
  ClusterListeners,
  ClusterMessage,
  EventLimits,
  FleetEvent,
  JsonValue,
  SessionRecord,
  StoredEvent,
  StreamRequest,
  StreamTail,
} from './cluster/cluster.ts'
export { memoryCluster, memoryFleet, type MemoryClusterOptions, type MemoryFleetOptions } from './cluster/memory-cluster.ts'
export type { MemoryFleet } from './cluster/memory-cluster.ts'
export type { AuthOptions, IntrospectionResult } from '../contract/auth-options.ts'
export type { ServeReport, ServeStdioOptions } from './stdio/stdio.ts'
export type { CallResult, InputRequiredResult, ListedTool, ToolRequirements } from './tools/tool-set.ts'
export type { ToolContext, ToolDefinition, ToolHandler } from './tools/hand-written-tool.ts'
export type { PromptDefinition, PromptGetter, PromptMessage, PromptOptions } from './primitives/prompts.ts'
export type { ResourceContents, ResourceDefinition, ResourceReader } from './primitives/resources.ts'
export type {
  ResourceTemplateDefinition,
  ResourceTemplateOptions,
  TemplateReader,
  TemplateVariables,
} from './primitives/resource-templates.ts'
export type { Completer } from './primitives/completer.ts'
export type { ToolWithHandler } from './handle.ts'
export { ServerHandle } from './handle.ts'
export { ServerBuilder } from './builder.ts'
export { MemoryTaskStore, TaskLimitError, isTerminal } from './cluster/task-store.ts'
export type {
  MemoryTaskStoreOptions,
  StoredTask,
  TaskChange,
  TaskError,
  TaskInputRequest,
  TaskStatus,
  TaskStore,
} from './cluster/task-store.ts'
export { TASKS_EXTENSION } from './tasks/tasks.ts'
export type { TaskOptions, TaskSupport } from './tasks/tasks.ts'

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

/** Options of `server.fetch(request, options)`. */
export interface FetchOptions {
  /** The request's auth info, verified by your own code in front. Not with `auth`. */
  authInfo?: unknown
  /**
   * Bearer-token authorization (docs/serving.md, "Authorization"), `resource` required.
   * Pass the same object on every call (a module constant): its verified
   * issuers and cached JWKS live with it.
   */
  auth?: AuthOptions
}

/**
 * An MCP server: the default export of a `?mcp` module, or one built with
 * `Server.builder(name)`. `S` maps service names (short and full) to their
 * implementation types, as generated declarations spell them; untyped, any
 * object is accepted.
 */
export class Server<S extends Record<string, object> = Record<string, object>> {
  readonly [SERVER_STATE]: ServerState
  #fetch: Promise<FetchHandler> | undefined
  /** `fetch()`'s gated handler per `auth` object. */
  readonly #guarded = new WeakMap<AuthOptions, Promise<(request: Request) => Promise<Response>>>()

  /** Not for users: a `Server` comes from `Server.builder(name)` or a `?mcp` import. */
  constructor(state: ServerState) {
    if (!(state instanceof ServerState))
      throw runtimeError('BAD_SPEC', 'a Server is made with Server.builder(name) or by importing a ".proto?mcp" module')
    this[SERVER_STATE] = state
  }

  /** Starts a builder for a server of hand-written tools, resources, prompts and included `?mcp` servers. */
  static builder(name: string): ServerBuilder<undefined, Server> {
    return new ServerBuilder(name, (state) => new Server(state))
  }

  /** `serverInfo.name`. */
  get name(): string {
    return this[SERVER_STATE].info.name
  }

  /** `serverInfo.version`. */
  get version(): string {
    return this[SERVER_STATE].info.version
  }

  /**
   * Binds `bind` on every tool table that has `service`, and records it so a
   * later `replaceTools` can re-apply it to the new tables. Throws the lookup
   * error when no table has the service.
   */
  #bindService(service: string, bind: (table: ToolTable, service: string, again: boolean) => string): void {
    const state = this[SERVER_STATE]
    let full: string | undefined
    let missing: unknown
    for (const table of state.tools.tables) {
      try {
        full = bind(table, service, false)
      } catch (error) {
        if (!isRuntimeError(error, 'UNKNOWN_SERVICE')) throw error
        missing ??= error
      }
    }
    if (full === undefined) throw missing ?? runtimeError('UNKNOWN_SERVICE', `unknown service "${service}": this server has no services`)
    const name = full
    state.bindings.set(name, (table) => {
      try {
        bind(table, name, true)
      } catch (error) {
        if (!isRuntimeError(error, 'UNKNOWN_SERVICE')) throw error
      }
    })
  }

  /**
   * Binds an in-process implementation of a service, given by short
   * (`VibeService`) or full name (`examples.v1.VibeService`). Its methods are
   * keyed by RPC name (`SetVibe`) or lowerCamel (`setVibe`), each
   * `(request, context) => response | Promise<response>`. Throws on an
   * unknown service or method name. Binding again replaces the backend; a
   * `replaceTools` keeps it bound on the new tools of the service (unless
   * the server they come from bound the service itself). With
   * generated types, each handler's request and reply are checked (an
   * unknown key in a reply is a type error).
   */
  implement<K extends keyof S & string, I extends ImplementationOf<S[K]>>(service: K, impl: I & CheckedImplementation<I, S[K]>): this {
    // Strict now (a typo in a method name throws); lenient when re-applied after the proto changed.
    const log = this[SERVER_STATE].log
    this.#bindService(service, (table, name, again) =>
      bindImplementation(table, name, impl, { lenient: again, onUnknown: (message) => log.warn(`${this.name}: ${message}`) }),
    )
    return this
  }

  /**
   * Forwards a service's calls (short or full name) to a backend:
   * `grpc(target)` or `grpcImplementation(handlers)` from
   * `unplugin-proto-mcp/grpc`. Binding again replaces the backend.
   */
  forward(service: keyof S & string, backend: Backend): this {
    this.#bindService(service, (table, name) => bindBackend(table, name, backend))
    noteBackend(this[SERVER_STATE], backend)
    return this
  }

  /**
   * The tools as clients list them (`name`, `description`, `inputSchema`,
   * `outputSchema` where structured); with `context.authInfo`, as that caller sees them.
   */
  listTools(context?: Partial<CallContext>): ListedTool[] {
    return this[SERVER_STATE].listTools(context?.authInfo).map((tool) => ({ ...tool }))
  }

  /**
   * Calls a tool in process: the same result as over the wire. An unknown
   * tool, or one hidden from this caller, rejects with a protocol error
   * whose `code` is `-32602`.
   */
  call(name: string, args?: unknown, context?: Partial<CallContext>): Promise<ToolResult> {
    const state = this[SERVER_STATE]
    // A hand-written tool's `input_required` result comes back as is (see `InputRequiredResult`).
    const principal = principalOf(context?.authInfo, undefined)
    return dispatchCall(state, name, args, {
      sealRequestState: (payload) => state.sealState(payload, name, { principal }),
      ...context,
      tool: name,
    }) as Promise<ToolResult>
  }

  /**
   * Where the server's messages go (docs/serving.md, "Logging"): `logger` receives
   * its warnings and errors (`false` silences them), `onError(error, where)`
   * every error a transport reports or a listener throws. Replaces the
   * options given before; a transport's own `logger`/`onError` win over
   * these. @default one line on stderr per message
   */
  logging(options: LoggingOptions): this {
    checkOptions('logging()', options, LOGGING_RULES)
    this[SERVER_STATE].log.set(options ?? {})
    return this
  }

  /**
   * Limits tool calls (docs/guide/production.md): token buckets per caller
   * (the verified principal, else the session, else the client's address),
   * per tool and for the whole server, each `{ rate, burst }` or a number
   * of calls per second. Over HTTP a refused call is `429` with
   * `Retry-After`; over stdio a JSON-RPC error (`-32029`) with the retry
   * time. Per instance. Replaces the limits given before; `{}` removes them.
   */
  rateLimit(options: RateLimitOptions): this {
    checkRateLimit('rateLimit()', options)
    setRateLimit(this[SERVER_STATE], options)
    return this
  }

  /**
   * What the OpenTelemetry instrumentation records beyond the conventions'
   * attributes (docs/guide/production.md): a tool call's arguments and
   * result, as span attributes. Spans and metrics need a registered SDK.
   */
  telemetry(options: TelemetryOptions): this {
    checkOptions('telemetry()', options, TELEMETRY_RULES)
    setTelemetry(this[SERVER_STATE], options)
    return this
  }

  /** A handle that adds, removes and replaces tools, resources and prompts while the server serves. */
  handle<State = unknown>(): ServerHandle<State> {
    return new ServerHandle<State>(this[SERVER_STATE])
  }

  /**
   * Connects this server to a transport you made (the SDK's
   * `InMemoryTransport`, a custom one): one SDK instance, told of list
   * changes like a stdio client. Resolves with the connection to close.
   */
  connect(transport: Transport): Promise<Connection> {
    return connectTransport(this[SERVER_STATE], transport)
  }

  /** Serves on stdio until stdin closes, answering both protocol eras; resolves with a report. */
  async serveStdio(options?: ServeStdioOptions): Promise<ServeReport> {
    return (await loadStdio()).serveOverStdio(this[SERVER_STATE], options)
  }

  /** Serves Streamable HTTP (default `http://127.0.0.1:3000/mcp`) for both eras; resolves once listening. */
  async serveHttp(options?: ServeHttpOptions): Promise<HttpHandle> {
    checkServeHttpOptions(options)
    applyClusterOptions('serveHttp()', this[SERVER_STATE], options)
    return (await loadHttp()).serveOverHttp(this[SERVER_STATE], options)
  }

  /**
   * A Node `(req, res, next?)` handler serving this server (both eras,
   * sessions, Host/Origin guards, body limit) for mounting on an existing
   * HTTP server or connect/Express app, e.g. Vite's `server.middlewares.use('/mcp', h)`.
   * With `path`, other paths go to `next()` (404 without one); mounted
   * under a prefix (connect strips it from `req.url`), leave `path` out.
   * `req.auth` (set by an auth middleware) is the requests' auth info. Call
   * `close()` on it to end its sessions.
   */
  nodeHandler(options?: NodeHandlerOptions): McpNodeHandler {
    checkNodeHandlerOptions(options)
    applyClusterOptions('nodeHandler()', this[SERVER_STATE], options)
    return lazyNodeHandler(this[SERVER_STATE], options)
  }

  /**
   * Answers one web-standard request (Node, Bun, Deno, Workers), statelessly:
   * 2026-07-28 requests and initialize-era requests alike, no sessions. No
   * Host/Origin check: put it behind your own. Instances share only the
   * requestState key (`Server.builder(...).requestStateKey(key)`). With
   * `auth`, it also answers the protected-resource metadata and verifies
   * bearer tokens (docs/serving.md, "Authorization").
   */
  fetch(request: Request, options?: FetchOptions): Promise<Response> {
    // Loaded on first use: a server on stdio or Node HTTP never parses the web handler.
    const state = this[SERVER_STATE]
    this.#fetch ??= import('./http/stateless-handler.ts').then((http) => http.createFetchHandler(state))
    const auth = options?.auth
    if (auth === undefined) return this.#fetch.then((handle) => handle(request, options))
    let guarded = this.#guarded.get(auth)
    if (guarded === undefined) {
      try {
        checkOptions('fetch()', options, FETCH_RULES)
        checkAuth('fetch()', auth, true)
        if (options?.authInfo !== undefined)
          throw runtimeError('BAD_OPTION', 'fetch(): pass auth or authInfo, not both: with auth the server verifies the token itself')
      } catch (error) {
        return Promise.reject(error)
      }
      const handler = this.#fetch
      guarded = import('./http/http-auth.ts').then(async (gated) =>
        gated.guardFetch(gated.createAuthGate(state, auth, state.log), await handler),
      )
      this.#guarded.set(auth, guarded)
    }
    return guarded.then((handle) => handle(request))
  }

  /**
   * A web-standard handler like `fetch()` with options of its own: a
   * `cluster` its 2026-07-28 listen streams hear every instance's changes
   * through and its tasks live in (docs/cluster.md), the
   * `requestStateKey`, `auth` (docs/serving.md, "Authorization"), its `logger` and `onError`. Stateless like `fetch()`: no sessions. `close()` ends its
   * listen streams and leaves the cluster.
   */
  fetchHandler(options?: FetchHandlerOptions): McpFetchHandler {
    checkFetchHandlerOptions(options)
    checkAuth('fetchHandler()', options?.auth, true)
    const state = this[SERVER_STATE]
    applyClusterOptions('fetchHandler()', state, options)
    const auth = options?.auth
    const created = import('./http/stateless-handler.ts').then(async (http) => {
      const links = http.fetchLinks(state, options ?? {})
      const handle = http.createFetchHandler(state, links)
      if (auth === undefined) return { links, handle, gate: undefined }
      // As fetch(request, { auth }): the gate in front, the token no further than it.
      const gated = await import('./http/http-auth.ts')
      const gate = gated.createAuthGate(state, auth, links.log)
      return { links, gate, handle: gated.guardFetch(gate, handle) }
    })
    // Not an unhandled rejection before the first request: that request reports it.
    created.catch(() => {})
    const handler = ((request, init) => created.then(({ handle }) => handle(request, init))) as McpFetchHandler
    handler.ready = () =>
      created.then(async (made) => {
        await made.links.ready()
        await made.gate?.ready()
      })
    handler.close = () => created.then(({ links }) => links.close())
    return handler
  }

  /** `Server(name@version, N tools)`. */
  toString(): string {
    const n = this[SERVER_STATE].tools.byName.size
    return `Server(${this.name}@${this.version}, ${n} ${n === 1 ? 'tool' : 'tools'})`
  }

  /** Printing a server shows its name, version and tool count only. */
  [INSPECT](): string {
    return this.toString()
  }
}

/** The options of `fetch()`. */
export const FETCH_RULES: Record<'authInfo' | 'auth', OptionRule> = {
  authInfo: { accepts: 'auth info', test: () => true },
  auth: { accepts: 'an object', test: () => true },
}

/**
 * A Node handler that loads the HTTP transport on first use (see
 * node-transports.ts); requests that arrive before it loads wait for it.
 */
function lazyNodeHandler(state: ServerState, options: NodeHandlerOptions | undefined): McpNodeHandler {
  let loaded: McpNodeHandler | undefined
  const ready = loadHttp().then((http) => (loaded = http.createNodeHandler(state, options)))
  // Not an unhandled rejection before the first request: that request reports it.
  ready.catch(() => {})
  const handler = ((req, res, next) => {
    if (loaded) return loaded(req, res, next)
    ready.then(
      (h) => h(req, res, next),
      (error: unknown) => {
        if (next) return next(error)
        res.writeHead(500, { 'content-type': 'application/json' })
        res.end(JSON.stringify(jsonRpcErrorBody(-32000, (error as Error).message)))
      },
    )
  }) as McpNodeHandler
  Object.defineProperty(handler, 'sessionCount', { get: () => loaded?.sessionCount ?? 0 })
  handler.close = async () => (await ready).close()
  return handler
}

/**
 * Builds the `Server` of a generated `?mcp` module from its spec, compiling
 * the tool table once (`unplugin-proto-mcp/codegen-v1`; the command and the
 * gateway use it too).
 */
export function createProtoServer<S extends Record<string, object> = Record<string, object>>(spec: ProtoServerSpec): Server<S> {
  const tools = protoEntries(compileToolTable(spec))
  const detail = spec.types === undefined ? undefined : typeDetailEntries(spec.name, spec.types)
  return new Server<S>(
    new ServerState({
      name: spec.name,
      version: spec.version,
      tools: detail === undefined ? tools : [...tools, detail.tool],
      ...(detail === undefined ? {} : { resources: detail.resources }),
      ...(spec.prompts === undefined ? {} : { prompts: protoPromptEntries(spec.prompts) }),
      ...(spec.resources === undefined ? {} : { templates: protoTemplateEntries(spec.resources) }),
      discovery: discoverySettings(spec.discovery, `server "${spec.name}"`),
    }),
  )
}
