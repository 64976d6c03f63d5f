/**
 * Model → one tool per unary (and, by default, server-streaming) RPC of the
 * imported file (docs/mapping.md §1–§8).
 */
import type { ToolSpec } from '../contract/index.ts'
import type { JsonSchema, Profile } from './types.ts'
import type { ProtoModel } from '../proto/model.ts'
import { longRunningOf } from './long-running.ts'
import { buildWarning, type BuildWarning } from '../proto/warnings.ts'
import { describeComment, splitName } from './describe.ts'
import { advertise, stripNotes } from './advertise.ts'
import { lenientPlan } from './lenient-plan.ts'
import type { LenientPlan } from './lenient-plan.ts'
import { DEFAULT_RECURSION_DEPTH, messageSchema } from './message-schema.ts'
import { isPortable } from './scalar-schema.ts'
import { sortKeys } from './sort-keys.ts'
import { DEFAULT_TOOL_NAME_BUDGET, goCamelCase, nameTool, PORTABLE_TOOL_NAME_RE, shortenToolName, TOOL_NAME_RE } from './tool-name.ts'
import type { RpcName, ToolNames } from './tool-name.ts'
import { methodGlob } from './method-glob.ts'
import { toolMetadata, toolScopes } from './tool-options.ts'
import type { ToolMetadata } from './tool-options.ts'

/** Options of {@link buildTools}. */
export interface BuildToolsOptions {
  /**
   * Which schemas the tools advertise (docs/profiles.md). `topeka`: exactly
   * what the Go generator produces (no `outputSchema`); every other profile
   * adds the extensions of docs/mapping.md §7 (`outputSchema`, required
   * fields and `buf.validate` rules, `(proto_mcp.tool)` metadata,
   * server-streaming tools).
   * @default 'portable'
   */
  profile?: Profile
  /**
   * How tools are named (docs/mapping.md §2): `'method'` → `SetVibe`, `'service'` →
   * `VibeService_SetVibe`, `'qualified'` → `examples_v1_VibeService_SetVibe`,
   * or a function of the RPC. A `(proto_mcp.tool).name` wins over it.
   * @default 'method'
   */
  toolNames?: ToolNames
  /**
   * `portable`/`strict`: how many times a recursive message is inlined
   * inside itself before its field becomes JSON text of the message.
   * @default 3
   */
  recursionDepth?: number
  /**
   * The server's name as clients are configured with it (the plugin passes
   * the `.proto` file's base name); with {@link toolNameBudget}, names whose
   * sum would be too long for some clients are reported.
   */
  serverName?: string
  /**
   * The longest `server name + tool name` (in characters) the build accepts
   * without a warning: Claude Code refers to a tool as `mcp__<server>__<tool>`
   * in at most 64 characters (57 for the two names), Cursor drops tools whose
   * two names reach 60. `false` turns the check off.
   * @default 57
   */
  toolNameBudget?: number | false
  /**
   * Shorten tool names that break {@link toolNameBudget} (a hash prefix and
   * the name's end) instead of only warning.
   * @default false
   */
  shortenToolNames?: boolean
  /**
   * OAuth scopes by method glob over RPCs' full names
   * (`{ 'google.firestore.v1.Firestore.Delete*': 'firestore.write' }`;
   * `*` within a name, `**` across dots): a tool requires the scopes of
   * every glob that matches it, with those of `(proto_mcp.service)` and
   * `(proto_mcp.tool)` (docs/serving.md §5).
   * @default {}
   */
  methodScopes?: Readonly<Record<string, string | readonly string[]>>
}

/** One tool as the schema stage builds it: the contract's {@link ToolSpec} and the schema its validator checks. */
export interface ToolSchema extends ToolSpec {
  /**
   * The schema the validator is compiled from when it says more than
   * `inputSchema` can (`portable`, `strict`: exact bounds, formats, unknown
   * fields refused); absent when the two are the same.
   */
  validationSchema?: JsonSchema
  /** A server-streaming RPC: the tool collects the stream (every profile but `topeka`). */
  serverStreaming?: true
}

/** What {@link buildTools} returns: the tools and the build's reports about them. */
export interface BuiltTools {
  /** In declaration order (services, then their methods). */
  tools: ToolSchema[]
  /** E.g. two services declaring the same RPC name (the last one wins, as in Topeka), a shortened name. */
  warnings: BuildWarning[]
  /**
   * The verbose report: what the schemas leave out (`buf.validate` CEL and
   * other rules JSON Schema cannot say), one line each, deduplicated.
   */
  notes: string[]
  /** What the run-time lenient pass reads of the tools' requests; absent in `topeka`. */
  lenient?: LenientPlan
}

/**
 * Builds the tools of the model's services, in declaration order, and the
 * warnings and notes about them. Unary RPCs get a tool; server-streaming
 * ones too in the default profile; client-streaming and bidi ones never.
 * When two RPCs get the same tool name, the last declaration wins (at its
 * own position) and a warning names both.
 */
export function buildTools(model: ProtoModel, options: BuildToolsOptions = {}): BuiltTools {
  const profile = options.profile ?? 'portable'
  const extended = profile !== 'topeka'
  const portable = isPortable(profile)
  const nameRe = portable ? PORTABLE_TOOL_NAME_RE : TOOL_NAME_RE
  const serverName = options.serverName ?? ''
  const budget = options.toolNameBudget === undefined ? DEFAULT_TOOL_NAME_BUDGET : options.toolNameBudget
  // Request types inlined less deep than asked (their schema would be too large).
  const depths = new Map<string, number>()
  const fits = (n: string): boolean => budget === false || serverName.length + n.length <= budget
  const tools: ToolSchema[] = []
  const warnings: BuildWarning[] = []
  const notes = new Set<string>()
  const note = (text: string): void => {
    notes.add(text)
  }
  const methodScopes = Object.entries(options.methodScopes ?? {}).map(
    ([glob, scopes]) => [methodGlob(glob), typeof scopes === 'string' ? [scopes] : scopes] as const,
  )
  for (const service of model.services) {
    for (const method of service.methods) {
      if (method.requestStream || (method.responseStream && !extended)) continue
      const meta: ToolMetadata = extended ? toolMetadata(method) : { hidden: false }
      if (meta.hidden) continue
      const rpc: RpcName = {
        service: service.name,
        method: method.name,
        // A service's own package: a reflected model holds services of several files.
        package: service.fullName.slice(0, Math.max(0, service.fullName.length - service.name.length - 1)),
        fullName: `${service.fullName}.${method.name}`,
      }
      // The Go generator names a tool, and splits its fallback description from, the RPC's Go name.
      const rpcName = extended ? method.name : goCamelCase(method.name)
      const wanted = meta.name ?? nameTool(rpc, options.toolNames, rpcName)
      const limit = options.shortenToolNames && budget !== false ? budget - serverName.length : undefined
      const name = extended ? shortenToolName(wanted, portable, limit) : wanted
      if (name !== wanted) {
        warnings.push(
          buildWarning(
            'TOOL_NAME_SHORTENED',
            `tool name "${wanted}" of ${rpc.fullName} breaks ${nameRe.source}${fits(wanted) ? '' : ` or the name budget (${budget})`}; shortened to "${name}"`,
          ),
        )
      } else if (!nameRe.test(name)) {
        warnings.push(
          buildWarning('TOOL_NAME_PATTERN', `tool name "${name}" of ${rpc.fullName} breaks ${nameRe.source}; some clients will reject it`),
        )
      }
      if (extended && !fits(name)) {
        warnings.push(
          buildWarning(
            'TOOL_NAME_BUDGET',
            `server "${serverName}" + tool "${name}" is ${serverName.length + name.length} characters, over the name budget of ${budget}: ` +
              'Claude Code and Cursor will not offer the tool',
            'set shortenToolNames, a shorter toolNames, or (proto_mcp.tool).name',
          ),
        )
      }
      const depth = options.recursionDepth ?? DEFAULT_RECURSION_DEPTH
      let shape = messageSchema(model, method.requestType, { profile, mode: 'input', note, recursionDepth: depth })
      // Inlining grows as (recursive fields)^depth: a message that recurses through many fields gets a shallower depth.
      for (let d = depth - 1; portable && d >= 1 && objectCount(shape) > MAX_INLINED_OBJECTS; d--) {
        shape = messageSchema(model, method.requestType, { profile, mode: 'input', recursionDepth: d })
        depths.set(method.requestType, d)
        if (d === 1 || objectCount(shape) <= MAX_INLINED_OBJECTS) {
          warnings.push(
            buildWarning(
              'RECURSION_SHALLOWER',
              `tool "${name}": ${method.requestType} recurses through many fields; inlined ${d} deep instead of ${depth} ` +
                `to keep its schema under ${MAX_INLINED_OBJECTS} objects (deeper levels are JSON text)`,
            ),
          )
        }
      }
      const inputSchema = sortKeys(advertise(shape, profile))
      const validationSchema = stripNotes(shape)
      const tool: ToolSchema = {
        name,
        description: describeComment(method.comment) ?? splitName(rpcName),
        inputSchema,
        service: service.fullName,
        method: method.name,
        requestType: method.requestType,
        responseType: method.responseType,
      }
      if (JSON.stringify(validationSchema) !== JSON.stringify(inputSchema)) tool.validationSchema = validationSchema
      if (meta.title !== undefined) tool.title = meta.title
      if (meta.annotations !== undefined) tool.annotations = meta.annotations
      const scopes = toolScopes(service, method, methodScopes)
      if (scopes !== undefined) tool.scopes = scopes
      const longRunning = extended ? longRunningOf(model, method, rpc.package) : undefined
      if (longRunning !== undefined) tool.longRunning = longRunning
      if (extended) {
        // A long-running RPC's result is its operation's response, not the Operation.
        const output = messageSchema(model, longRunning?.responseType ?? method.responseType, { profile, mode: 'output' })
        if (method.responseStream) {
          tool.serverStreaming = true
          tool.outputSchema = streamOutputSchema(output)
        }
        // MCP requires an object outputSchema and object structuredContent; a
        // response whose JSON form is not an object (Timestamp, a wrapper,
        // Value) is answered as text only.
        else if (output.type === 'object') tool.outputSchema = output
      }
      const clash = tools.findIndex((t) => t.name === tool.name)
      if (clash >= 0) {
        const other = tools[clash]!
        warnings.push(
          buildWarning(
            'TOOL_NAME_CLASH',
            `tool "${tool.name}" is declared by both ${other.service} and ${service.fullName}; ` + `the one of ${service.fullName} wins`,
            options.toolNames === undefined || options.toolNames === 'method'
              ? "set the toolNames option to 'service' or 'qualified' to keep both"
              : undefined,
          ),
        )
        tools.splice(clash, 1)
      }
      tools.push(tool)
    }
  }
  const lenient = lenientPlan(
    model,
    tools.map((t) => t.requestType),
    profile,
    options.recursionDepth,
    depths,
  )
  return { tools, warnings, notes: [...notes], ...(lenient === undefined ? {} : { lenient }) }
}

/** The most object schemas a `portable`/`strict` input schema inlines before its recursion is made shallower. */
export const MAX_INLINED_OBJECTS = 500

/** The number of object schemas (nodes with `properties`) in `schema`. */
function objectCount(schema: unknown): number {
  if (Array.isArray(schema)) return schema.reduce((n: number, item) => n + objectCount(item), 0)
  if (schema === null || typeof schema !== 'object') return 0
  let n = 'properties' in schema ? 1 : 0
  for (const value of Object.values(schema)) n += objectCount(value)
  return n
}

/**
 * The outputSchema of a server-streaming tool: `{"messages": [...]}` of the
 * response's output schema, whose `$defs` move to the root (their `$ref`s
 * are root-relative).
 */
function streamOutputSchema(response: JsonSchema): JsonSchema {
  const { $defs, ...items } = response
  const schema: JsonSchema = {
    type: 'object',
    properties: { messages: { type: 'array', items } },
    required: ['messages'],
  }
  if ($defs !== undefined) schema.$defs = $defs
  return sortKeys(schema)
}
