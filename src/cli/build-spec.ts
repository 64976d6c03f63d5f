/**
 * The `?mcp` pipeline at start-up, with no bundler: the build pipeline's
 * in-process output (codegen's `compileProto`: validators compiled with the
 * code generator's Ajv), as the spec `createProtoServer` takes.
 */
import { buildProto, compileProto, type CompiledProto } from '../codegen/index.ts'
import type { BuildWarning, ProtoModel } from '../proto/index.ts'
import type { ProtoServerSpec } from '../runtime/types.ts'
import type { Profile, ToolNames } from '../schema/index.ts'

/** Options of {@link buildServerSpec}. */
export interface BuildSpecOptions {
  /** Directories searched for imports (resolved against the working directory). @default [] */
  importPaths?: string[]
  /** @default 'portable' */
  profile?: Profile
  /** How tools are named (see the plugin's `toolNames` option). @default 'method' */
  toolNames?: ToolNames
  /** OAuth scopes by method glob (see the plugin's `methodScopes` option). @default {} */
  methodScopes?: Readonly<Record<string, string | readonly string[]>>
}

/** A spec, the build warnings of every stage, and the verbose report (what the schemas leave out). */
export interface BuiltSpec {
  spec: ProtoServerSpec
  warnings: BuildWarning[]
  notes: string[]
}

/** The compiled output as the runtime's spec type (Ajv's validators are the runtime's `ValidateFunction`s). */
const asBuiltSpec = (compiled: CompiledProto): BuiltSpec => ({ ...compiled, spec: compiled.spec as unknown as ProtoServerSpec })

/**
 * Builds the server spec of the `.proto` at `file`, as a generated module
 * would hold it; validators are compiled now (identical schemas share one).
 * Throws what the stages throw (a `ProtoError` for a bad `.proto`).
 */
export function buildServerSpec(file: string, options: BuildSpecOptions = {}): BuiltSpec {
  return asBuiltSpec(compileProto(buildProto(file, options)))
}

/**
 * Builds the server spec of a loaded model (from a `.proto` or from
 * reflected descriptors) under the server name `name`: the tools, their
 * validators compiled now (identical schemas share one), the codec's descriptor.
 */
export function specFromModel(model: ProtoModel, name: string, options: Omit<BuildSpecOptions, 'importPaths'> = {}): BuiltSpec {
  return asBuiltSpec(compileProto(buildProto({ model, name }, options)))
}
