/**
 * Hand-written tools: a JSON Schema 2020-12 document compiled with Ajv when
 * the tool is registered, and a handler that returns its result.
 */
import type Ajv2020 from 'ajv/dist/2020.js'
import { HAND_TOOL_VALIDATOR_OPTIONS } from '../../contract/index.ts'
import { toolError } from '../../runtime/result.ts'
import { errorStatusText } from '../../runtime/status.ts'
import { runtimeError } from '../../runtime/errors.ts'
import type { CallContext, JsonSchema, ValidationError } from '../../runtime/types.ts'
import { renderValidationErrors } from '../../runtime/validation-text.ts'
import { loadAjv } from '../validation/ajv-engine.ts'
import { scanHeaderParams } from './header-params.ts'
import type { TaskSupport } from '../tasks/tasks.ts'
import type { CallResult, ListedTool, ToolEntry, ToolRequirements } from './tool-set.ts'
import { isRecord } from '../../contract/is-record.ts'

/** A hand-written tool's definition: what `tools/list` shows, plus who may see it. */
export interface ToolDefinition {
  name: string
  description?: string
  title?: string
  /** A JSON Schema 2020-12 document for the arguments (an object schema). */
  inputSchema: JsonSchema
  /** Advertised as is; a result's `structuredContent` should match it. */
  outputSchema?: JsonSchema
  annotations?: Record<string, unknown>
  /** Scopes and server features a caller needs for the tool to exist for it (docs/serving.md, "Tools, errors and visibility"). */
  requires?: ToolRequirements
  /**
   * Whether a call may run as a task (the Tasks extension, docs/serving.md, "Tasks"):
   * `optional`, when the caller can take one; `required`, only as one (a
   * caller that cannot is refused with `-32021`). @default 'forbidden'
   */
  execution?: { taskSupport?: TaskSupport }
}

/** What a hand-written tool's handler receives besides its arguments. */
export interface ToolContext<State = unknown> extends CallContext {
  /** The server's shared state (the builder's `state(value)`). */
  state: State
}

/**
 * A hand-written tool's handler: receives the validated arguments and
 * returns the result. Return `{ content, isError: true }` for a failure;
 * a throw becomes `rpc error: code = Unknown desc = <message>` (or the
 * thrown status), but for one with a JSON-RPC `code` (-32768 to -32000,
 * the SDK's `ProtocolError`): the request answers with that error.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a hand-written tool's arguments are typed by its handler
export type ToolHandler<State = unknown, Args = any> = (args: Args, context: ToolContext<State>) => CallResult | Promise<CallResult>

const EMPTY: Readonly<Record<string, never>> = Object.freeze({})

const NAME_RE = /^[A-Za-z0-9_.-]{1,128}$/
const TASK_SUPPORT: readonly TaskSupport[] = ['forbidden', 'optional', 'required']

let checker: Ajv2020 | undefined

/**
 * An Ajv with the options every hand-written schema is compiled with (the
 * contract's `HAND_TOOL_VALIDATOR_OPTIONS`): 2020-12, all errors, verbose
 * (the error texts read `schema`/`data`), own keys only (a property named
 * `constructor` must not find `Object.prototype.constructor`).
 */
function newAjv(options: { validateSchema?: false } = {}): Ajv2020 {
  const { Ajv2020, addFormats } = loadAjv()
  // No logger: a schema that does not compile is reported by the BAD_SPEC error, not printed.
  const ajv = new Ajv2020({ ...HAND_TOOL_VALIDATOR_OPTIONS, logger: false, ...options })
  addFormats(ajv)
  return ajv
}

/**
 * Each tool's schema is compiled by an Ajv of its own, which goes with the
 * tool: an Ajv keeps what it compiled (its code's scope values) for as long
 * as it lives, even after `removeSchema`, so one shared instance grew with
 * every tool a server ever added (about 3 KB each: a server changing its
 * tools at run time leaked). A fresh instance costs about as much as the
 * compilation itself; the schema is checked against the meta-schema first
 * by one shared instance, which compiles the meta-schema once and keeps
 * nothing per schema. `$id`s of different tools never clash either.
 */
function compileSchema(schema: JsonSchema): ReturnType<Ajv2020['compile']> {
  return newAjv({ validateSchema: false }).compile(schema)
}

/** Whether `error` carries a JSON-RPC error code (an integer from -32768 to -32000; gRPC status codes are positive). */
function isJsonRpcError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'number' && Number.isInteger(code) && code >= -32768 && code <= -32000
}

/** `at /properties/a/type: must be equal to one of the allowed values` for each meta-schema error. */
function schemaErrors(errors: readonly { instancePath: string; message?: string }[]): string {
  return errors.map((e) => `at "${e.instancePath || '/'}": ${e.message ?? 'is invalid'}`).join('; ')
}

/**
 * Compiles `tool.inputSchema` and returns the tool's entry. Throws a
 * `BAD_SPEC` runtime error naming the tool and the schema path when the
 * schema is not a valid 2020-12 document or does not compile.
 */
export function handWrittenToolEntry<State>(tool: ToolDefinition, handler: ToolHandler<State>, appState: () => State): ToolEntry {
  if (typeof tool?.name !== 'string' || !NAME_RE.test(tool.name)) {
    throw runtimeError('BAD_SPEC', `tool name ${JSON.stringify(tool?.name)} is invalid: use 1 to 128 letters, digits, "_", "-" or "."`)
  }
  if (typeof handler !== 'function') throw runtimeError('BAD_SPEC', `tool "${tool.name}" has no handler function`)
  const schema = tool.inputSchema
  if (!isRecord(schema)) {
    throw runtimeError('BAD_SPEC', `tool "${tool.name}": inputSchema must be a JSON Schema object`)
  }
  checker ??= newAjv()
  if (!checker.validateSchema(schema)) {
    throw runtimeError('BAD_SPEC', `tool "${tool.name}": invalid inputSchema ${schemaErrors(checker.errors ?? [])}`)
  }
  let validate: ReturnType<Ajv2020['compile']>
  try {
    validate = compileSchema(schema)
  } catch (cause) {
    throw runtimeError('BAD_SPEC', `tool "${tool.name}": cannot compile inputSchema: ${(cause as Error).message}`, cause)
  }
  try {
    scanHeaderParams(schema)
  } catch (cause) {
    throw runtimeError('BAD_SPEC', `tool "${tool.name}": ${(cause as Error).message}`, cause)
  }
  const listed: ListedTool = { name: tool.name, description: tool.description ?? '', inputSchema: schema }
  if (tool.title !== undefined) listed.title = tool.title
  if (tool.outputSchema !== undefined) listed.outputSchema = tool.outputSchema
  if (tool.annotations !== undefined) listed.annotations = tool.annotations
  const support = tool.execution?.taskSupport
  if (
    tool.execution !== undefined &&
    (tool.execution === null || typeof tool.execution !== 'object' || !TASK_SUPPORT.includes(support as TaskSupport))
  ) {
    throw runtimeError(
      'BAD_SPEC',
      `tool "${tool.name}": execution.taskSupport must be one of ${TASK_SUPPORT.join(', ')}, got ${JSON.stringify(support)}`,
    )
  }
  const call = async (args: unknown, context: CallContext): Promise<CallResult> => {
    const input = args == null ? EMPTY : args
    let valid: boolean
    try {
      valid = validate(input) as boolean
    } catch (error) {
      return toolError(`invalid arguments: ${error instanceof Error ? error.message : 'unreadable value'}`)
    }
    // Ajv adds an `if` error after the failing `then`/`else` branch's own errors; it repeats them, so it goes.
    if (!valid)
      return toolError(renderValidationErrors((validate.errors ?? []).filter((e) => e.keyword !== 'if') as ValidationError[], input))
    try {
      const result = await handler(input, { ...context, state: appState() })
      if (result === null || typeof result !== 'object') {
        return toolError(`tool "${tool.name}" returned ${result === null ? 'null' : typeof result}, not a result object`)
      }
      return result
    } catch (error) {
      // A JSON-RPC error the handler chose to answer with (the SDK's ProtocolError, say): the request fails with it, a task too.
      if (isJsonRpcError(error)) throw error
      return toolError(errorStatusText(error))
    }
  }
  const entry: ToolEntry = tool.requires === undefined ? { listed, call } : { listed, call, requires: tool.requires }
  return support === 'optional' || support === 'required' ? { ...entry, taskSupport: support } : entry
}
