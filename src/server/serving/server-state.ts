/**
 * The serving state of one `Server`: the current tool, resource and prompt
 * snapshots, the backends bound per service, the listeners that announce
 * changes to connected clients, its tasks, and its requestState seal
 * (request-state.ts).
 */
import type { RequestStateCodec } from '@modelcontextprotocol/server'
import type { ToolTable } from '../../runtime/tool-table.ts'
import { Log, type LoggingOptions } from '../base/logging.ts'
import { RequestStateSeal, type StateBinding } from './request-state.ts'
import type { PromptEntry } from '../primitives/prompts.ts'
import type { ResourceEntry } from '../primitives/resources.ts'
import type { TemplateEntry } from '../primitives/resource-templates.ts'
import { TaskManager, type TaskOptions } from '../tasks/tasks.ts'
import type { Cluster } from '../cluster/cluster.ts'
import { isVisible, scopesOf, toolSet, type ListedTool, type ToolEntry, type ToolSet } from '../tools/tool-set.ts'
import {
  checkDiscoveryNames,
  DEFAULT_DISCOVERY,
  metaEntries,
  metaListings,
  searchMode,
  strictMeta,
  unwrapCall,
  type DiscoverySettings,
  type Unwrapped,
} from '../tools/discovery.ts'

export type { StateBinding } from './request-state.ts'

import type { ListKind } from '../base/list-kind.ts'
import { isRecord } from '../../contract/is-record.ts'
import { readCalledToolWith } from '../operate/called-tool.ts'

/** Re-applies one service's backend to a tool table that has the service (lenient: a table without it is skipped). */
export type Binder = (table: ToolTable) => void

/** The initial parts of a server state. */
export interface ServerStateParts {
  name: string
  version: string
  tools: readonly ToolEntry[]
  resources?: readonly ResourceEntry[]
  prompts?: readonly PromptEntry[]
  templates?: readonly TemplateEntry[]
  /** Items per page of the list methods. @default every item on one page */
  pageSize?: number
  features?: readonly string[]
  appState?: unknown
  requestStateKey?: Uint8Array | string
  /** Seconds a sealed requestState stays valid. @default 600 */
  requestStateTtlSeconds?: number
  /** Where the server's messages go (`Server.logging()`). @default stderr */
  logging?: LoggingOptions
  /** Tasks options (`tasks()`). @default a memory store, defaults of TaskOptions */
  tasks?: TaskOptions
  /** Tool discovery (`discovery()`, docs/guide/big-apis.md). @default `auto`, the default names */
  discovery?: DiscoverySettings
}

/** The state every transport of a server reads; every change swaps a snapshot and announces it. */
export class ServerState {
  readonly info: { name: string; version: string }
  /** Swapped whole (by `replaceAll`), never changed in place. */
  features: ReadonlySet<string>
  appState: unknown
  tools: ToolSet
  resources: ReadonlyMap<string, ResourceEntry>
  prompts: ReadonlyMap<string, PromptEntry>
  /** Resource templates by URI template, in order of addition (the first match reads). */
  templates: ReadonlyMap<string, TemplateEntry>
  /** Items per page of the list methods; swapped by `replaceAll` with the rest. */
  pageSize: number | undefined
  /** Backends bound with `implement()`, by full service name, re-applied after a tool replace. */
  readonly bindings = new Map<string, Binder>()
  /** The server's messages; each transport's own `Log` falls back on it. */
  readonly log: Log
  /** Each listener with the log of the transport that registered it. */
  readonly #listeners = new Map<(kind: ListKind) => void, Log>()
  /** The requestState key, its codec and the nonces already used. */
  readonly requestState: RequestStateSeal
  readonly #taskOptions: TaskOptions | undefined
  #tasks: TaskManager | undefined
  #discovery: DiscoverySettings = DEFAULT_DISCOVERY
  /** The meta-tools that answer themselves (search, describe), for the current names. */
  #meta: Map<string, ToolEntry> = new Map()
  /** Whether the last tools announced were served through the meta-tools (then a catalog change is not announced). */
  #announcedSearch = false

  constructor(parts: ServerStateParts) {
    // The operating hooks (rate limits, audit line) name a call's tool as the call runs it.
    readCalledToolWith(this, (params) => this.calledTool(params))
    this.info = { name: parts.name, version: parts.version }
    this.features = new Set(parts.features ?? [])
    this.appState = parts.appState
    this.tools = toolSet(parts.tools)
    this.resources = new Map((parts.resources ?? []).map((r) => [r.resource.uri, r]))
    this.prompts = new Map((parts.prompts ?? []).map((p) => [p.prompt.name, p]))
    this.templates = new Map((parts.templates ?? []).map((t) => [t.template.uriTemplate, t]))
    this.pageSize = parts.pageSize
    this.requestState = new RequestStateSeal(parts.requestStateKey, parts.requestStateTtlSeconds)
    this.log = new Log(parts.logging)
    this.#taskOptions = parts.tasks
    this.discovery = parts.discovery ?? DEFAULT_DISCOVERY
    this.#announcedSearch = this.searching
  }

  /** Tool discovery: how tools are listed (docs/guide/big-apis.md). Setting it checks the tools against the meta-tools' names. */
  get discovery(): DiscoverySettings {
    return this.#discovery
  }

  set discovery(settings: DiscoverySettings) {
    checkDiscoveryNames(settings, this.tools)
    this.#discovery = settings
    this.#meta = metaEntries(this)
  }

  /** Whether the current tools are served through the meta-tools (`search`, or `auto` over a big list). */
  get searching(): boolean {
    return searchMode(this.#discovery, this.tools)
  }

  /** Whether `entry` exists for the caller of `authInfo` (the one visibility check, for the meta-tools too). */
  visible(entry: ToolEntry, authInfo: unknown): boolean {
    return !this.tools.gated || isVisible(entry, scopesOf(authInfo), this.features)
  }

  /**
   * The name of the tool a `tools/call` with `params` runs, read before
   * anything checks the call (a rate limit's bucket, a step-up's scopes, the
   * audit line): in search mode the tool of this server a `call_tool` names
   * (a name of none stays the `call_tool`'s), else the one `params` name.
   */
  calledTool(params: unknown): string | undefined {
    if (!isRecord(params) || typeof params.name !== 'string') return undefined
    if (params.name !== this.#discovery.names.call || !this.searching) return params.name
    const args = params.arguments
    return isRecord(args) && typeof args.name === 'string' && this.tools.byName.has(args.name) ? args.name : params.name
  }

  /**
   * The tool a `tools/call` of `name` runs: `name` itself, or in search
   * mode the tool a `call_tool` call names (or its tool error).
   */
  unwrap(name: string, args: unknown, authInfo: unknown): Unwrapped {
    if (name !== this.#discovery.names.call || !this.searching) return { name, args }
    return unwrapCall(this, args, authInfo)
  }

  /** How often a long-running operation is read, and the poll interval tasks suggest (`tasks({ pollIntervalMs })`). */
  get pollIntervalMs(): number | undefined {
    return this.#taskOptions?.pollIntervalMs
  }

  /** The server's tasks (docs/serving.md, "Tasks"), made on first use: a server never asked for a task holds no store. */
  get tasks(): TaskManager {
    return (this.#tasks ??= this.#logged(new TaskManager(this.#taskOptions)))
  }

  /** `tasks`, its store's failures under requests told to this server's log. */
  #logged(tasks: TaskManager): TaskManager {
    tasks.onStoreError = (method, error) =>
      this.log.error(`${this.info.name}: ${method}: the task store failed: ${(error as Error)?.message ?? String(error)}`, error, 'tasks')
    return tasks
  }

  /**
   * Runs this server's tasks as instance `cluster.instanceId` of a fleet
   * (docs/cluster.md): in the cluster's task store unless `tasks({ store })`
   * chose one, each under a lease this instance renews while it runs it.
   */
  joinFleet(cluster: Cluster): TaskManager {
    if (this.#tasks === undefined) {
      this.#tasks = this.#logged(new TaskManager({ ...this.#taskOptions, store: this.#taskOptions?.store ?? cluster.tasks() }))
    } else if (this.#taskOptions?.store === undefined && this.#tasks.instance === undefined) {
      this.log.warn(`${this.info.name}: tasks were made before the cluster was given: they stay in this instance's memory`)
    }
    if (this.#tasks.instance === undefined) this.#tasks.joinFleet(cluster.instanceId)
    return this.#tasks
  }

  /**
   * The tool `name` as this caller sees it: `undefined` when unknown or
   * hidden (one predicate for both). A hidden one is noted as a warning on `log`.
   */
  lookupTool(name: string, authInfo: unknown, log: Log = this.log): ToolEntry | undefined {
    const set = this.tools
    const entry = set.byName.get(name)
    if (entry === undefined) return this.searching ? this.#meta.get(name) : undefined
    if (!set.gated || isVisible(entry, scopesOf(authInfo), this.features)) return entry
    log.warn(
      `${this.info.name}: call to tool "${name}" hidden from this caller (requires ${JSON.stringify(entry.requires)}), answered as unknown`,
    )
    return undefined
  }

  /** The `tools/list` answer for this caller, from one snapshot (wholly old or wholly new). */
  listTools(authInfo: unknown): readonly ListedTool[] {
    if (this.searching) return metaListings(this.#discovery.names, strictMeta(this.tools))
    const set = this.tools
    if (!set.gated) return set.listed
    const scopes = scopesOf(authInfo)
    const listed: ListedTool[] = []
    for (const entry of set.byName.values()) if (isVisible(entry, scopes, this.features)) listed.push(entry.listed)
    return listed
  }

  /** Swaps the tool snapshot and announces it; throws, keeping the old one, when a tool has a meta-tool's name. */
  setTools(set: ToolSet): void {
    checkDiscoveryNames(this.#discovery, set)
    this.tools = set
    this.announce('tools')
  }

  /** Registers a listener of list changes, its failures told to `log`; returns its removal. */
  onChange(listener: (kind: ListKind) => void, log: Log = this.log): () => void {
    this.#listeners.set(listener, log)
    return () => this.#listeners.delete(listener)
  }

  /** Tells every connected client that can receive it that `kind` changed. */
  announce(kind: ListKind): void {
    if (kind === 'tools') {
      // Served through the meta-tools before and after: their list did not change, whatever the catalog did (prompt caches keep).
      const searching = this.searching
      const unchanged = searching && this.#announcedSearch
      this.#announcedSearch = searching
      if (unchanged) return
    }
    for (const [listener, log] of this.#listeners) {
      try {
        listener(kind)
      } catch (error) {
        log.error(`${this.info.name}: announcing ${kind} list_changed: ${(error as Error).message}`, error, 'list_changed')
      }
    }
  }

  /** Whether the requestState key was given (a random one is not: no other instance has it). */
  get hasRequestStateKey(): boolean {
    return this.requestState.hasKey
  }

  /** Sets the requestState key a transport was given (`where` names it); refused when states are sealed with another one. */
  useRequestStateKey(key: Uint8Array | string, where: string): void {
    this.requestState.useKey(key, where)
  }

  /** The requestState codec (HMAC, the SDK's), bound to the caller's principal and session. */
  codec(): RequestStateCodec {
    return this.requestState.codec()
  }

  /** Seals `payload` into a `requestState` usable once, by `tool`, for the caller and session of `binding`. */
  sealState(payload: unknown, tool: string, binding: StateBinding): Promise<string> {
    return this.requestState.seal(payload, tool, binding)
  }

  /** The payload of a verified `requestState` sealed for `tool` and not used before; throws the `-32602` of a bad state otherwise. */
  openState(state: unknown, tool: string): unknown {
    return this.requestState.open(state, tool)
  }
}
