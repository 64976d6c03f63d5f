/**
 * The whole build pipeline for one `?mcp` module, free of any bundler:
 * load the `.proto`, build the tools, emit the module.
 */
import { basename } from 'node:path'
import { emitModuleDeclarations, emitModuleWithWarnings } from '../codegen/index.ts'
import type { Profile } from '../codegen/index.ts'
import { loadProto } from '../proto/index.ts'
import { buildTools } from '../schema/index.ts'
import type { BuildToolsOptions, ToolNames } from '../schema/index.ts'

/** Options of {@link buildMcpModule}. */
export interface BuildMcpModuleOptions {
  /** Absolute directories searched for imports. @default [] */
  importPaths?: string[]
  /** @default 'portable' */
  profile?: Profile
  /** How tools are named (see the plugin's `toolNames` option). @default 'method' */
  toolNames?: ToolNames
  /** `portable`/`strict`: how often a recursive message is inlined (see the plugin's option). @default 3 */
  recursionDepth?: number
  /** Longest `server name + tool name` without a warning, or `false` (see the plugin's option). @default 57 */
  toolNameBudget?: number | false
  /** Shorten names over the budget (see the plugin's option). @default false */
  shortenToolNames?: boolean
  /** Emit the hot-reload code of Vite's dev server. @default false */
  hmr?: boolean
  /** Also emit the module's TypeScript declarations (`declarations`). @default false */
  declarations?: boolean
}

/** The result of {@link buildMcpModule}. */
export interface BuiltMcpModule {
  /** The module's source. */
  code: string
  /** Every `.proto` read (the file and all it imports): watch them all. */
  watchFiles: string[]
  /** Build warnings of every stage, in stage order. */
  warnings: string[]
  /** The verbose report: what the schemas leave out (e.g. `buf.validate` CEL rules). */
  notes: string[]
  /** The body of the module's `declare module` block, when asked for. */
  declarations?: string
}

/** The server name of a `.proto`: its base name without `.proto`. */
export function serverName(file: string): string {
  return basename(file).replace(/\.proto$/, '')
}

/** The `buildTools` options among a build's options (unset ones left out). */
export function toolOptions(options: Pick<BuildMcpModuleOptions, 'toolNames' | 'recursionDepth' | 'toolNameBudget' | 'shortenToolNames'>): BuildToolsOptions {
  const out: BuildToolsOptions = {}
  if (options.toolNames !== undefined) out.toolNames = options.toolNames
  if (options.recursionDepth !== undefined) out.recursionDepth = options.recursionDepth
  if (options.toolNameBudget !== undefined) out.toolNameBudget = options.toolNameBudget
  if (options.shortenToolNames !== undefined) out.shortenToolNames = options.shortenToolNames
  return out
}

/**
 * Builds the `?mcp` module of the `.proto` at the absolute path `file`.
 * Throws what the stages throw (a `ProtoError` for a bad `.proto`).
 */
export function buildMcpModule(file: string, options: BuildMcpModuleOptions = {}): BuiltMcpModule {
  const profile = options.profile ?? 'portable'
  const model = loadProto(file, { importPaths: options.importPaths ?? [] })
  const built = buildTools(model, { ...toolOptions(options), profile, serverName: serverName(file) })
  const emitted = emitModuleWithWarnings(model, built.tools, {
    name: serverName(file), profile, hmr: options.hmr ?? false, ...(built.lenient ? { lenient: built.lenient } : {}),
  })
  return {
    code: emitted.code,
    watchFiles: model.files,
    warnings: [...model.warnings, ...built.warnings, ...emitted.warnings],
    notes: built.notes,
    ...(options.declarations ? { declarations: emitModuleDeclarations(model) } : {}),
  }
}
