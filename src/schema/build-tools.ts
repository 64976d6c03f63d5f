/**
 * Model → one tool per unary (and, by default, server-streaming) RPC of the
 * imported file (docs/mapping.md, "Which RPCs become tools"–"What a tool carries").
 */
import { DEFAULT_PROFILE, type ToolSpec, type TypeToolListing } from '../contract/index.ts'
import type { JsonSchema, Profile } from './types.ts'
import type { MethodModel, ProtoModel, ServiceModel } from '../proto/model.ts'
import { longRunningOf } from './long-running.ts'
import { buildWarning, type BuildWarning } from '../proto/warnings.ts'
import { descriptionAt, describeComment, DESCRIPTION_LEVELS, levelSchemas, splitName } from './descriptions.ts'
import type { DescriptionLevel } from './descriptions.ts'
import { advertise, advertiseSorted, stripNotes } from './advertise.ts'
import { cutShort, DEFAULT_TOOL_TOKEN_BUDGET, DEFAULT_TYPE_TOOL, fitLevels, keyFloor, sameJson } from './budget.ts'
import type { Cut } from './budget.ts'
import { checkClientRules, type CheckedTool } from './client-rules.ts'
import { toolText, toolTokens } from './tokens.ts'
import { buildTypeDetail } from './type-detail.ts'
import type { DetailedTool, TypeDetailSpec } from './type-detail.ts'
import { lenientPlan } from './lenient-plan.ts'
import type { LenientPlan } from './lenient-plan.ts'
import { DEFAULT_RECURSION_DEPTH, mayNote, messageSchema, messageSchemaWithin, passesObjects } from './message-schema.ts'
import type { MessageSchemaOptions } from './message-schema.ts'
import { isPortable } from './scalar-schema.ts'
import { setOwn, sortKeys } from './sort-keys.ts'
import { DEFAULT_TOOL_NAME_BUDGET, goCamelCase, nameTool, PORTABLE_TOOL_NAME_RE, shortenToolName, TOOL_NAME_RE } from './tool-name.ts'
import type { RpcName, ToolNames } from './tool-name.ts'
import { methodFilter, methodGlobs } from './method-glob.ts'
import type { MethodFilter, MethodGlobs, MethodSelection } from './method-glob.ts'
import { toolMetadata, toolScopes } from './tool-options.ts'
import type { ToolMetadata } from './tool-options.ts'
import { autoSearchWarning, checkMetaToolNames } from './discovery.ts'
import type { DiscoverySpec } from '../contract/discovery.ts'

/** Options of {@link buildTools}. */
export interface BuildToolsOptions {
  /**
   * Which schemas the tools advertise (docs/profiles.md). `topeka`: exactly
   * what the Go generator produces (no `outputSchema`); every other profile
   * adds the extensions of docs/mapping.md, "Extensions" (`outputSchema`, required
   * fields and `buf.validate` rules, `(proto_mcp.tool)` metadata,
   * server-streaming tools).
   * @default 'portable'
   */
  profile?: Profile
  /**
   * How tools are named (docs/mapping.md, "Tool names"): `'method'` → `SetVibe`, `'service'` →
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
   * `portable`/`strict`: the most o200k tokens one tool may cost a model
   * (its name, description and input schema as compact JSON; docs/profiles.md,
   * "Token budget"). Nested messages past it become placeholders whose schema
   * the type tool gives; comments are cut to their first paragraph. `false`:
   * every message inlined, every comment whole. `full` and `topeka` keep
   * exact schemas and ignore it.
   * @default 1500
   */
  toolTokenBudget?: number | false
  /**
   * The name of the tool that gives the schema of a message a placeholder
   * names (it exists only when the budget cut something).
   * @default 'describe_type'
   */
  typeTool?: string
  /**
   * Which RPCs become tools, by full name or glob
   * (`google.firestore.v1.Firestore.Get*`): `include` keeps only the
   * matching ones, `exclude` drops matching ones (globs: method-glob.ts).
   * A pattern that matches no RPC is a build warning.
   */
  methods?: MethodFilter
  /**
   * OAuth scopes by method glob over RPCs' full names
   * (`{ 'google.firestore.v1.Firestore.Delete*': 'firestore.write' }`;
   * the globs of `methods`): a tool requires the scopes of every glob that
   * matches it, with those of `(proto_mcp.service)` and `(proto_mcp.tool)`
   * (docs/serving.md, "Tools, errors and visibility"). A glob that matches no tool's RPC is a build warning.
   * @default {}
   */
  methodScopes?: Readonly<Record<string, string | readonly string[]>>
  /**
   * Tool discovery (docs/guide/big-apis.md): a tool named like a meta-tool is
   * a build error unless the mode is `tools`; `auto` over 40 tools or 30,000
   * tokens is a build warning.
   * @default { mode: 'auto' }
   */
  discovery?: DiscoverySpec
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

/** What one tool costs a model and which client rule sets refuse it: the verbose report's lines. */
export interface ToolCost {
  name: string
  /** o200k tokens of its name, description and input schema as compact JSON. */
  tokens: number
  /** The client rule sets (`checkClientRules`) that reject it. */
  rejectedBy: string[]
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
  /**
   * `portable`/`strict`: the `full` validation schema (recursion as `$defs`)
   * of each recursive message the requests reach, by full name: what a
   * client sends as JSON text past `recursionDepth` is checked against it.
   */
  deep?: Record<string, JsonSchema>
  /** The type tool and its answers, when the token budget cut something. */
  types?: TypeDetailSpec
  /** Each tool's cost (the type tool's last), in listing order: counted when first asked for. */
  costs: () => ToolCost[]
}

/** More tools than this and some clients refuse or truncate the list (VS Code, OpenAI's chat API: 128). */
export const MAX_LISTED_TOOLS = 128

/** A tool list of more o200k tokens than this is a build warning: about a third of a 200k context. */
export const LIST_TOKEN_WARNING = 60_000

/** What the parts of one {@link buildTools} run share: its settings, and the warnings, notes and cut tools it collects. */
interface BuildRun {
  model: ProtoModel
  options: BuildToolsOptions
  profile: Profile
  /** Every profile but `topeka`: the extensions of docs/mapping.md, "Extensions". */
  extended: boolean
  portable: boolean
  nameRe: RegExp
  serverName: string
  /** The name budget (`toolNameBudget`). */
  budget: number | false
  /** Whether the server's name and `name` together fit the name budget. */
  fits: (name: string) => boolean
  /** The token budget of one tool, when the profile has one. */
  tokenBudget: number | undefined
  typeTool: string
  methodScopes: MethodGlobs<readonly string[]>
  warnings: BuildWarning[]
  /** The verbose report's lines, deduplicated. */
  notes: Set<string>
  note: (text: string) => void
  /** Request types inlined less deep than asked (their schema would be too large). */
  depths: Map<string, number>
  /** Tools whose comments or schema the budget shortened: the type tool gives them whole. */
  detailed: DetailedTool[]
}

/**
 * Builds the tools of the model's services, in declaration order, and the
 * warnings and notes about them. Unary RPCs get a tool; server-streaming
 * ones too in the default profile; client-streaming and bidi ones never.
 * When two RPCs get the same tool name, the last declaration wins (at its
 * own position) and a warning names both.
 */
export function buildTools(model: ProtoModel, options: BuildToolsOptions = {}): BuiltTools {
  const run = buildRun(model, options)
  const filter = methodFilter(options.methods)
  const tools: ToolSchema[] = []
  for (const service of model.services) {
    for (const method of service.methods) {
      const tool = methodTool(run, filter, service, method)
      if (tool !== undefined) addTool(run, tools, tool)
    }
  }
  summarizeClashes(run)
  const unmatched = [
    ...filter.unmatched().map((glob) => `methods pattern "${glob}" matches no RPC`),
    // Matched against the RPCs that got a tool: a scope of any other one guards nothing.
    ...run.methodScopes.unmatched().map((glob) => `methodScopes glob "${glob}" matches no RPC that has a tool`),
  ]
  for (const text of unmatched) {
    run.warnings.push(buildWarning('METHOD_PATTERN_UNMATCHED', text, 'check the full name: package.Service.Method'))
  }
  const types = typeDetailOf(run, tools)
  const listed = [...tools, ...(types ? [types.tool] : [])]
  let counted: ToolCost[] | undefined
  const costs = (): ToolCost[] => (counted ??= toolCosts(listed, run.serverName))
  const listCounted = listWarnings(run, tools, listed)
  // Each tool's exact count, for search_tools and auto, where the build counts (fitted to a budget, or the list counted above):
  // made when first read (a generated module's at its build; a server's by the first search_tools, or by auto
  // where the list's bytes do not settle it), so a start counts nothing a budget's byte bound already fitted.
  if (run.tokenBudget !== undefined || listCounted) {
    for (const tool of tools) countedWhenRead(tool, 'tokens', () => toolTokens(tool))
    if (types !== undefined) countedWhenRead(types, 'toolTokens', () => toolTokens(types.tool))
  }
  const lenient = lenientPlan(
    model,
    tools.map((t) => t.requestType),
    run.profile,
    options.recursionDepth,
    run.depths,
  )
  const deep = run.portable && lenient !== undefined ? deepSchemas(model, lenient) : undefined
  return {
    tools,
    warnings: run.warnings,
    notes: [...run.notes],
    ...(lenient === undefined ? {} : { lenient }),
    ...(deep === undefined ? {} : { deep }),
    ...(types === undefined ? {} : { types }),
    costs,
  }
}

/** The settings of a {@link buildTools} run, with nothing collected yet. */
function buildRun(model: ProtoModel, options: BuildToolsOptions): BuildRun {
  const profile = options.profile ?? DEFAULT_PROFILE
  const portable = isPortable(profile)
  const serverName = options.serverName ?? ''
  const budget = options.toolNameBudget === undefined ? DEFAULT_TOOL_NAME_BUDGET : options.toolNameBudget
  const notes = new Set<string>()
  return {
    model,
    options,
    profile,
    extended: profile !== 'topeka',
    portable,
    nameRe: portable ? PORTABLE_TOOL_NAME_RE : TOOL_NAME_RE,
    serverName,
    budget,
    fits: (n) => budget === false || serverName.length + n.length <= budget,
    tokenBudget: portable && options.toolTokenBudget !== false ? (options.toolTokenBudget ?? DEFAULT_TOOL_TOKEN_BUDGET) : undefined,
    typeTool: options.typeTool ?? DEFAULT_TYPE_TOOL,
    methodScopes: methodGlobs(
      Object.entries(options.methodScopes ?? {}).map(([glob, scopes]) => [glob, typeof scopes === 'string' ? [scopes] : scopes] as const),
    ),
    warnings: [],
    notes,
    note: (text) => {
      notes.add(text)
    },
    depths: new Map(),
    detailed: [],
  }
}

/** The tool of one RPC, or undefined when it gets none (filtered out, streaming the profile leaves out, hidden). */
function methodTool(run: BuildRun, filter: MethodSelection, service: ServiceModel, method: MethodModel): ToolSchema | undefined {
  const { model, extended } = run
  const rpc: RpcName = {
    service: service.name,
    method: method.name,
    // A service's own package: a reflected model holds services of several files.
    package: service.fullName.slice(0, Math.max(0, service.fullName.length - service.name.length - 1)),
    fullName: `${service.fullName}.${method.name}`,
  }
  if (!filter.keeps(rpc.fullName)) return undefined
  if (method.requestStream || (method.responseStream && !extended)) return undefined
  const meta: ToolMetadata = extended ? toolMetadata(method) : { hidden: false }
  if (meta.hidden) return undefined
  // The Go generator names a tool, and splits its fallback description from, the RPC's Go name.
  const rpcName = extended ? method.name : goCamelCase(method.name)
  const name = toolNameOf(run, rpc, meta, rpcName)
  const input = toolInput(run, name, method, rpcName)
  const tool: ToolSchema = {
    name,
    description: input.description,
    inputSchema: input.inputSchema,
    service: service.fullName,
    method: method.name,
    requestType: method.requestType,
    responseType: method.responseType,
  }
  // Compared without writing either: a big request's validation schema differs early (portable drops `additionalProperties`).
  if (!sameJson(input.validationSchema, input.inputSchema)) tool.validationSchema = input.validationSchema
  if (input.cuts.length > 0) tool.cuts = { typeTool: run.typeTool, at: input.cuts }
  if (input.cuts.length > 0 || input.trimmed)
    run.detailed.push({ name, description: input.wholeDescription, comment: method.comment, requestType: method.requestType })
  if (meta.title !== undefined) tool.title = meta.title
  if (meta.annotations !== undefined) tool.annotations = meta.annotations
  const scopes = toolScopes(service, method, run.methodScopes)
  if (scopes !== undefined) tool.scopes = scopes
  const longRunning = extended ? longRunningOf(model, method, rpc.package) : undefined
  if (longRunning !== undefined) tool.longRunning = longRunning
  if (extended) {
    // A long-running RPC's result is its operation's response, not the Operation.
    const output = messageSchema(model, longRunning?.responseType ?? method.responseType, { profile: run.profile, mode: 'output' })
    if (method.responseStream) {
      tool.serverStreaming = true
      tool.outputSchema = streamOutputSchema(output)
    }
    // MCP requires an object outputSchema and object structuredContent; a
    // response whose JSON form is not an object (Timestamp, a wrapper,
    // Value) is answered as text only.
    else if (output.type === 'object') tool.outputSchema = output
  }
  return tool
}

/** The tool name of an RPC (shortened when asked), with the warnings of a name some clients refuse. */
function toolNameOf(run: BuildRun, rpc: RpcName, meta: ToolMetadata, rpcName: string): string {
  const { options, extended, portable, nameRe, serverName, budget, fits, warnings } = run
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
  return name
}

/** A tool's request side: its description and input schema fitted to the token budget, and the schema its validator checks. */
interface ToolInput {
  description: string
  /** The description the comment gives whole (what the type tool answers when the budget cut it). */
  wholeDescription: string
  inputSchema: JsonSchema
  validationSchema: JsonSchema
  cuts: Cut[]
  /** Whether a comment was shortened (the description or one in the schema). */
  trimmed: boolean
}

/** The description and input schema of tool `name`: whole comments while the whole schema fits, then cut level by level. */
function toolInput(run: BuildRun, name: string, method: MethodModel, rpcName: string): ToolInput {
  const { model, profile, tokenBudget, typeTool } = run
  let trimmed = false
  const marked = (descriptions: DescriptionLevel) => ({
    marks: tokenBudget !== undefined,
    descriptions,
    trimmed: () => (trimmed = true),
  })
  // Whole comments while the whole schema fits; long comments are the first thing cut.
  const firstLevel: DescriptionLevel = 'full'
  // The comments the request's schema is described from (every build adds its own, the kept one among them):
  // a level that describes each as the one before gives its schema again.
  const comments = new Set<string>()
  const { shape, usedDepth } = requestShape(run, name, method, marked(firstLevel), comments)
  const wholeDescription = describeComment(method.comment) ?? splitName(rpcName)
  const describeAt = (level: DescriptionLevel): string =>
    method.comment === null ? wholeDescription : (descriptionAt(method.comment, level) ?? '')
  let description = tokenBudget === undefined ? wholeDescription : describeAt(firstLevel)
  // Sorted as it is advertised (and as the validator's schema is copied): the shape itself is never sorted.
  let inputSchema = advertiseSorted(shape, profile)
  let cuts: Cut[] = []
  if (tokenBudget !== undefined) {
    let keysOver: boolean | undefined
    const fitted = fitLevels(
      DESCRIPTION_LEVELS.slice(DESCRIPTION_LEVELS.indexOf(firstLevel)),
      levelSchemas(firstLevel, inputSchema, comments, (level) => {
        const build = (stubs: Partial<MessageSchemaOptions>): JsonSchema =>
          advertise(
            messageSchema(model, method.requestType, { profile, mode: 'input', recursionDepth: usedDepth, ...marked(level), ...stubs }),
            profile,
          )
        // The budget opens only the top of a big schema: messages below STUB_DEPTH are stubs until it reads below one.
        let stubbed = false
        const short = build({ stubsBelow: STUB_DEPTH, stubbed: () => (stubbed = true) })
        if (!stubbed) return short
        // The first level's keys but descriptions are this level's: past the budget, no level fits whole.
        keysOver ??= keyFloor(inputSchema, tokenBudget, false) > tokenBudget
        return cutShort(short, () => build({}), keysOver)
      }),
      (level) => ({
        budget: tokenBudget,
        typeTool,
        frame: (schema) => toolText({ name, description: describeAt(level), inputSchema: schema }),
      }),
      (fitted, level) => (level === 'full' ? fitted.whole : !fitted.over),
      // Whole comments only with the whole schema: a cut one at that level is never taken.
      (level) => level === 'full',
    )
    inputSchema = fitted.schema
    description = describeAt(fitted.level)
    cuts = fitted.cuts
    if (fitted.over) {
      run.warnings.push(
        buildWarning(
          'TOOL_OVER_BUDGET',
          `tool "${name}" is ${toolTokens({ name, description, inputSchema })} tokens with every nested message cut and no comments, ` +
            `over the token budget of ${tokenBudget}: its request has too many fields`,
          'raise toolTokenBudget, or leave the RPC out with methods.exclude',
        ),
      )
    }
  }
  if (description !== wholeDescription) trimmed = true
  return { description, wholeDescription, inputSchema, validationSchema: stripNotes(shape, true), cuts, trimmed }
}

/**
 * The request's schema at the asked recursion depth, or shallower for a
 * message that recurses through many fields (inlining grows as
 * (recursive fields)^depth), with the depth used. Its keys are not sorted:
 * the advertised and the validator's schemas are sorted as they are copied.
 */
function requestShape(
  run: BuildRun,
  name: string,
  method: MethodModel,
  marks: { marks: boolean; descriptions: DescriptionLevel; trimmed: () => void },
  comments: Set<string>,
): { shape: JsonSchema; usedDepth: number } {
  const { model, profile, portable } = run
  const depth = run.options.recursionDepth ?? DEFAULT_RECURSION_DEPTH
  let usedDepth = depth
  const first = (d: number, more: Partial<MessageSchemaOptions>): JsonSchema | undefined =>
    // A build that would give up is not started: its walk says so first (what it would have added to `comments`,
    // the build kept adds too: any depth inlines every message the request reaches at least once).
    more.maxObjects !== undefined && passesObjects(model, method.requestType, { profile, recursionDepth: d, maxObjects: more.maxObjects })
      ? undefined
      : messageSchemaWithin(model, method.requestType, { profile, mode: 'input', recursionDepth: d, ...marks, ...more })
  // Unsorted until kept: most of a schema too big to inline is its copy with sorted keys. It gives up past
  // the limit too, unless a note could come late in it (the notes keep the order of the whole build).
  const cap = portable && depth > 1 && !mayNote(model, method.requestType) ? { maxObjects: MAX_INLINED_OBJECTS } : {}
  let shape = first(depth, { note: run.note, comments, sorted: false, ...cap })
  let objects = shape === undefined ? MAX_INLINED_OBJECTS + 1 : portable ? objectCount(shape) : 0
  for (let d = depth - 1; portable && d >= 1 && objects > MAX_INLINED_OBJECTS; d--) {
    // Above depth 1 a build gives up past the limit: each object it makes is one of the finished schema's.
    const within = first(d, { comments, sorted: false, ...(d === 1 ? {} : { maxObjects: MAX_INLINED_OBJECTS }) })
    objects = within === undefined ? MAX_INLINED_OBJECTS + 1 : objectCount(within)
    if (within !== undefined) shape = within
    usedDepth = d
    run.depths.set(method.requestType, d)
    if (d === 1 || objects <= MAX_INLINED_OBJECTS) {
      run.warnings.push(
        buildWarning(
          'RECURSION_SHALLOWER',
          `tool "${name}": ${method.requestType} recurses through many fields; inlined ${d} deep instead of ${depth} ` +
            `to keep its schema under ${MAX_INLINED_OBJECTS} objects (deeper levels are JSON text)`,
        ),
      )
    }
  }
  return { shape: shape!, usedDepth }
}

/** Adds `tool` at the end; an earlier tool of the same name leaves, with a warning naming both services. */
function addTool(run: BuildRun, tools: ToolSchema[], tool: ToolSchema): void {
  const clash = tools.findIndex((t) => t.name === tool.name)
  if (clash >= 0) {
    const other = tools[clash]!
    run.warnings.push(
      buildWarning(
        'TOOL_NAME_CLASH',
        `tool "${tool.name}" is declared by both ${other.service} and ${tool.service}; ` + `the one of ${tool.service} wins`,
        clashFix(run),
      ),
    )
    tools.splice(clash, 1)
  }
  tools.push(tool)
}

/** How a clash is mended, where the naming is the default one (a service's or a qualified name cannot clash across services). */
function clashFix(run: BuildRun): string | undefined {
  const { toolNames } = run.options
  return toolNames === undefined || toolNames === 'method'
    ? "set the toolNames option to 'service' or 'qualified' to keep every RPC"
    : undefined
}

/** Clash warnings past this many are said in one, with their count (Compute's 993 RPCs lose 814 to clashes by method name). */
const MAX_CLASH_WARNINGS = 5

/**
 * More clashes than {@link MAX_CLASH_WARNINGS}: one warning in the place of
 * the first, saying how many RPCs got no tool and naming the first few
 * names, instead of a line each (docs/guide/tool-names.md, "Clashes").
 */
function summarizeClashes(run: BuildRun): void {
  const clashes = run.warnings.filter((w) => w.code === 'TOOL_NAME_CLASH')
  if (clashes.length <= MAX_CLASH_WARNINGS) return
  const names = [...new Set(clashes.map((w) => /^tool "([^"]*)"/.exec(w.message)![1]!))]
  const shown = names.slice(0, MAX_CLASH_WARNINGS).map((n) => `"${n}"`)
  const summary = buildWarning(
    'TOOL_NAME_CLASH',
    `${clashes.length} RPCs get no tool: each shares its tool name with an RPC of another service declared after it ` +
      `(${names.length} names: ${shown.join(', ')}${names.length > shown.length ? ', ...' : ''}); the later RPC's tool wins each name`,
    clashFix(run),
  )
  // In place: the run's parts hold the same array.
  const kept = run.warnings.filter((w) => w.code !== 'TOOL_NAME_CLASH')
  kept.splice(run.warnings.indexOf(clashes[0]!), 0, summary)
  run.warnings.splice(0, run.warnings.length, ...kept)
}

/** The type tool and its answers, when the token budget cut a tool that was kept (and no tool took its name). */
function typeDetailOf(run: BuildRun, tools: readonly ToolSchema[]): TypeDetailSpec | undefined {
  const { model, profile, tokenBudget, typeTool, serverName, budget, warnings } = run
  const kept = run.detailed.filter((d) => tools.some((t) => t.name === d.name))
  if (tokenBudget === undefined || kept.length === 0) return undefined
  if (tools.some((t) => t.name === typeTool)) {
    warnings.push(
      buildWarning(
        'TYPE_TOOL_CLASH',
        `a tool is named "${typeTool}" as the type tool is: the schemas the token budget cut are not offered`,
        'set typeTool to another name',
      ),
    )
    return undefined
  }
  // Every message a tool's request reaches: a model may ask for any of them (for its whole comments too).
  const seeds = reachableMessages(
    model,
    tools.map((t) => t.requestType),
  )
  const types = buildTypeDetail(model, seeds, kept, { profile, budget: tokenBudget, toolName: typeTool })
  if (!run.fits(typeTool)) {
    warnings.push(
      buildWarning(
        'TOOL_NAME_BUDGET',
        `server "${serverName}" + tool "${typeTool}" is ${serverName.length + typeTool.length} characters, over the name budget of ${budget}: ` +
          'Claude Code and Cursor will not offer the tool',
        'set typeTool to a shorter name',
      ),
    )
  }
  return types
}

/**
 * The warnings about the listing as a whole: too many tools, discovery (a meta-tool's name is an error), too many tokens;
 * whether the list's tokens were counted for them.
 */
function listWarnings(run: BuildRun, tools: readonly ToolSchema[], listed: readonly (ToolSchema | TypeToolListing)[]): boolean {
  const { warnings, extended, portable } = run
  const discovery = run.options.discovery ?? { mode: 'auto' }
  // The counts alone: the client rules costs() adds are the verbose report's.
  let listCounted = false
  const listTokens = (): number => {
    listCounted = true
    return listed.reduce((sum, t) => sum + toolTokens(t), 0)
  }
  // Decided first, said after: the size warnings concern a server that lists its tools, not one listing the meta-tools.
  const searching = discovery.mode === 'auto' ? autoSearchWarning(listed, listTokens, discovery) : undefined
  const listsTools = discovery.mode === 'tools' || (discovery.mode === 'auto' && searching === undefined)
  if (listsTools && listed.length > MAX_LISTED_TOOLS) {
    warnings.push(
      buildWarning(
        'TOO_MANY_TOOLS',
        `the server lists ${listed.length} tools: VS Code and OpenAI's chat API take at most ${MAX_LISTED_TOOLS}, Cursor advises about 40`,
        'choose the RPCs with methods.include or methods.exclude',
      ),
    )
  }
  checkMetaToolNames(run.model, tools, discovery)
  if (searching !== undefined) warnings.push(searching)
  // A token is at least a byte: a list of fewer bytes needs no count.
  const bytes = listed.reduce((sum, t) => sum + Buffer.byteLength(toolText(t)), 0)
  // The counts alone (cached: each tool's text was counted as it was fitted), not the client rules costs() adds.
  const total = extended && bytes > LIST_TOKEN_WARNING ? listTokens() : 0
  if (listsTools && total > LIST_TOKEN_WARNING) {
    warnings.push(
      buildWarning(
        'LIST_OVER_TOKENS',
        `the tool list is ${total} tokens, over ${LIST_TOKEN_WARNING} (about a third of a 200k-token context)`,
        portable
          ? 'choose the RPCs with methods.include or methods.exclude, or lower toolTokenBudget'
          : "choose the RPCs with methods.include or methods.exclude, or use profile 'portable' (a token budget per tool)",
      ),
    )
  }
  return listCounted
}

/**
 * The `full` validation schema of each message of `plan` that reaches itself
 * (only those can sit past a recursion cut), by full name, sorted;
 * `undefined` when none recurses.
 */
function deepSchemas(model: ProtoModel, plan: LenientPlan): Record<string, JsonSchema> | undefined {
  const next = (name: string): string[] =>
    (Object.hasOwn(plan.messages, name) ? plan.messages[name]! : []).filter((f) => f.k === 'msg').map((f) => f.t!)
  const recursive = Object.keys(plan.messages)
    .filter((name) => {
      const seen = new Set<string>()
      const queue = next(name)
      while (queue.length > 0) {
        const at = queue.pop()!
        if (at === name) return true
        if (seen.has(at)) continue
        seen.add(at)
        queue.push(...next(at))
      }
      return false
    })
    .sort()
  if (recursive.length === 0) return undefined
  const out: Record<string, JsonSchema> = {}
  for (const name of recursive) setOwn(out, name, stripNotes(messageSchema(model, name, { profile: 'full', mode: 'input' })))
  return out
}

/** The full names of the messages `roots` reach through their fields (well-known types left out), roots first. */
function reachableMessages(model: ProtoModel, roots: readonly string[]): string[] {
  const seen = new Set<string>()
  const queue = [...roots]
  while (queue.length > 0) {
    const name = queue.shift()!
    const message = model.messages.get(name)
    if (seen.has(name) || message === undefined || name.startsWith('google.protobuf.')) continue
    seen.add(name)
    for (const field of message.fields) if (field.type.kind === 'message') queue.push(field.type.typeName)
  }
  return [...seen]
}

/**
 * Each tool's token count and the client rule sets that reject it: the
 * verbose report's lines, and the `/__mcp/` page's (for any tool list,
 * hand-written tools too; `server` is the name clients prefix tools with).
 */
export function toolCosts(tools: readonly (CheckedTool & { description?: string })[], server: string): ToolCost[] {
  const rejected = new Map<string, Set<string>>()
  for (const report of checkClientRules(tools, { server })) {
    for (const v of report.violations) {
      if (v.sev !== 'reject') continue
      let set = rejected.get(v.tool)
      if (!set) rejected.set(v.tool, (set = new Set()))
      set.add(report.name)
    }
  }
  return tools.map((t) => ({ name: t.name, tokens: toolTokens(t), rejectedBy: [...(rejected.get(t.name) ?? [])] }))
}

/**
 * How many messages deep a request's schema is built for a description
 * level after the first (the whole schema is built when the budget's fit
 * reads below that: schema/budget.ts, `cutShort`).
 */
const STUB_DEPTH = 5

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

/**
 * Gives `target[key]` the value `count()` makes on the first read (an own,
 * enumerable property: JSON, spreads and copies read it as a number), then
 * that value, or the one written over it.
 */
function countedWhenRead<T extends object, K extends keyof T & string>(target: T, key: K, count: () => T[K]): void {
  let value: T[K] | undefined
  Object.defineProperty(target, key, {
    configurable: true,
    enumerable: true,
    get: () => (value ??= count()),
    set: (written: T[K]) => {
      value = written
    },
  })
}
