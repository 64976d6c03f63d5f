/**
 * The call pipeline of a generated tool (docs/calls.md, "The pipeline"): validate, decode,
 * call the backend, encode. Every failure is a tool result, never a throw.
 */
import { backendErrorResult } from './backend-error.ts'
import { decodeRequest } from './codec.ts'
import { decodeText, encodeReply, messageOf } from './encode-reply.ts'
import { coerceArguments, fullPlanOf, toProtoJson, type DeepPart } from './lenient.ts'
import { preloadProtobuf, protobufReady } from './load-protobuf.ts'
import { sourceOf } from './number-source.ts'
import { describeFailure, type DecodeFailure } from './protojson.ts'
import { toolError, toolResult } from './result.ts'
import { callLongRunningTool } from './long-running.ts'
import { callStreamingTool } from './streaming.ts'
import { activeSpan, countRejected } from './otel.ts'
import type { CompiledTool } from './tool-table.ts'
import type { CallContext, ToolResult, ValidationError } from './types.ts'
import { INVALID_ARGUMENTS, renderValidationErrors } from './validation-text.ts'

const EMPTY: Readonly<Record<string, never>> = Object.freeze({})

/** The text of arguments too deeply nested for the validator (it recursed past the stack). */
export const NESTED_TOO_DEEPLY = `${INVALID_ARGUMENTS}: arguments are nested too deeply`

/**
 * The tool error text of `input` failing validation, `undefined` if it is
 * valid. A validator that throws (it overflows the stack on deeply nested
 * input) fails the call; the try/catch costs nothing when nothing throws.
 */
function validationFailure(tool: CompiledTool, input: unknown): string | undefined {
  const validate = tool.spec.validate
  try {
    if (validate(input)) return undefined
  } catch (error) {
    return error instanceof RangeError ? NESTED_TOO_DEEPLY : `${INVALID_ARGUMENTS}: ${messageOf(error)}`
  }
  return renderValidationErrors(validate.errors ?? [], input, tool.spec)
}

/**
 * The tool error text of the parts sent as JSON text past the recursion
 * depth that break their message's rules, `undefined` if all keep them:
 * each part (read as `full` reads it) goes through its message's `full`
 * validator, and its errors are told at their path in the arguments, as
 * the tool's own validator tells them (docs/profiles.md).
 */
function deepFailure(tool: CompiledTool, parts: readonly DeepPart[]): string | undefined {
  const plan = fullPlanOf(tool.lenient!)
  const errors: ValidationError[] = []
  // The failing parts at their pointers, for the texts that show a value.
  const data: Record<string, unknown> = {}
  for (const part of parts) {
    const validate = Object.hasOwn(tool.deep!, part.type) ? tool.deep![part.type] : undefined
    if (validate === undefined) continue
    const value = coerceArguments(plan, part.type, part.value)
    try {
      if (validate(value)) continue
    } catch (error) {
      return error instanceof RangeError ? NESTED_TOO_DEEPLY : `${INVALID_ARGUMENTS}: ${messageOf(error)}`
    }
    placeAt(data, part.pointer, value)
    for (const error of validate.errors ?? [])
      errors.push({ ...error, instancePath: part.pointer + error.instancePath, schemaPath: part.pointer + error.schemaPath })
  }
  return errors.length === 0 ? undefined : renderValidationErrors(errors, data, tool.spec)
}

/** Sets `value` at the JSON pointer `pointer` of `data`, making the objects on the way (own keys only). */
function placeAt(data: Record<string, unknown>, pointer: string, value: unknown): void {
  const keys = pointer
    .slice(1)
    .split('/')
    .map((raw) => raw.replace(/~1/g, '/').replace(/~0/g, '~'))
  let at = data
  keys.forEach((key, i) => {
    const next = i === keys.length - 1 ? value : Object.hasOwn(at, key) ? at[key] : {}
    Object.defineProperty(at, key, { value: next, enumerable: true, writable: true, configurable: true })
    at = next as Record<string, unknown>
  })
}

/**
 * Runs one call of `tool` with the raw `arguments` of a `tools/call`
 * (absent or `null` meaning `{}`), resolving to the result clients see.
 */
export async function callProtoTool(tool: CompiledTool, args: unknown, context: CallContext): Promise<ToolResult> {
  // Every reply is checked against its reflected type (required fields), so the first call fetches protobufjs.
  if (!protobufReady()) {
    try {
      await preloadProtobuf()
    } catch (error) {
      return toolError(`loading protobufjs: ${messageOf(error)}`)
    }
  }
  // The request's span (with an SDK), which each stage below marks with an event.
  const span = activeSpan()
  let input: unknown = args == null ? EMPTY : args
  // The JSON text the arguments came from (stdio, HTTP): 64-bit numbers past ±2^53 are read from it.
  const source = sourceOf(args)
  let invalid = validationFailure(tool, input)
  if (invalid !== undefined && tool.lenient !== undefined) {
    // Off the hot path: another spelling the decoder reads, in the advertised form.
    const refused: DecodeFailure[] = []
    const coerced = coerceArguments(tool.lenient, tool.spec.requestType, input, source, refused)
    if (refused.length > 0) return toolError(`decoding arguments: ${describeFailure(refused[0]!)}`)
    if (coerced !== input) {
      invalid = validationFailure(tool, coerced)
      input = coerced
    }
  }
  if (invalid !== undefined) {
    countRejected('validation')
    span?.addEvent('proto_mcp.validate', { 'error.type': 'validation' })
    return toolError(invalid)
  }
  span?.addEvent('proto_mcp.validate')
  if (tool.rewrites) {
    // Messages sent as JSON text past the recursion depth: the advertised schema said only "string" of them.
    const deep: DeepPart[] | undefined = tool.deep === undefined ? undefined : []
    try {
      input = toProtoJson(tool.lenient!, tool.spec.requestType, input, deep)
    } catch (error) {
      return toolError(`decoding arguments: ${messageOf(error)}`)
    }
    const broken = deep === undefined || deep.length === 0 ? undefined : deepFailure(tool, deep)
    if (broken !== undefined) {
      countRejected('validation')
      return toolError(broken)
    }
  }

  let request: unknown
  try {
    request = decodeRequest(tool, input, source)
  } catch {
    return toolError(decodeText('decoding arguments: ', tool, input, false, source))
  }
  span?.addEvent('proto_mcp.decode')

  const handler = tool.handler
  if (handler === undefined) return toolError(tool.unbound)
  if (tool.spec.serverStreaming) return callStreamingTool(tool, request, context)
  if (tool.spec.longRunning !== undefined) return callLongRunningTool(tool, request, context)
  let response: unknown
  try {
    response = await handler.call(tool.target, request, context)
  } catch (error) {
    span?.addEvent('proto_mcp.backend', { 'error.type': 'backend_error' })
    return backendErrorResult(error)
  }
  span?.addEvent('proto_mcp.backend')

  // A handler with nothing to say (an Empty response) may return nothing.
  if (response === undefined) response = EMPTY
  const encoded = encodeReply(tool, response)
  span?.addEvent('proto_mcp.encode')
  if ('content' in encoded) return encoded
  return toolResult(encoded.json, tool.structured)
}
