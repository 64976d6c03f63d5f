/**
 * The whole `?mcp` pipeline at start-up, with no bundler: load the `.proto`,
 * build the tools, compile their validators with the code generator's Ajv,
 * and assemble the spec `createProtoServer` takes.
 */
import { compileValidatorsInProcess } from '../codegen/index.ts'
import { serverName } from '../plugin/build-module.ts'
import { loadProto, type ProtoModel } from '../proto/index.ts'
import type { ProtoServerSpec, ValidateFunction } from '../runtime/types.ts'
import { buildTools, type Profile, type ToolNames } from '../schema/index.ts'

/** Options of {@link buildServerSpec}. */
export interface BuildSpecOptions {
  /** Directories searched for imports (resolved against the working directory). @default [] */
  importPaths?: string[]
  /** @default 'portable' */
  profile?: Profile
  /** How tools are named (see the plugin's `toolNames` option). @default 'method' */
  toolNames?: ToolNames
}

/** A spec, the build warnings of every stage, and the verbose report (what the schemas leave out). */
export interface BuiltSpec {
  spec: ProtoServerSpec
  warnings: string[]
  notes: string[]
}

/**
 * Builds the server spec of the `.proto` at `file`, as a generated module
 * would hold it; validators are compiled now (identical schemas share one).
 * Throws what the stages throw (a `ProtoError` for a bad `.proto`).
 */
export function buildServerSpec(file: string, options: BuildSpecOptions = {}): BuiltSpec {
  const model = loadProto(file, { importPaths: options.importPaths ?? [] })
  return specFromModel(model, serverName(file), options)
}

/**
 * Builds the server spec of a loaded model (from a `.proto` or from
 * reflected descriptors) under the server name `name`: the tools, their
 * validators compiled now (identical schemas share one), the codec's descriptor.
 */
export function specFromModel(model: ProtoModel, name: string, options: Omit<BuildSpecOptions, 'importPaths'> = {}): BuiltSpec {
  const profile = options.profile ?? 'portable'
  const built = buildTools(model, { profile, serverName: name, ...(options.toolNames ? { toolNames: options.toolNames } : {}) })
  // The validator checks the exact schema where the advertised one says less (portable, strict).
  const compiled = compileValidatorsInProcess(built.tools.map((tool) => tool.validationSchema ?? tool.inputSchema), built.tools.map((tool) => tool.name))
  // Ajv's own warnings (an unknown format) join the build's instead of going to the console.
  const ajvWarnings = compiled.warnings
  const tools = built.tools.map(({ validationSchema: _, ...tool }, i) => ({ ...tool, validate: compiled.validators[i] as unknown as ValidateFunction }))
  const spec: ProtoServerSpec = {
    name,
    version: '0.0.0',
    profile,
    descriptor: model.descriptor,
    tools,
    services: Object.fromEntries(model.services.map((service) => [service.fullName, service.methods.map((m) => m.name)])),
    ...(built.lenient === undefined ? {} : { lenient: built.lenient }),
  }
  return { spec, warnings: [...model.warnings, ...built.warnings, ...ajvWarnings], notes: built.notes }
}
