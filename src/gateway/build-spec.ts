/**
 * The `?mcp` pipeline at start-up, with no bundler: the build pipeline's
 * in-process output (codegen's `compileInProcess`: validators compiled with the
 * code generator's Ajv), as the spec `createProtoServer` takes.
 */
import { buildProtoTools, compileInProcess, type ResourceBuildOptions, type ToolBuildOptions } from '../codegen/index.ts'
import type { BuildWarning, ProtoModel } from '../proto/index.ts'
import type { ProtoServerSpec } from '../runtime/types.ts'
import type { ToolCost } from '../schema/index.ts'

/** Options of {@link buildServerSpec}: the plugin's options of the same names. */
export interface BuildSpecOptions
  extends
    Pick<ToolBuildOptions, 'profile' | 'toolNames' | 'toolTokenBudget' | 'typeTool' | 'methods' | 'methodScopes' | 'discovery'>,
    ResourceBuildOptions {
  /** Directories searched for imports (resolved against the working directory). @default [] */
  importPaths?: string[]
}

/** A spec, the build warnings of every stage, and the verbose report (what the schemas leave out). */
export interface BuiltSpec {
  spec: ProtoServerSpec
  warnings: BuildWarning[]
  notes: string[]
  /** Each listed tool's token count and the client rule sets that reject it (counted when asked). */
  costs: () => ToolCost[]
  /** The model the spec was built from. */
  model: ProtoModel
}

/**
 * Builds the server spec of the `.proto` at `file`, as a generated module
 * would hold it; validators are compiled now (identical schemas share one).
 * Throws what the stages throw (a `ProtoError` for a bad `.proto`).
 */
export function buildServerSpec(file: string, options: BuildSpecOptions = {}): BuiltSpec {
  const built = buildProtoTools(file, options)
  return { ...compileInProcess(built), model: built.model }
}

/**
 * Builds the server spec of a loaded model (from a `.proto` or from
 * reflected descriptors) under the server name `name`: the tools, their
 * validators compiled now (identical schemas share one), the codec's descriptor.
 */
export function specFromModel(model: ProtoModel, name: string, options: Omit<BuildSpecOptions, 'importPaths'> = {}): BuiltSpec {
  return { ...compileInProcess(buildProtoTools({ model, name }, options)), model }
}
