/**
 * The call pipeline of a generated tool (docs/calls.md, "The pipeline"): validate, decode,
 * call the backend, encode. Every failure is a tool result, never a throw.
 */
import { backendErrorResult } from './backend-error.ts'
import { decodeRequest } from './codec.ts'
import { decodeText, encodeReply, messageOf } from './encode-reply.ts'
import { coerceArguments, toProtoJson } from './lenient.ts'
import { preloadProtobuf, protobufReady } from './load-protobuf.ts'
import { sourceOf } from './number-source.ts'
import { describeFailure, type DecodeFailure } from './protojson.ts'
import { toolError, toolResult } from './result.ts'
import { callLongRunningTool } from './long-running.ts'
import { callStreamingTool } from './streaming.ts'
import { countRejected, spanEvent } from './otel.ts'
import type { CompiledTool } from './tool-table.ts'
import type { CallContext, ToolResult } from './types.ts'
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
    spanEvent('proto_mcp.validate', { 'error.type': 'validation' })
    return toolError(invalid)
  }
  spanEvent('proto_mcp.validate')
  if (tool.rewrites) {
    try {
      input = toProtoJson(tool.lenient!, tool.spec.requestType, input)
    } catch (error) {
      return toolError(`decoding arguments: ${messageOf(error)}`)
    }
  }

  let request: unknown
  try {
    request = decodeRequest(tool, input, source)
  } catch {
    return toolError(decodeText('decoding arguments: ', tool, input, false, source))
  }
  spanEvent('proto_mcp.decode')

  const handler = tool.handler
  if (handler === undefined) return toolError(tool.unbound)
  if (tool.spec.serverStreaming) return callStreamingTool(tool, request, context)
  if (tool.spec.longRunning !== undefined) return callLongRunningTool(tool, request, context)
  let response: unknown
  try {
    response = await handler.call(tool.target, request, context)
  } catch (error) {
    spanEvent('proto_mcp.backend', { 'error.type': 'backend_error' })
    return backendErrorResult(error)
  }
  spanEvent('proto_mcp.backend')

  // A handler with nothing to say (an Empty response) may return nothing.
  if (response === undefined) response = EMPTY
  const encoded = encodeReply(tool, response)
  spanEvent('proto_mcp.encode')
  if ('content' in encoded) return encoded
  return toolResult(encoded.json, tool.structured)
}
