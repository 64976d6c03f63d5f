/**
 * The one build pipeline, free of any bundler: a `.proto` file (or a model
 * from reflected descriptors) → the model → the tools → one of two outputs:
 * the `?mcp` module's source ({@link emitModuleSource}, what the plugin serves) or
 * the spec compiled in process ({@link compileInProcess}, what the `proto-mcp`
 * command and the gateway serve). Every stage's warnings are passed up as
 * data (`{ code, message, fix? }`).
 */
import { DEFAULT_SERVER_VERSION } from '../contract/defaults.ts'
import { basename } from 'node:path'
import { isDescriptorSetFile, loadDescriptorSet, loadProto } from '../proto/index.ts'
import type { BuildWarning, ProtoModel } from '../proto/index.ts'
import { DEFAULT_PROFILE } from '../contract/index.ts'
import { buildPrompts, buildTools, listingWarnings, protoResources, serviceCommentsKey } from '../schema/index.ts'
import type { BuildToolsOptions, JsonSchema, Profile, ToolCost, ToolSchema, TypeDetailSpec } from '../schema/index.ts'
import {
  resourceListing,
  serviceMethods,
  type DiscoverySpec,
  type LenientPlan,
  type ListResourcesOption,
  type PromptSpec,
  type ProtoResourcesSpec,
  type ProtoServerSpec,
  type ProtoToolSpec,
  type ResourceSchemeOption,
} from '../contract/index.ts'
import { compileValidatorsInProcess } from './compile-validators.ts'
import { emitModuleDeclarations } from './emit-dts.ts'
import { emitModuleWithWarnings } from './emit-module.ts'

/** How the tools are built: the plugin's options of the same names. */
export type ToolBuildOptions = Pick<
  BuildToolsOptions,
  | 'profile'
  | 'toolNames'
  | 'recursionDepth'
  | 'toolNameBudget'
  | 'shortenToolNames'
  | 'toolTokenBudget'
  | 'typeTool'
  | 'methods'
  | 'methodScopes'
  | 'discovery'
>

/** How the resources from `google.api.resource` are built: the plugin's options of the same names (docs/guide/resources.md). */
export interface ResourceBuildOptions {
  /** The templates' URI scheme, or schemes by the default one. @default the resource type's service name (`pubsub`) */
  resourceScheme?: ResourceSchemeOption
  /** What `resources/list` lists of them, through the List RPCs. @default false (nothing) */
  listResources?: ListResourcesOption
}

/** Options of {@link buildProtoTools}. */
export interface ProtoToolsOptions extends ToolBuildOptions, ResourceBuildOptions {
  /** Absolute directories searched for imports (a file source only). @default [] */
  importPaths?: string[]
}

/** A loaded model and the server name its tools are built under (reflection has no `.proto` file to name it). */
export interface ModelSource {
  model: ProtoModel
  /** The server's name (`serverInfo.name`, and the name budget's server part). */
  name: string
}

/** What {@link buildProtoTools} returns: the stages before output, for {@link emitModuleSource} or {@link compileInProcess}. */
export interface ProtoTools {
  model: ProtoModel
  /** The server's name. */
  name: string
  profile: Profile
  /** In declaration order. */
  tools: ToolSchema[]
  /** What the run-time lenient pass reads; absent in `topeka`. */
  lenient?: LenientPlan
  /** `portable`/`strict`: the `full` validation schemas of the recursive messages (`buildTools`'s `deep`). */
  deep?: Record<string, JsonSchema>
  /** The proto and schema stages' warnings, in stage order. */
  warnings: BuildWarning[]
  /** The verbose report: what the schemas leave out (e.g. `buf.validate` CEL rules). */
  notes: string[]
  /** The type tool and its answers, when the token budget cut something. */
  types?: TypeDetailSpec
  /** Each listed tool's token count and the client rule sets that reject it (counted when asked). */
  costs: () => ToolCost[]
  /** Tool discovery, when the build was given it (the spec carries it). */
  discovery?: DiscoverySpec
  /** Prompts from `(proto_mcp.prompt)` options, when the file has some (the spec carries them). */
  prompts?: PromptSpec[]
  /** Resource templates from `google.api.resource`, when the served RPCs give some (the spec carries them). */
  resources?: ProtoResourcesSpec
}

/** The server name of a `.proto` or a descriptor set: its base name without `.proto` (`.binpb`, `.pb`, `.desc`, `.json`). */
export function serverName(file: string): string {
  return basename(file).replace(/\.(?:proto|binpb|pb|desc|json)$/, '')
}

/** The model of the file at `file`: a `.proto`, or a descriptor set (by its extension: docs/guide/gateway.md). */
function loadSource(file: string, importPaths: string[]): ProtoModel {
  return isDescriptorSetFile(file) ? loadDescriptorSet(file) : loadProto(file, { importPaths })
}

/** The `buildTools` options among a build's options (unset ones left out). */
export function toolOptions(options: ToolBuildOptions): ToolBuildOptions {
  const out: ToolBuildOptions = {}
  if (options.profile !== undefined) out.profile = options.profile
  if (options.toolNames !== undefined) out.toolNames = options.toolNames
  if (options.recursionDepth !== undefined) out.recursionDepth = options.recursionDepth
  if (options.toolNameBudget !== undefined) out.toolNameBudget = options.toolNameBudget
  if (options.shortenToolNames !== undefined) out.shortenToolNames = options.shortenToolNames
  if (options.toolTokenBudget !== undefined) out.toolTokenBudget = options.toolTokenBudget
  if (options.typeTool !== undefined) out.typeTool = options.typeTool
  if (options.methods !== undefined) out.methods = options.methods
  if (options.methodScopes !== undefined) out.methodScopes = options.methodScopes
  if (options.discovery !== undefined) out.discovery = options.discovery
  return out
}

/**
 * The model and tools of `source`: the `.proto` at an absolute path (named
 * by {@link serverName}), or a loaded model with its server name.
 * Throws what the stages throw (a `ProtoError` for a bad `.proto`).
 */
export function buildProtoTools(source: string | ModelSource, options: ProtoToolsOptions = {}): ProtoTools {
  const profile = options.profile ?? DEFAULT_PROFILE
  const { model, name } =
    typeof source === 'string' ? { model: loadSource(source, options.importPaths ?? []), name: serverName(source) } : source
  const built = buildTools(model, { ...toolOptions(options), profile, serverName: name })
  const prompts = buildPrompts(model, options.methods === undefined ? {} : { methods: options.methods })
  const resources = protoResources(model, built.tools, options.resourceScheme === undefined ? {} : { scheme: options.resourceScheme })
  const listing = resourceListing(options.listResources)
  return {
    model,
    name,
    profile,
    tools: built.tools,
    ...(built.lenient === undefined ? {} : { lenient: built.lenient }),
    ...(built.deep === undefined ? {} : { deep: built.deep }),
    warnings: [...model.warnings, ...built.warnings, ...resources.warnings, ...listingWarnings(resources.resources, listing)],
    notes: built.notes,
    ...(built.types === undefined ? {} : { types: built.types }),
    costs: built.costs,
    ...(options.discovery === undefined ? {} : { discovery: options.discovery }),
    ...(prompts.length === 0 ? {} : { prompts }),
    ...(resources.resources.length === 0
      ? {}
      : { resources: { templates: resources.resources, ...(listing === undefined ? {} : { list: listing }) } }),
  }
}

/** Options of {@link emitModuleSource}. */
export interface ModuleSourceOptions {
  /** Emit the hot-reload code of Vite's dev server. @default false */
  hmr?: boolean
  /** Also emit the module's TypeScript declarations (`declarations`). @default false */
  declarations?: boolean
}

/** The result of {@link emitModuleSource}. */
export interface ModuleSource {
  /** The module's source. */
  code: string
  /** Every `.proto` read (the file and all it imports): watch them all. */
  watchFiles: string[]
  /** Build warnings of every stage, in stage order. */
  warnings: BuildWarning[]
  /** The verbose report: what the schemas leave out (e.g. `buf.validate` CEL rules). */
  notes: string[]
  /** The body of the module's `declare module` block, when asked for. */
  declarations?: string
  /** Each listed tool's token count and the client rule sets that reject it (counted when asked: the verbose report). */
  costs: () => ToolCost[]
}

/** Output one: the `?mcp` module's source, its validators compiled to standalone code. */
export function emitModuleSource(built: ProtoTools, options: ModuleSourceOptions = {}): ModuleSource {
  const emitted = emitModuleWithWarnings(built.model, built.tools, {
    name: built.name,
    profile: built.profile,
    hmr: options.hmr ?? false,
    ...(built.lenient ? { lenient: built.lenient } : {}),
    ...(built.deep ? { deep: built.deep } : {}),
    ...(built.types ? { types: built.types } : {}),
    ...(built.discovery ? { discovery: built.discovery } : {}),
    ...(built.prompts ? { prompts: built.prompts } : {}),
    ...(built.resources ? { resources: built.resources } : {}),
  })
  return {
    code: emitted.code,
    watchFiles: built.model.files,
    warnings: [...built.warnings, ...emitted.warnings],
    notes: built.notes,
    ...(options.declarations ? { declarations: emitModuleDeclarations(built.model) } : {}),
    costs: built.costs,
  }
}

/** The result of {@link compileInProcess}. */
export interface InProcessSpec {
  spec: ProtoServerSpec
  /** Build warnings of every stage, in stage order. */
  warnings: BuildWarning[]
  /** The verbose report: what the schemas leave out. */
  notes: string[]
  /** Each listed tool's token count and the client rule sets that reject it (counted when asked). */
  costs: () => ToolCost[]
}

/** The verbose report's line for one tool: its token count and the client rule sets that reject it. */
export function costNote(cost: ToolCost): string {
  return `tool "${cost.name}": ${cost.tokens} tokens${cost.rejectedBy.length > 0 ? `; rejected by ${cost.rejectedBy.join(', ')}` : ''}`
}

/**
 * Output two: the spec a generated module would hold, its validators
 * compiled now with the code generator's Ajv (identical schemas share one).
 */
export function compileInProcess(built: ProtoTools): InProcessSpec {
  // The validator checks the exact schema where the advertised one says less (portable, strict).
  // The recursive messages' `full` validators after the tools' (one Ajv: shared schemas compiled once).
  const deep = Object.entries(built.deep ?? {})
  const compiled = compileValidatorsInProcess(
    [...built.tools.map((tool) => tool.validationSchema ?? tool.inputSchema), ...deep.map(([, schema]) => schema)],
    [...built.tools.map((tool) => tool.name), ...deep.map(([type]) => `(deep ${type})`)],
    // The recursive messages' validators on their first call: tools/list waits for none of them.
    built.tools.length,
  )
  // Ajv's own warnings (an unknown format) join the build's instead of going to the console.
  const tools = built.tools.map((tool, i): ProtoToolSpec => {
    // Copied with its accessors: a count made when first read (`tokens`, build-tools.ts) stays unmade until then.
    const copy = Object.defineProperties({}, Object.getOwnPropertyDescriptors(tool)) as ToolSchema & Partial<ProtoToolSpec>
    delete copy.validationSchema
    copy.validate = compiled.validators[i]!
    return copy as ProtoToolSpec
  })
  const spec: ProtoServerSpec = {
    name: built.name,
    version: DEFAULT_SERVER_VERSION,
    profile: built.profile,
    descriptor: built.model.descriptor,
    tools,
    services: serviceMethods(built.model.services),
    ...serviceCommentsKey(built.model.services),
    ...(built.lenient === undefined ? {} : { lenient: built.lenient }),
    ...(deep.length === 0
      ? {}
      : { deep: Object.fromEntries(deep.map(([type], i) => [type, compiled.validators[built.tools.length + i]!] as const)) }),
    ...(built.types === undefined ? {} : { types: built.types }),
    ...(built.discovery === undefined ? {} : { discovery: built.discovery }),
    ...(built.prompts === undefined ? {} : { prompts: built.prompts }),
    ...(built.resources === undefined ? {} : { resources: built.resources }),
  }
  return { spec, warnings: [...built.warnings, ...compiled.warnings], notes: built.notes, costs: built.costs }
}

/** Options of {@link buildModuleSource}. */
export interface BuildModuleSourceOptions extends ProtoToolsOptions, ModuleSourceOptions {}

/**
 * Builds the `?mcp` module of the `.proto` at the absolute path `file`
 * ({@link buildProtoTools}, then {@link emitModuleSource}).
 * Throws what the stages throw (a `ProtoError` for a bad `.proto`).
 */
export function buildModuleSource(file: string, options: BuildModuleSourceOptions = {}): ModuleSource {
  return emitModuleSource(buildProtoTools(file, options), options)
}
