/**
 * The whole build pipeline for one `?mcp` module, free of any bundler:
 * load the `.proto`, build the tools, emit the module.
 */
import { basename } from 'node:path'
import { emitModuleDeclarations, emitModuleWithWarnings } from '../codegen/index.ts'
import type { Profile } from '../codegen/index.ts'
import { loadProto } from '../proto/index.ts'
import { buildTools } from '../schema/index.ts'
import type { ToolNames } from '../schema/index.ts'

/** Options of {@link buildMcpModule}. */
export interface BuildMcpModuleOptions {
  /** Absolute directories searched for imports. @default [] */
  importPaths?: string[]
  /** @default 'portable' */
  profile?: Profile
  /** How tools are named (see the plugin's `toolNames` option). @default 'method' */
  toolNames?: ToolNames
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

/**
 * Builds the `?mcp` module of the `.proto` at the absolute path `file`.
 * Throws what the stages throw (a `ProtoError` for a bad `.proto`).
 */
export function buildMcpModule(file: string, options: BuildMcpModuleOptions = {}): BuiltMcpModule {
  const profile = options.profile ?? 'portable'
  const model = loadProto(file, { importPaths: options.importPaths ?? [] })
  const built = buildTools(model, { profile, ...(options.toolNames ? { toolNames: options.toolNames } : {}) })
  const emitted = emitModuleWithWarnings(model, built.tools, { name: serverName(file), profile, hmr: options.hmr ?? false })
  return {
    code: emitted.code,
    watchFiles: model.files,
    warnings: [...model.warnings, ...built.warnings, ...emitted.warnings],
    notes: built.notes,
    ...(options.declarations ? { declarations: emitModuleDeclarations(model) } : {}),
  }
}
