/**
 * `Server.builder(name)`: a server of hand-written tools, resources and
 * prompts, typed shared state, and the tools of included `?mcp` servers.
 */
import { DEFAULT_SERVER_VERSION } from '../contract/defaults.ts'
import { checkOptions, integerRule, showValue, type OptionRule } from '../runtime/check-options.ts'
import { runtimeError } from '../runtime/errors.ts'
import { handWrittenToolEntry, type ToolDefinition, type ToolHandler } from './tools/hand-written-tool.ts'
import { serverStateOf } from './handle.ts'
import { LOGGING_RULES, type LoggingOptions } from './base/logging.ts'
import { checkPageSize } from './primitives/pagination.ts'
import {
  checkTemplate,
  type ResourceTemplateDefinition,
  type ResourceTemplateOptions,
  type TemplateEntry,
  type TemplateReader,
} from './primitives/resource-templates.ts'
import { checkPrompt, type PromptDefinition, type PromptEntry, type PromptGetter, type PromptOptions } from './primitives/prompts.ts'
import { checkResource, type ResourceDefinition, type ResourceEntry, type ResourceReader } from './primitives/resources.ts'
import type { Completer } from './primitives/completer.ts'
import { ServerState, type Binder } from './serving/server-state.ts'
import { checkTaskOptions, type TaskOptions } from './tasks/tasks.ts'
import { adoptEntries, type ToolEntry } from './tools/tool-set.ts'
import { mergeTypeTools, typeResources } from './tools/type-detail.ts'
import { DEFAULT_REQUEST_STATE_TTL_S } from './serving/limits.ts'
import { DEFAULT_DISCOVERY, discoverySettings, type DiscoverySettings } from './tools/discovery.ts'
import type { DiscoveryMode, DiscoveryNames } from '../contract/discovery.ts'
import { CLUSTER_RULES } from './cluster/cluster-options.ts'

/** The options of `requestStateKey(key, options)`, with their defaults (the docs show them: test/option-docs.test.ts). */
export const REQUEST_STATE_KEY_RULES: Record<'ttlSeconds', OptionRule> = {
  ttlSeconds: { ...integerRule(1), default: DEFAULT_REQUEST_STATE_TTL_S },
}

/**
 * Builds a server step by step; every step is optional (a server with no
 * tools is a real state). Tool schemas are compiled as each tool is added.
 */
export class ServerBuilder<State = undefined, Built = unknown> {
  readonly #name: string
  readonly #make: (state: ServerState) => Built
  #version = DEFAULT_SERVER_VERSION
  #appState: unknown
  readonly #tools: Array<{ entry: ToolEntry; from: string }> = []
  readonly #resources: ResourceEntry[] = []
  /** The type-detail resources of included servers (they follow their type tools). */
  readonly #typeResources: ResourceEntry[] = []
  readonly #prompts: PromptEntry[] = []
  readonly #templates: TemplateEntry[] = []
  /** Who added each resource, template and prompt (`resource()`, `include(name)`): a clash names both. */
  readonly #sources = new Map<object, string>()
  #pageSize: number | undefined
  readonly #features = new Set<string>()
  readonly #bindings = new Map<string, Binder>()
  #key: Uint8Array | string | undefined
  #ttl: number | undefined
  #logging: LoggingOptions | undefined
  #tasks: TaskOptions | undefined
  #discovery: DiscoverySettings = DEFAULT_DISCOVERY
  // Handlers read the state of the built server, which exists only after build().
  readonly #ref: { state?: ServerState } = {}

  /** Use `Server.builder(name)`. */
  constructor(name: string, make: (state: ServerState) => Built) {
    if (typeof name !== 'string' || name === '') throw runtimeError('BAD_SPEC', 'a server needs a non-empty name')
    this.#name = name
    this.#make = make
  }

  /** `serverInfo.version`. @default '0.0.0' */
  version(version: string): this {
    this.#version = version
    return this
  }

  /** Shared state every handler receives as `context.state`, typed from here on. */
  state<T>(value: T): ServerBuilder<T, Built> {
    this.#appState = value
    return this as unknown as ServerBuilder<T, Built>
  }

  /** Switches server features on; a tool with `requires.features` exists only when all of them are on. */
  features(...names: string[]): this {
    for (const name of names) this.#features.add(name)
    return this
  }

  /**
   * The HMAC key sealing `requestState` (at least 32 bytes). Instances of
   * the same server behind a load balancer share it. @default 32 random bytes at serve time
   */
  requestStateKey(key: Uint8Array | string, options: { ttlSeconds?: number } = {}): this {
    // The same rule as serveHttp()'s `requestStateKey` option: an HMAC key shorter than its hash is a weak one.
    const rule = CLUSTER_RULES.requestStateKey
    if (!rule.test(key)) throw runtimeError('BAD_OPTION', `requestStateKey(): the key must be ${rule.accepts}, got ${showValue(key)}`)
    checkOptions('requestStateKey()', options, REQUEST_STATE_KEY_RULES)
    this.#key = key
    this.#ttl = options.ttlSeconds
    return this
  }

  /**
   * Where the built server's messages go (docs/serving.md, "Logging"): `logger`
   * receives its warnings and errors (`false` silences them), `onError(error, where)`
   * every error a transport reports or a listener throws. @default one line on stderr per message
   */
  logging(options: LoggingOptions): this {
    checkOptions('logging()', options, LOGGING_RULES)
    this.#logging = options
    return this
  }

  /**
   * How the server runs tools as tasks (the Tasks extension, docs/serving.md, "Tasks"):
   * where tasks live (`store`, a memory store bounded by `maxTasks` and
   * `maxBytes` by default), how long they are kept (`ttlMs`), the poll
   * interval suggested (`pollIntervalMs`), and how long a call may take
   * before it becomes a task (`startAfterMs`).
   */
  tasks(options: TaskOptions): this {
    checkTaskOptions(options)
    this.#tasks = options
    return this
  }

  /**
   * Adds a hand-written tool. Its JSON Schema (2020-12) is compiled now:
   * a bad schema throws here, naming the tool and the schema path.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hand-written tool's arguments are typed by its handler
  tool<Args = any>(tool: ToolDefinition, handler: ToolHandler<State, Args>): this {
    const ref = this.#ref
    const entry = handWrittenToolEntry(tool, handler as ToolHandler<unknown>, () => ref.state?.appState)
    this.#tools.push({ entry, from: 'tool()' })
    return this
  }

  /**
   * How the server's tools are listed (docs/guide/big-apis.md): `tools` lists
   * every tool, `search` lists the meta-tools `search_tools`, `describe_tool`
   * and `call_tool` (named by `names`) instead, `auto` lists tools while there
   * are at most 40 costing at most 30,000 tokens, else the meta-tools.
   * Without it the first `include()`d server that was told a mode gives its own.
   * @default 'auto'
   */
  discovery(mode: DiscoveryMode, names?: Partial<DiscoveryNames>): this {
    this.#discovery = discoverySettings(names === undefined ? { mode } : { mode, names }, 'discovery()')
    return this
  }

  /** Adds a resource read by `read` (a string return is its text). */
  resource(resource: ResourceDefinition, read: ResourceReader<State>): this {
    this.#resources.push(this.#from('resource()', checkResource(resource, read)))
    return this
  }

  /**
   * Adds a resource template: `read` receives each URI the template matches
   * with its variables (a string return is its text); `options.complete`
   * suggests values for its variables.
   */
  resourceTemplate(template: ResourceTemplateDefinition, read: TemplateReader<State>, options?: ResourceTemplateOptions<State>): this {
    this.#templates.push(this.#from('resourceTemplate()', checkTemplate(template, read, options)))
    return this
  }

  /**
   * Adds a prompt answered by `get` (a string return is one user message);
   * `options.complete` suggests values for its arguments.
   */
  prompt(prompt: PromptDefinition, get: PromptGetter<State>, options?: PromptOptions<State>): this {
    this.#prompts.push(this.#from('prompt()', checkPrompt(prompt, get, options)))
    return this
  }

  /**
   * Pages the list methods (`tools/list`, `resources/list`,
   * `resources/templates/list`, `prompts/list`) at `size` items, with a
   * `nextCursor` to the next page. @default every item on one page
   */
  pageSize(size: number): this {
    this.#pageSize = checkPageSize(size)
    return this
  }

  #from<T extends object>(from: string, entry: T): T {
    if (!this.#sources.has(entry)) this.#sources.set(entry, from)
    return entry
  }

  /**
   * Includes the tools of one or more servers (`?mcp` default exports), with
   * the backends bound on them so far, their resources, resource templates
   * and prompts (hand-written or from the proto; their handlers still see
   * their own server's `state`), and their type detail: the type tools of
   * one name (`describe_type`) become one tool answering for every included
   * server, and their resources come along. Other name and URI collisions
   * fail `build()`, naming both sources.
   */
  include(...servers: object[]): this {
    for (const server of servers) {
      const state = serverStateOf(server)
      if (state === undefined) throw runtimeError('BAD_SPEC', 'include() takes Servers (the default export of a ?mcp module)')
      const from = `include(${state.info.name})`
      for (const entry of adoptEntries(state.tools.byName.values())) this.#tools.push({ entry, from })
      this.#typeResources.push(...typeResources(state.resources.values()).map((r) => this.#from(from, r)))
      // Handlers of the included server read its own state, as its tools do.
      const own = <C extends { state: unknown }>(context: C): C => ({ ...context, state: state.appState })
      const completers = (complete: Readonly<Record<string, Completer<unknown>>> | undefined) =>
        complete &&
        Object.fromEntries(
          Object.entries(complete).map(([name, c]) => [
            name,
            (value: string, ctx: Parameters<Completer<unknown>>[1]) => c(value, own(ctx)),
          ]),
        )
      for (const r of state.resources.values()) {
        if (r.typeDetail) continue
        this.#resources.push(
          this.#from(from, { ...r, read: (uri: string, ctx: Parameters<ResourceReader<unknown>>[1]) => r.read(uri, own(ctx)) }),
        )
      }
      for (const t of state.templates.values()) {
        const read: TemplateReader<unknown> = (uri, vars, ctx) => t.read(uri, vars, own(ctx))
        this.#templates.push(this.#from(from, { ...t, read, complete: completers(t.complete) ?? {} }))
      }
      for (const p of state.prompts.values()) {
        const get: PromptGetter<unknown> = (args, ctx) => p.get(args, own(ctx))
        const complete = completers(p.complete)
        this.#prompts.push(this.#from(from, { prompt: p.prompt, get, ...(complete ? { complete } : {}) }))
      }
      for (const [service, bind] of state.bindings) if (!this.#bindings.has(service)) this.#bindings.set(service, bind)
      if (!this.#discovery.given && state.discovery.given) this.#discovery = state.discovery
    }
    return this
  }

  /** Builds the server; throws when two tools, resources or prompts share a name. */
  build(): Built {
    const tools = mergeTypeTools(
      this.#tools,
      (t) => t.entry,
      (entry, first) => ({ entry, from: first.from }),
    )
    const seen = new Map<string, string>()
    for (const { entry, from } of tools) {
      const name = entry.listed.name
      const before = seen.get(name)
      if (before !== undefined) {
        throw runtimeError('BAD_SPEC', `tool "${name}" is defined twice, by ${before} and by ${from}: tool names must be unique`)
      }
      seen.set(name, from)
    }
    const unique = <T extends object>(items: T[], key: (item: T) => string, what: string): void => {
      const first = new Map<string, T>()
      for (const item of items) {
        const before = first.get(key(item))
        if (before !== undefined) {
          const by = `by ${this.#sources.get(before) ?? 'include()'} and by ${this.#sources.get(item) ?? 'include()'}`
          throw runtimeError(
            'BAD_SPEC',
            `${what} "${key(item)}" is defined twice, ${by}: ${what} ${what === 'prompt' ? 'names' : 'URIs'} must be unique`,
          )
        }
        first.set(key(item), item)
      }
    }
    // Two included servers of one name share their type resources' URIs: the first one's answer.
    const resources = [...this.#resources, ...typeResources(this.#typeResources)]
    unique(resources, (r) => r.resource.uri, 'resource')
    unique(this.#prompts, (p) => p.prompt.name, 'prompt')
    unique(this.#templates, (t) => t.template.uriTemplate, 'resource template')
    const state = new ServerState({
      name: this.#name,
      version: this.#version,
      tools: tools.map((t) => t.entry),
      resources,
      prompts: this.#prompts,
      templates: this.#templates,
      ...(this.#pageSize === undefined ? {} : { pageSize: this.#pageSize }),
      features: [...this.#features],
      appState: this.#appState,
      ...(this.#key === undefined ? {} : { requestStateKey: this.#key }),
      ...(this.#ttl === undefined ? {} : { requestStateTtlSeconds: this.#ttl }),
      ...(this.#logging === undefined ? {} : { logging: this.#logging }),
      ...(this.#tasks === undefined ? {} : { tasks: this.#tasks }),
      discovery: this.#discovery,
    })
    for (const [service, bind] of this.#bindings) state.bindings.set(service, bind)
    this.#ref.state = state
    return this.#make(state)
  }
}
