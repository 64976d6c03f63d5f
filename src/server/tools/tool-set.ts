/**
 * What a serving server holds: immutable snapshots of its tools, resources
 * and prompts, swapped by reference on every change, and the one visibility
 * predicate that decides both listing and calling.
 */
import { callProtoTool } from '../../runtime/pipeline.ts'
import type { CompiledTool, ToolTable } from '../../runtime/tool-table.ts'
import type { CallContext, JsonSchema, ToolResult, TypeDetailSpec } from '../../runtime/types.ts'

/** A tool as `tools/list` shows it. */
export interface ListedTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  [key: string]: unknown
}

/** What a caller must have for a tool to exist for it: every listed scope, every listed server feature. */
export interface ToolRequirements {
  /** OAuth scopes, read from the request's auth info (`authInfo.scopes`). */
  scopes?: readonly string[]
  /** Server features, switched on with the builder's `features(...)`. */
  features?: readonly string[]
}

/** A complete tool result (`CallToolResult`): content items, `isError` for a failure, optional `structuredContent`. */
export interface ToolCallResult {
  content: Array<{ type: string; [key: string]: unknown }>
  isError?: boolean
  structuredContent?: Record<string, unknown>
  [key: string]: unknown
}

/** The result a tool call resolves with: a `CallToolResult`, or a 2026-07-28 `input_required` result. */
export type CallResult = ToolResult | ToolCallResult | InputRequiredResult

/** A 2026-07-28 multi-round-trip result: the client answers `inputRequests` and retries with `requestState`. */
export interface InputRequiredResult {
  resultType: 'input_required'
  inputRequests?: Record<string, unknown>
  /** Sealed with `context.sealRequestState(payload)`. */
  requestState?: string
  [key: string]: unknown
}

/** One tool of a snapshot: its listing, its requirements and how to call it. */
export interface ToolEntry {
  readonly listed: ListedTool
  readonly requires?: ToolRequirements
  /** Runs the tool; never throws for a tool-level failure (that is an `isError` result). */
  readonly call: (args: unknown, context: CallContext) => Promise<CallResult>
  /**
   * For a proto tool: its compiled tool (backend slot), the table it belongs
   * to, and the call pipeline of the runtime copy that compiled it.
   */
  readonly proto?: { readonly table: ToolTable; readonly tool: CompiledTool; readonly run?: typeof callProtoTool }
  /** Whether a call may run as a task (docs/serving.md, "Tasks"). @default 'forbidden' */
  readonly taskSupport?: 'optional' | 'required'
  /** For a type tool (type-detail.ts): the servers whose type detail it answers. */
  readonly types?: ReadonlyArray<{ readonly server: string; readonly detail: TypeDetailSpec }>
}

/** An immutable set of tools; a new one replaces the old by reference. */
export interface ToolSet {
  readonly byName: ReadonlyMap<string, ToolEntry>
  /** The listing when every tool is visible, built once. */
  readonly listed: readonly ListedTool[]
  /** Whether any tool has requirements (otherwise `listed` is the answer for everyone). */
  readonly gated: boolean
  /** The proto tool tables the set's proto tools belong to (for `implement()`). */
  readonly tables: readonly ToolTable[]
}

/** Builds a snapshot from entries in listing order; throws on a duplicate name. */
export function toolSet(entries: readonly ToolEntry[]): ToolSet {
  const byName = new Map<string, ToolEntry>()
  const tables = new Set<ToolTable>()
  for (const entry of entries) {
    if (byName.has(entry.listed.name)) throw new Error(`tool "${entry.listed.name}" is defined twice: tool names must be unique`)
    byName.set(entry.listed.name, entry)
    if (entry.proto) tables.add(entry.proto.table)
  }
  return {
    byName,
    listed: Object.freeze(entries.map((e) => e.listed)),
    gated: entries.some((e) => e.requires !== undefined),
    tables: [...tables],
  }
}

/** The listing of a proto tool (`outputSchema` only when structured results are on). */
function listedProtoTool(tool: CompiledTool, structured: boolean): ListedTool {
  const listed: ListedTool = { name: tool.name, description: tool.spec.description, inputSchema: tool.spec.inputSchema }
  if (tool.spec.title !== undefined) listed.title = tool.spec.title
  if (tool.spec.annotations !== undefined) listed.annotations = { ...tool.spec.annotations }
  if (structured && tool.spec.outputSchema) listed.outputSchema = tool.spec.outputSchema as JsonSchema
  return listed
}

/** The entries of a proto tool table, one per tool, calling through the pipeline. */
export function protoEntries(table: ToolTable): ToolEntry[] {
  return table.tools.map((tool) => {
    const entry: ToolEntry = {
      listed: listedProtoTool(tool, tool.structured),
      // Scopes from the proto's options and the `methodScopes` option decide who the tool exists for, as `requires` does for hand-written tools.
      ...(tool.spec.scopes?.length ? { requires: { scopes: tool.spec.scopes } } : {}),
      call: (args, context) => callProtoTool(tool, args, context),
      proto: { table, tool, run: callProtoTool },
    }
    // A stream runs as long as its backend sends, an operation until it is done: such a call may run as a task.
    return tool.spec.serverStreaming || tool.spec.longRunning ? { ...entry, taskSupport: 'optional' } : entry
  })
}

/**
 * A copy of `table` whose tools have their own backend slots (bound as in
 * the original), so binding the copy never changes the original's tools.
 */
export function copyTable(table: ToolTable): ToolTable {
  const byName = new Map<string, CompiledTool>()
  // Descriptors, not values: the reflected types and the root stay getters, built on first use.
  const tools = table.tools.map((tool) => {
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(tool)) as CompiledTool
    byName.set(copy.name, copy)
    return copy
  })
  const copy = { tools, byName, services: table.services, serviceComments: table.serviceComments, profile: table.profile } as Omit<
    ToolTable,
    'root'
  > as ToolTable
  return Object.defineProperty(copy, 'root', { get: () => table.root, enumerable: true, configurable: true })
}

/** `entries` with their proto tools moved onto copies of their tables (hand-written tools stay as they are). */
export function adoptEntries(entries: Iterable<ToolEntry>): ToolEntry[] {
  const copies = new Map<ToolTable, ToolTable>()
  const out: ToolEntry[] = []
  for (const entry of entries) {
    if (!entry.proto) {
      out.push(entry)
      continue
    }
    let table = copies.get(entry.proto.table)
    if (!table) copies.set(entry.proto.table, (table = copyTable(entry.proto.table)))
    const tool = table.byName.get(entry.proto.tool.name)!
    // A tool runs through the pipeline of the runtime copy that compiled it:
    // its reflected types are that copy's protobufjs, which only that copy's
    // pipeline loads. Two copies meet when a server adopts tools from another
    // bundle, or from a runtime Vite's module runner evaluated afresh.
    const run = entry.proto.run ?? callProtoTool
    out.push({ ...entry, call: (args, context) => run(tool, args, context), proto: { table, tool, run } })
  }
  return out
}

/** Who is asking: the scopes of the request's auth info. */
export function scopesOf(authInfo: unknown): ReadonlySet<string> | undefined {
  const scopes = (authInfo as { scopes?: unknown } | undefined)?.scopes
  return Array.isArray(scopes) ? new Set(scopes.map(String)) : undefined
}

/**
 * Whether `entry` exists for a caller with `scopes` on a server with
 * `features`. The only visibility check: listing and calling both use it,
 * so a hidden tool cannot be listed and called differently.
 */
export function isVisible(entry: ToolEntry, scopes: ReadonlySet<string> | undefined, features: ReadonlySet<string>): boolean {
  const requires = entry.requires
  if (requires === undefined) return true
  if (requires.features?.some((f) => !features.has(f))) return false
  if (requires.scopes?.length && (scopes === undefined || requires.scopes.some((s) => !scopes.has(s)))) return false
  return true
}
