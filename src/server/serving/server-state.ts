/**
 * The serving state of one `Server`: the current tool, resource and prompt
 * snapshots, the backends bound per service, the listeners that announce
 * changes to connected clients, and the requestState key.
 */
import { createRequestStateCodec, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { RequestStateCodec } from '@modelcontextprotocol/server'
import type { ToolTable } from '../../runtime/tool-table.ts'
import type { CallContext } from '../../runtime/types.ts'
import { runtimeError } from '../../runtime/errors.ts'
import { toBase64url } from './base64url.ts'
import { DEFAULT_REQUEST_STATE_TTL_S } from './limits.ts'
import { Log, type LoggingOptions } from './logging.ts'
import { principalOf } from './principal.ts'
import type { PromptEntry, ResourceEntry } from '../primitives/resources.ts'
import type { TemplateEntry } from '../primitives/resource-templates.ts'
import { TaskManager, type TaskOptions } from '../tasks/tasks.ts'
import type { Cluster } from '../cluster/cluster.ts'
import { isVisible, scopesOf, toolSet, type CallResult, type ListedTool, type ToolEntry, type ToolSet } from '../tools/tool-set.ts'

/** Which list changed. */
export type ListKind = 'tools' | 'resources' | 'prompts'

/** Re-applies one service's backend to a tool table that has the service (lenient: a table without it is skipped). */
export type Binder = (table: ToolTable) => void

/** The JSON-RPC `-32602` error of a tool this caller does not have (unknown or hidden: the same error). */
export function unknownToolError(name: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`)
}

/** What a `requestState` is bound to: the SDK context's auth info, headers and session, or a principal given directly (in process). */
export interface StateBinding {
  principal?: string
  sessionId?: string
  http?: { authInfo?: unknown; req?: { headers: Headers } }
}

/** The envelope payload of a `requestState`: the handler's payload, the tool, a nonce and the expiry (ms). */
interface SealedState {
  v: unknown
  t: string
  n: string
  e: number
}

/** Whether two requestState keys are the same bytes. */
function sameKey(a: Uint8Array | string, b: Uint8Array | string): boolean {
  const bytes = (key: Uint8Array | string): Uint8Array => (typeof key === 'string' ? new TextEncoder().encode(key) : key)
  const x = bytes(a)
  const y = bytes(b)
  return x.length === y.length && x.every((byte, i) => byte === y[i])
}

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
  state?: unknown
  requestStateKey?: Uint8Array | string
  /** Seconds a sealed requestState stays valid. @default 600 */
  requestStateTtlSeconds?: number
  /** Where the server's messages go (`Server.logging()`). @default stderr */
  logging?: LoggingOptions
  /** Tasks options (`tasks()`). @default a memory store, defaults of TaskOptions */
  tasks?: TaskOptions
}

/** The state every transport of a server reads; every change swaps a snapshot and announces it. */
export class ServerState {
  readonly info: { name: string; version: string }
  /** Swapped whole (by `replaceAll`), never changed in place. */
  features: ReadonlySet<string>
  state: unknown
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
  #key: Uint8Array | string | undefined
  #randomKey = false
  readonly #ttl: number | undefined
  #codec: RequestStateCodec | undefined
  /** Nonces of the requestStates already used, until they expire. */
  readonly #used = new Map<string, number>()
  readonly #taskOptions: TaskOptions | undefined
  #tasks: TaskManager | undefined

  constructor(parts: ServerStateParts) {
    this.info = { name: parts.name, version: parts.version }
    this.features = new Set(parts.features ?? [])
    this.state = parts.state
    this.tools = toolSet(parts.tools)
    this.resources = new Map((parts.resources ?? []).map((r) => [r.resource.uri, r]))
    this.prompts = new Map((parts.prompts ?? []).map((p) => [p.prompt.name, p]))
    this.templates = new Map((parts.templates ?? []).map((t) => [t.template.uriTemplate, t]))
    this.pageSize = parts.pageSize
    this.#key = parts.requestStateKey
    this.#ttl = parts.requestStateTtlSeconds
    this.log = new Log(parts.logging)
    this.#taskOptions = parts.tasks
  }

  /** How often a long-running operation is read, and the poll interval tasks suggest (`tasks({ pollIntervalMs })`). */
  get pollIntervalMs(): number | undefined {
    return this.#taskOptions?.pollIntervalMs
  }

  /** The server's tasks (docs/serving.md §11), made on first use: a server never asked for a task holds no store. */
  get tasks(): TaskManager {
    return (this.#tasks ??= new TaskManager(this.#taskOptions))
  }

  /**
   * Runs this server's tasks as instance `cluster.instanceId` of a fleet
   * (docs/serving.md §12): in the cluster's task store unless `tasks({ store })`
   * chose one, each under a lease this instance renews while it runs it.
   */
  joinFleet(cluster: Cluster): TaskManager {
    if (this.#tasks === undefined) {
      this.#tasks = new TaskManager({ ...this.#taskOptions, store: this.#taskOptions?.store ?? cluster.tasks() })
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
    if (entry === undefined) return undefined
    if (!set.gated || isVisible(entry, scopesOf(authInfo), this.features)) return entry
    log.warn(
      `${this.info.name}: call to tool "${name}" hidden from this caller (requires ${JSON.stringify(entry.requires)}), answered as unknown`,
    )
    return undefined
  }

  /** The `tools/list` answer for this caller, from one snapshot (wholly old or wholly new). */
  listTools(authInfo: unknown): readonly ListedTool[] {
    const set = this.tools
    if (!set.gated) return set.listed
    const scopes = scopesOf(authInfo)
    const listed: ListedTool[] = []
    for (const entry of set.byName.values()) if (isVisible(entry, scopes, this.features)) listed.push(entry.listed)
    return listed
  }

  /** Calls a tool on the snapshot current when the call starts; rejects with `-32602` for an unknown or hidden tool. */
  dispatch(name: string, args: unknown, context: CallContext): Promise<CallResult> {
    const entry = this.lookupTool(name, context.authInfo)
    if (entry === undefined) return Promise.reject(unknownToolError(name))
    return entry.call(args, context)
  }

  /** Swaps the tool snapshot and announces it. */
  setTools(set: ToolSet): void {
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
    return this.#key !== undefined && !this.#randomKey
  }

  /** Sets the requestState key a transport was given (`where` names it); refused when states are sealed with another one. */
  useRequestStateKey(key: Uint8Array | string, where: string): void {
    if (this.#key !== undefined && !sameKey(this.#key, key) && (this.#codec !== undefined || !this.#randomKey)) {
      throw runtimeError(
        'BAD_OPTION',
        `${where}: option "requestStateKey" differs from the key this server already seals requestState with`,
      )
    }
    this.#key = key
    this.#randomKey = false
  }

  /**
   * The requestState codec (HMAC, the SDK's), bound to the caller's
   * principal and session. Its key is the configured one or, from the first
   * serve on, 32 random bytes (Web Crypto: every runtime has it).
   */
  codec(): RequestStateCodec {
    if (this.#codec) return this.#codec
    if (this.#key === undefined) {
      this.#key = globalThis.crypto.getRandomValues(new Uint8Array(32))
      this.#randomKey = true
    }
    const bind = (ctx: StateBinding): string =>
      `${ctx.principal ?? principalOf(ctx.http?.authInfo, ctx.http?.req?.headers.get('authorization'))}\0${ctx.sessionId ?? ''}`
    this.#codec = createRequestStateCodec({
      key: this.#key,
      bind: bind as never,
      ...(this.#ttl === undefined ? {} : { ttlSeconds: this.#ttl }),
    })
    return this.#codec
  }

  /**
   * Seals `payload` into a `requestState` usable once, by `tool`, for the
   * caller and session of `binding`.
   */
  sealState(payload: unknown, tool: string, binding: StateBinding): Promise<string> {
    const sealed: SealedState = {
      v: payload,
      t: tool,
      n: toBase64url(globalThis.crypto.getRandomValues(new Uint8Array(12))),
      e: Date.now() + (this.#ttl ?? DEFAULT_REQUEST_STATE_TTL_S) * 1000,
    }
    return this.codec().mint(sealed, binding as never)
  }

  /**
   * The payload of a verified `requestState` (the codec checked its MAC,
   * expiry, principal and session) if it was sealed for `tool` and was not
   * used before; throws the `-32602` of a bad state otherwise.
   */
  openState(state: unknown, tool: string): unknown {
    const sealed = state as Partial<SealedState> | null
    const now = Date.now()
    // From the oldest use on, only while expired: every open costs a few steps, not the whole map.
    // (A state used late but sealed early may wait one TTL behind a younger one: the codec refuses it as expired meanwhile.)
    for (const [nonce, expires] of this.#used) {
      if (expires >= now) break
      this.#used.delete(nonce)
    }
    if (sealed === null || typeof sealed !== 'object' || sealed.t !== tool || typeof sealed.n !== 'string' || this.#used.has(sealed.n)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' })
    }
    this.#used.set(sealed.n, typeof sealed.e === 'number' ? sealed.e : now + DEFAULT_REQUEST_STATE_TTL_S * 1000)
    return sealed.v
  }
}
