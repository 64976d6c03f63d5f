/**
 * `ServerHandle`: changes a serving server's tools, resources and prompts.
 * Every change swaps an immutable snapshot and is announced to each
 * connected client that can receive it.
 */
import { runtimeError } from '../runtime/errors.ts'
import { handWrittenToolEntry, type ToolDefinition, type ToolHandler } from './tools/hand-written-tool.ts'
import {
  checkTemplate,
  type ResourceTemplateDefinition,
  type ResourceTemplateOptions,
  type TemplateReader,
} from './primitives/resource-templates.ts'
import { protoTemplates } from './primitives/proto-resources.ts'
import { checkResource, withEntry, withoutEntry, type ResourceDefinition, type ResourceReader } from './primitives/resources.ts'
import { checkPrompt, type PromptDefinition, type PromptGetter, type PromptOptions } from './primitives/prompts.ts'
import { announceResourceUpdated } from './primitives/subscriptions.ts'
import type { ServerState } from './serving/server-state.ts'
import { adoptEntries, toolSet, type ToolEntry } from './tools/tool-set.ts'
import { typeResources } from './tools/type-detail.ts'
import { checkDiscoveryNames } from './tools/discovery.ts'

/** Where a `Server` keeps its `ServerState` (a registered symbol, so a runtime bundled twice still finds it). */
export const SERVER_STATE: unique symbol = Symbol.for('unplugin-proto-mcp.server-state')

/** The `ServerState` of a `Server`, or `undefined` for anything else. */
export function serverStateOf(value: unknown): ServerState | undefined {
  return value !== null && typeof value === 'object' ? (value as { [SERVER_STATE]?: ServerState })[SERVER_STATE] : undefined
}

/** A tool and its handler, as `replaceTools` takes them. */
export interface ToolWithHandler<State = unknown> {
  tool: ToolDefinition
  handler: ToolHandler<State>
}

/**
 * Binds the proto tables of `entries` for `state`: a service `source` bound
 * itself keeps that backend (its tables were copied bound) and `state`
 * records it; any other service gets the backend `state` had bound.
 */
function rebind(state: ServerState, entries: readonly ToolEntry[], source?: ServerState): void {
  const tables = new Set(entries.flatMap((e) => (e.proto ? [e.proto.table] : [])))
  for (const table of tables) {
    for (const [service, bind] of state.bindings) if (!source?.bindings.has(service)) bind(table)
  }
  if (source) for (const [service, bind] of source.bindings) state.bindings.set(service, bind)
}

/**
 * Changes a serving server. Get one with `server.handle()`; every method
 * takes effect at once for new requests, and calls already running finish
 * on the definitions they started with.
 */
export class ServerHandle<State = unknown> {
  readonly #state: ServerState

  /** Use `server.handle()`. */
  constructor(state: ServerState) {
    this.#state = state
  }

  /** The names of the current tools, in listing order (all of them, whatever their requirements). */
  get toolNames(): string[] {
    return [...this.#state.tools.byName.keys()]
  }

  /**
   * Adds a hand-written tool; its schema is compiled now (a bad one throws
   * here, naming the schema path). Throws when the name is taken.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hand-written tool's arguments are typed by its handler
  addTool<Args = any>(tool: ToolDefinition, handler: ToolHandler<State, Args>): this {
    const state = this.#state
    const entry = handWrittenToolEntry(tool, handler as ToolHandler<unknown>, () => state.appState)
    if (state.tools.byName.has(entry.listed.name)) {
      throw runtimeError('BAD_SPEC', `tool "${entry.listed.name}" is already defined: remove it first or use replaceTools`)
    }
    state.setTools(toolSet([...state.tools.byName.values(), entry]))
    return this
  }

  /** Removes a tool; returns whether there was one. */
  removeTool(name: string): boolean {
    const state = this.#state
    if (!state.tools.byName.has(name)) return false
    state.setTools(toolSet([...state.tools.byName.values()].filter((e) => e.listed.name !== name)))
    return true
  }

  /**
   * Replaces every tool at once with another server's tools (typically a
   * fresh `?mcp` module's) or a list of `{ tool, handler }`. A `tools/list`
   * sees the old set or the new one, never a mix. A service the other
   * server bound (`implement()`, `forward()`, or through `include()`) keeps
   * that backend, which this server adopts; every other service keeps the
   * backend bound on this server. The other server's tools are not changed.
   * The type-detail resources go with the type tool (docs/profiles.md,
   * "Token budget"): this server's are replaced by the other server's (by none,
   * for a list of tools), and the resources list is announced when either has some.
   * The prompts of the proto (`(proto_mcp.prompt)`) go with the tools the
   * same way; a prompt added by hand keeps its name.
   * The resource templates of the proto's resource model (docs/guide/resources.md) go with the tools the same way.
   */
  replaceTools(source: object | readonly ToolWithHandler<State>[]): this {
    const state = this.#state
    let entries: ToolEntry[]
    let other: ServerState | undefined
    if (Array.isArray(source)) {
      entries = source.map(({ tool, handler }) => handWrittenToolEntry(tool, handler as ToolHandler<unknown>, () => state.appState))
    } else {
      other = serverStateOf(source)
      if (other === undefined) throw runtimeError('BAD_SPEC', 'replaceTools takes a Server or an array of { tool, handler }')
      entries = adoptEntries(other.tools.byName.values())
    }
    const set = toolSet(entries)
    const before = typeResources(state.resources.values())
    const after = other === undefined ? [] : typeResources(other.resources.values())
    const promptsBefore = [...state.prompts.values()].filter((p) => p.fromProto)
    const promptsAfter = other === undefined ? [] : [...other.prompts.values()].filter((p) => p.fromProto)
    // The templates of a proto's resource model go with its tools, as the type resources do.
    const templatesBefore = protoTemplates(state.templates.values())
    const templatesAfter = other === undefined ? [] : protoTemplates(other.templates.values())
    checkDiscoveryNames(state.discovery, set)
    rebind(state, entries, other === state ? undefined : other)
    // One synchronous swap, as replaceAll's: a request sees the old tool and resources or the new ones.
    state.tools = set
    if (before.length + after.length > 0) {
      const next = new Map([...state.resources].filter(([, r]) => !r.typeDetail))
      // A resource added by hand keeps its URI.
      for (const r of after) if (!next.has(r.resource.uri)) next.set(r.resource.uri, r)
      state.resources = next
    }
    const prompts = promptsBefore.length + promptsAfter.length > 0
    if (prompts) {
      const next = new Map([...state.prompts].filter(([, p]) => !p.fromProto))
      for (const p of promptsAfter) if (!next.has(p.prompt.name)) next.set(p.prompt.name, p)
      state.prompts = next
    }
    if (templatesBefore.length + templatesAfter.length > 0) {
      const next = new Map([...state.templates].filter(([, t]) => !t.proto))
      // A template added by hand keeps its URI template.
      for (const t of templatesAfter) if (!next.has(t.template.uriTemplate)) next.set(t.template.uriTemplate, t)
      state.templates = next
    }
    state.announce('tools')
    if (before.length + after.length + templatesBefore.length + templatesAfter.length > 0) state.announce('resources')
    if (prompts) state.announce('prompts')
    return this
  }

  /**
   * Turns this server into `server` while it serves: its tools (as
   * `replaceTools(server)` takes them), resources, prompts, features,
   * shared state and page size. Name, version and the requestState key stay this server's
   * (clients learned them already). Each list is announced once; resources
   * and prompts only when either server has some. The dev server swaps a
   * rebuilt server in with this, so open sessions stay open.
   */
  replaceAll(server: object): this {
    const state = this.#state
    const other = serverStateOf(server)
    if (other === undefined) throw runtimeError('BAD_SPEC', 'replaceAll takes a Server')
    if (other === state) return this
    const entries = adoptEntries(other.tools.byName.values())
    const set = toolSet(entries)
    checkDiscoveryNames(other.discovery, set)
    rebind(state, entries, other)
    const lists = {
      resources: state.resources.size + other.resources.size + state.templates.size + other.templates.size > 0,
      prompts: state.prompts.size + other.prompts.size > 0,
    }
    // One synchronous swap: a request sees this server wholly before or wholly after.
    state.tools = set
    state.resources = other.resources
    state.templates = other.templates
    state.prompts = other.prompts
    state.features = other.features
    state.appState = other.appState
    // A cursor is an offset, so one given before still reaches the next item.
    state.pageSize = other.pageSize
    state.discovery = other.discovery
    state.announce('tools')
    if (lists.resources) state.announce('resources')
    if (lists.prompts) state.announce('prompts')
    return this
  }

  /** Adds a resource read by `read` (a string return is its text). Throws when the URI is taken. */
  addResource(resource: ResourceDefinition, read: ResourceReader<State>): this {
    const entry = checkResource(resource, read)
    this.#state.resources = withEntry(this.#state.resources, entry.resource.uri, entry, 'resource')
    this.#state.announce('resources')
    return this
  }

  /** Removes a resource; returns whether there was one. */
  removeResource(uri: string): boolean {
    const next = withoutEntry(this.#state.resources, uri)
    if (next === this.#state.resources) return false
    this.#state.resources = next
    this.#state.announce('resources')
    return true
  }

  /**
   * Tells the clients subscribed to `uri` (`resources/subscribe`) that the
   * resource changed (`notifications/resources/updated`); they read it again.
   */
  notifyResourceUpdated(uri: string): this {
    announceResourceUpdated(this.#state, uri)
    return this
  }

  /** Adds a resource template (see the builder's `resourceTemplate`). Throws when the URI template is taken. */
  addResourceTemplate(template: ResourceTemplateDefinition, read: TemplateReader<State>, options?: ResourceTemplateOptions<State>): this {
    const entry = checkTemplate(template, read, options)
    this.#state.templates = withEntry(this.#state.templates, entry.template.uriTemplate, entry, 'resource template')
    this.#state.announce('resources')
    return this
  }

  /** Removes a resource template by its URI template; returns whether there was one. */
  removeResourceTemplate(uriTemplate: string): boolean {
    const next = withoutEntry(this.#state.templates, uriTemplate)
    if (next === this.#state.templates) return false
    this.#state.templates = next
    this.#state.announce('resources')
    return true
  }

  /** Adds a prompt answered by `get` (a string return is one user message). Throws when the name is taken. */
  addPrompt(prompt: PromptDefinition, get: PromptGetter<State>, options?: PromptOptions<State>): this {
    const entry = checkPrompt(prompt, get, options)
    this.#state.prompts = withEntry(this.#state.prompts, entry.prompt.name, entry, 'prompt')
    this.#state.announce('prompts')
    return this
  }

  /** Removes a prompt; returns whether there was one. */
  removePrompt(name: string): boolean {
    const next = withoutEntry(this.#state.prompts, name)
    if (next === this.#state.prompts) return false
    this.#state.prompts = next
    this.#state.announce('prompts')
    return true
  }
}
