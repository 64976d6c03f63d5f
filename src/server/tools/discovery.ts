/**
 * Server-side tool discovery (docs/guide/big-apis.md): in `search` mode a
 * server lists three meta-tools instead of its tools. `search_tools` ranks
 * the tools the caller may see (search-index.ts), `describe_tool` answers one
 * tool's whole definition, and `call_tool` names the tool a `tools/call`
 * runs: the transports unwrap it before their one dispatch (sdk-server.ts,
 * server-state.ts), so a call through it is a direct call.
 */
import {
  AUTO_MAX_TOKENS,
  AUTO_MAX_TOOLS,
  autoMode,
  DEFAULT_DISCOVERY_NAMES,
  DISCOVERY_MODES,
  discoveryClash,
  discoveryNames,
  type DiscoveryMode,
  type DiscoveryNames,
  type DiscoverySpec,
} from '../../contract/discovery.ts'
import { rememberSource } from '../../runtime/number-source.ts'
import { toolError } from '../../runtime/result.ts'
import { utf8Length } from '../../runtime/streaming.ts'
import { nearestNames } from '../../contract/nearest.ts'
import { isRecord } from '../../contract/is-record.ts'
import { runtimeError } from '../../runtime/errors.ts'
import { showValue } from '../../runtime/check-options.ts'
import type { CallContext } from '../../runtime/types.ts'
import { indexOf } from './search-index.ts'
import type { ListedTool, ToolCallResult, ToolEntry, ToolSet } from './tool-set.ts'

/** A server's discovery settings: the mode asked for and the meta-tools' names. */
export interface DiscoverySettings {
  readonly mode: DiscoveryMode
  readonly names: DiscoveryNames
  /** Whether the mode or a name was given (an `include()`d server's given settings become the builder's when it gives none). */
  readonly given: boolean
}

/** The settings of a server that was told nothing: `auto`, the default names. */
export const DEFAULT_DISCOVERY: DiscoverySettings = Object.freeze({ mode: 'auto', names: DEFAULT_DISCOVERY_NAMES, given: false })

/** The longest query searched, in characters. */
export const MAX_QUERY_CHARS = 1000
/** The most hits one search answers, and how many it answers unless told. */
export const MAX_LIMIT = 50
export const DEFAULT_LIMIT = 5

/** Checked settings of `discovery(mode, names)` or a spec's `discovery`; throws `BAD_OPTION` naming `where`. */
export function discoverySettings(spec: DiscoverySpec | undefined, where: string): DiscoverySettings {
  if (spec === undefined) return DEFAULT_DISCOVERY
  if (!DISCOVERY_MODES.includes(spec.mode)) {
    throw runtimeError('BAD_OPTION', `${where}: discovery must be one of ${DISCOVERY_MODES.join(', ')}, got ${showValue(spec.mode)}`)
  }
  const names = discoveryNames(spec.names)
  for (const [which, name] of Object.entries(names)) {
    if (typeof name !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(name)) {
      throw runtimeError(
        'BAD_OPTION',
        `${where}: discoveryNames.${which} must be a tool name of letters, digits, "_", "-" and ".", got ${showValue(name)}`,
      )
    }
  }
  if (new Set(Object.values(names)).size < 3)
    throw runtimeError('BAD_OPTION', `${where}: the three discoveryNames must differ, got ${showValue(names)}`)
  return { mode: spec.mode, names, given: true }
}

/** Throws `BAD_SPEC` naming both when a tool of `set` has a meta-tool's name (a `tools` server has no meta-tools). */
export function checkDiscoveryNames(settings: DiscoverySettings, set: ToolSet): void {
  if (settings.mode === 'tools') return
  for (const [which, name] of Object.entries(settings.names) as Array<[keyof DiscoveryNames, string]>) {
    const entry = set.byName.get(name)
    if (entry === undefined) continue
    const spec = entry.proto?.tool.spec
    const tool = spec === undefined ? `tool "${name}"` : `tool "${name}" (RPC ${spec.service}.${spec.method})`
    throw runtimeError('BAD_SPEC', discoveryClash(which, name, tool))
  }
}

/** About what a tool costs a model: its name, description and input schema as compact JSON, four characters a token. */
export function estimatedTokens(listed: ListedTool): number {
  return Math.ceil(JSON.stringify({ name: listed.name, description: listed.description, inputSchema: listed.inputSchema }).length / 4)
}

/**
 * What a tool costs a model: the exact o200k count the build made (a proto
 * tool's `tokens`, the type tool's `toolTokens`) while its listing is the
 * one counted, else {@link estimatedTokens}. Generated modules count nothing.
 */
export function toolTokens(entry: ToolEntry): number {
  const { listed } = entry
  const counted = (tool: { name: string; description?: string; inputSchema: unknown }): boolean =>
    listed.name === tool.name && listed.description === tool.description && listed.inputSchema === tool.inputSchema
  const spec = entry.proto?.tool.spec
  if (spec?.tokens !== undefined && counted(spec)) return spec.tokens
  const detail = entry.types?.length === 1 ? entry.types[0]!.detail : undefined
  if (detail?.toolTokens !== undefined && counted(detail.tool)) return detail.toolTokens
  return estimatedTokens(listed)
}

/**
 * The tokens of `set`'s listing as `auto` weighs them: the sum of each
 * tool's {@link toolTokens}, unless the listing's UTF-8 bytes already keep
 * it within `auto`'s limit (a token is at least a byte; an estimate is a
 * quarter of the characters), then its bytes, and nothing is counted.
 */
function listTokens(set: ToolSet): number {
  if (set.listed.length > AUTO_MAX_TOOLS) return 0
  let bytes = 0
  for (const { listed } of set.byName.values()) {
    bytes += utf8Length(JSON.stringify({ name: listed.name, description: listed.description ?? '', inputSchema: listed.inputSchema }))
  }
  if (bytes <= AUTO_MAX_TOKENS) return bytes
  let tokens = 0
  for (const entry of set.byName.values()) tokens += toolTokens(entry)
  return tokens
}

/** What `auto` resolved to for each snapshot. */
const resolved = new WeakMap<ToolSet, 'tools' | 'search'>()

/** Whether `set` is served through the meta-tools under `settings`. */
export function searchMode(settings: DiscoverySettings, set: ToolSet): boolean {
  if (settings.mode !== 'auto') return settings.mode === 'search'
  let mode = resolved.get(set)
  if (mode === undefined) {
    resolved.set(set, (mode = autoMode(set.listed.length, listTokens(set))))
  }
  return mode === 'search'
}

/** The `_meta` key that marks a meta-tool's listing with its role (`search`, `describe`, `call`): the `/__mcp/` page reads it. */
export const DISCOVERY_META_KEY = 'io.github.unplugin-proto-mcp/discovery'

/** The meta-tools as `tools/list` shows them (the same objects for the same names: the list stays as it was). */
const listings = new Map<string, readonly ListedTool[]>()

/** The meta-tools' listings for `names`. */
export function metaListings(names: DiscoveryNames, strict = false): readonly ListedTool[] {
  const key = `${names.search}\n${names.describe}\n${names.call}\n${strict}`
  let listed = listings.get(key)
  if (listed === undefined) {
    const roles = ['search', 'describe', 'call']
    listed = Object.freeze(makeListings(names, strict).map((tool, i) => ({ ...tool, _meta: { [DISCOVERY_META_KEY]: roles[i] } })))
    listings.set(key, listed)
  }
  return listed
}

/**
 * Whether `set` lists the meta-tools in the strict shape: all its proto
 * tools are of `strict` tables (OpenAI's strict mode: every object closed,
 * every property required, an optional one nullable, no open object).
 * One shape cannot pass every client: the strict sets need
 * `additionalProperties: false`, Gemini's `parameters` refuses the keyword,
 * so the meta-tools follow the profile the server's tools chose.
 */
export function strictMeta(set: ToolSet): boolean {
  return set.tables.length > 0 && set.tables.every((table) => table.profile === 'strict')
}

function makeListings(names: DiscoveryNames, strict: boolean): ListedTool[] {
  const nameProperty = { type: 'string', description: `A tool name ${names.search} answered` }
  if (strict) {
    const closed = (properties: Record<string, unknown>) => ({
      type: 'object',
      properties,
      required: Object.keys(properties),
      additionalProperties: false,
    })
    return makeListings(names, false).map((tool) => {
      const properties = { ...(tool.inputSchema.properties as Record<string, Record<string, unknown>>) }
      if (properties.limit) properties.limit = { ...properties.limit, type: ['integer', 'null'] }
      if (properties.arguments) {
        properties.arguments = {
          type: 'string',
          description: `The tool's arguments as the JSON text of an object, e.g. '{"id":"a"}' ('{}' for none)`,
        }
      }
      return { ...tool, inputSchema: closed(properties) }
    })
  }
  return [
    {
      name: names.search,
      description:
        `Finds this server's tools by what they do: the best matches for a query, each with its name, title, summary, ` +
        `annotations and token cost. Then ${names.describe} gives a tool's input schema and ${names.call} runs it.`,
      inputSchema: {
        type: 'object',
        properties: {
          query: {
            type: 'string',
            description: 'What the tool should do, in words (e.g. "list documents in a collection"), or a tool name',
          },
          limit: { type: 'integer', description: `How many matches to answer, 1 to ${MAX_LIMIT} (default ${DEFAULT_LIMIT})` },
        },
        required: ['query'],
      },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: names.describe,
      description:
        `The whole definition of one tool: its input schema, output schema and annotations. Call it before ${names.call}. ` +
        'Given the full name of a message a schema leaves as JSON text (e.g. "pkg.v1.Filter"), that message\'s JSON Schema.',
      inputSchema: { type: 'object', properties: { name: nameProperty }, required: ['name'] },
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    {
      name: names.call,
      description: `Runs one of this server's tools, as calling it directly would: arguments must match the schema ${names.describe} gives.`,
      inputSchema: {
        type: 'object',
        properties: {
          name: nameProperty,
          arguments: { type: 'object', description: "The tool's arguments" },
        },
        required: ['name'],
      },
    },
  ]
}

/** Which tools of `set` the caller of `context` may see. */
export type Visibility = (entry: ToolEntry, context: { authInfo?: unknown }) => boolean

/** The first sentence of a description (up to a `.`, `!` or `?` before a space, or its first line). */
export function firstSentence(text: string): string {
  const line = text.split('\n')[0]!.trim()
  const end = line.search(/[.!?](\s|$)/)
  return end < 0 ? line : line.slice(0, end + 1)
}

/** A JSON result: its text and its structured content. */
function jsonResult(value: Record<string, unknown>): ToolCallResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value, isError: false }
}

/** The object arguments of a meta-tool call, or the tool error saying what they were. */
function argumentsOf(tool: string, args: unknown): Record<string, unknown> | ToolCallResult {
  if (args === undefined || args === null) return {}
  if (isRecord(args)) return args
  return toolError(`${tool}: arguments must be an object, got ${showValue(args)}`)
}

/** A tool error for a name no visible tool has: the three nearest names. */
function unknownName(tool: string, name: string, visible: readonly string[], names: DiscoveryNames): ToolCallResult {
  const near = nearestNames(name, visible, 3)
  const hint = near.length === 0 ? '' : `; the nearest are ${near.map((n) => `"${n}"`).join(', ')}`
  return toolError(`${tool}: no tool is named "${name}"${hint} (${names.search} finds tools by what they do)`)
}

/** The name argument of describe_tool or call_tool: a non-empty string, or the tool error. */
function nameOf(tool: string, args: Record<string, unknown>): string | ToolCallResult {
  const name = args.name
  if (typeof name === 'string' && name !== '') return name
  return toolError(`${tool}: name must be a tool's name (a non-empty string), got ${name === undefined ? 'none' : showValue(name)}`)
}

/** Reads the snapshot and visibility at call time (state holds them). */
export interface DiscoverySource {
  readonly tools: ToolSet
  readonly discovery: DiscoverySettings
  visible(entry: ToolEntry, authInfo: unknown): boolean
}

/** The visible tool names of the current snapshot. */
function visibleNames(source: DiscoverySource, authInfo: unknown): string[] {
  const out: string[] = []
  for (const entry of source.tools.byName.values()) if (source.visible(entry, authInfo)) out.push(entry.listed.name)
  return out
}

/** `search_tools`: checks the query and limit, then answers the ranked hits. */
async function searchTools(source: DiscoverySource, args: unknown, context: CallContext): Promise<ToolCallResult> {
  const names = source.discovery.names
  const tool = names.search
  const checked = argumentsOf(tool, args)
  if ('content' in checked) return checked as ToolCallResult
  // null is how a strict-mode client leaves out an optional argument.
  const { query } = checked
  const limit = checked.limit ?? DEFAULT_LIMIT
  if (typeof query !== 'string') return toolError(`${tool}: query must be a string, got ${query === undefined ? 'none' : showValue(query)}`)
  if (query.trim() === '') return toolError(`${tool}: query is empty: say in words what the tool should do (e.g. "list documents")`)
  if (query.length > MAX_QUERY_CHARS) {
    return toolError(`${tool}: query is ${query.length} characters, over the ${MAX_QUERY_CHARS} searched: say it in fewer words`)
  }
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    return toolError(`${tool}: limit must be a whole number from 1 to ${MAX_LIMIT}, got ${showValue(limit)}`)
  }
  const set = source.tools
  const visible = (name: string): boolean => source.visible(set.byName.get(name)!, context.authInfo)
  const hits = (await indexOf(set))
    .rank(query, visible)
    .slice(0, limit)
    .map((name) => {
      const entry = set.byName.get(name)!
      const { listed } = entry
      const hit: Record<string, unknown> = { name }
      if (typeof listed.title === 'string') hit.title = listed.title
      hit.summary = firstSentence(listed.description)
      if (listed.annotations !== undefined) hit.annotations = listed.annotations
      hit.tokens = toolTokens(entry)
      return hit
    })
  return jsonResult({ tools: hits })
}

/**
 * `describe_tool`: the tool's listing whole; for the full name of a message
 * a schema leaves as JSON text, the type tool's answer (search mode lists no
 * type tool, so its placeholders are read here); else the nearest names.
 */
async function describeTool(source: DiscoverySource, args: unknown, context: CallContext): Promise<ToolCallResult> {
  const names = source.discovery.names
  const checked = argumentsOf(names.describe, args)
  if ('content' in checked) return checked as ToolCallResult
  const name = nameOf(names.describe, checked)
  if (typeof name !== 'string') return name
  const entry = source.tools.byName.get(name)
  if (entry === undefined || !source.visible(entry, context.authInfo)) {
    const types = typeToolOf(source, name.replace(/^\./, ''), context.authInfo)
    if (types !== undefined) return (await types.call({ type: name }, context)) as ToolCallResult
    return unknownName(names.describe, name, visibleNames(source, context.authInfo), names)
  }
  return jsonResult({ ...entry.listed, tokens: toolTokens(entry) })
}

/** The visible type tool that knows message `type` (docs/guide/big-apis.md, "The token budget"), if any. */
function typeToolOf(source: DiscoverySource, type: string, authInfo: unknown): ToolEntry | undefined {
  for (const entry of source.tools.byName.values()) {
    if (entry.types?.some(({ detail }) => Object.hasOwn(detail.answers, type)) && source.visible(entry, authInfo)) return entry
  }
  return undefined
}

/** The two meta-tools that answer themselves (call_tool is unwrapped by {@link unwrapCall} instead). */
export function metaEntries(source: DiscoverySource): Map<string, ToolEntry> {
  const [search, describe] = metaListings(source.discovery.names, strictMeta(source.tools))
  return new Map([
    [search!.name, { listed: search!, call: (args, context) => searchTools(source, args, context) }],
    [describe!.name, { listed: describe!, call: (args, context) => describeTool(source, args, context) }],
  ])
}

/** What a `call_tool` call names: the tool and its arguments, or the tool error of a bad call. */
export type Unwrapped = { name: string; args: unknown } | { error: ToolCallResult }

/**
 * The tool a `call_tool` call runs and its arguments, checked: a name the
 * caller may not see is unknown (with the three nearest names it may see).
 */
export function unwrapCall(source: DiscoverySource, args: unknown, authInfo: unknown): Unwrapped {
  const names = source.discovery.names
  const checked = argumentsOf(names.call, args)
  if ('content' in checked) return { error: checked as ToolCallResult }
  const name = nameOf(names.call, checked)
  if (typeof name !== 'string') return { error: name }
  const entry = source.tools.byName.get(name)
  if (entry === undefined || !source.visible(entry, authInfo)) {
    return { error: unknownName(names.call, name, visibleNames(source, authInfo), names) }
  }
  let inner = checked.arguments
  // A client that sends open objects as JSON text (as the portable profile advertises them) may send the arguments so.
  if (typeof inner === 'string') {
    try {
      const text = inner
      inner = JSON.parse(text) as unknown
      // Its own text, for exact 64-bit numbers (the request's text has them inside a string).
      if (inner !== null && typeof inner === 'object') rememberSource(inner, text)
    } catch {
      return {
        error: toolError(
          `${names.call}: arguments must be an object of "${name}"'s arguments (or its JSON text), got text that is not JSON`,
        ),
      }
    }
  }
  if (inner !== undefined && inner !== null && !isRecord(inner)) {
    return { error: toolError(`${names.call}: arguments must be an object of "${name}"'s arguments, got ${showValue(inner)}`) }
  }
  return { name, args: inner ?? {} }
}
