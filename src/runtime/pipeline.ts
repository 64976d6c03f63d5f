/**
 * The call pipeline of a generated tool (docs/calls.md §1): validate, decode,
 * call the backend, encode. Every failure is a tool result, never a throw.
 */
import { describeFailure, fromJson, isCyclicValueError, jsonFromJs, locateFailure, toJson } from './protojson.ts'
import { backendErrorResult } from './backend-error.ts'
import { decodeRequest, encodeResponse } from './codec.ts'
import { coerceArguments, toProtoJson } from './lenient.ts'
import { missingRequired } from './required-fields.ts'
import { callStreamingTool } from './streaming.ts'
import type { CompiledTool } from './tool-table.ts'
import type { CallContext, ToolResult } from './types.ts'
import { INVALID_ARGUMENTS, renderValidationErrors } from './validation-text.ts'

const EMPTY: Readonly<Record<string, never>> = Object.freeze({})

/** A tool error: one text item, `isError: true`. */
export function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/** The text of arguments too deeply nested for the validator (it recursed past the stack). */
export const NESTED_TOO_DEEPLY = `${INVALID_ARGUMENTS}: arguments are nested too deeply`

// The reason of a value whose walk overflowed the stack (the fix-ups and the failure locator recurse).
const TOO_DEEP = 'value nested too deeply'

const messageOf = (error: unknown): string =>
  error instanceof RangeError ? TOO_DEEP : error instanceof Error ? error.message : 'unreadable value'

/** `<prefix><path>: <reason>` of a value that failed to decode; never throws. */
function decodeText(prefix: string, tool: CompiledTool, json: unknown, forResponse: boolean): string {
  const type = forResponse ? tool.responseType : tool.requestType
  try {
    return `${prefix}${describeFailure(locateFailure(type, json))}`
  } catch (error) {
    // A value locateFailure cannot walk (a throwing getter, a stack overflow).
    return `${prefix}${messageOf(error)}`
  }
}

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
  return renderValidationErrors(validate.errors ?? [], input)
}

/** The result of a response that did not decode as is: retried once with JS values fixed up (off the hot path). */
function encodeFallback(tool: CompiledTool, response: unknown): ToolResult | { json: unknown } {
  let raw: unknown
  try {
    raw = jsonFromJs(response)
  } catch (error) {
    if (isCyclicValueError(error)) return toolError(`encoding response: ${describeFailure({ path: error.path, reason: 'cyclic value' })}`)
    return toolError(`encoding response: ${messageOf(error)}`)
  }
  try {
    return { json: toJson(tool.responseType, fromJson(tool.responseType, raw)) }
  } catch {
    return toolError(decodeText('encoding response: ', tool, raw, true))
  }
}

/**
 * A handler's `response` as canonical protobuf JSON, or the tool error
 * (`encoding response: <path>: <reason>`) of a response that is not a
 * message of the tool's response type or lacks a required field. Never throws.
 */
export function encodeReply(tool: CompiledTool, response: unknown): ToolResult | { json: unknown } {
  let json: unknown
  try {
    json = encodeResponse(tool, response)
  } catch {
    const fallback = encodeFallback(tool, response)
    if ('content' in fallback) return fallback
    json = fallback.json
  }
  // protobufjs writes a message without its proto2 `required` fields; protobuf JSON encoders refuse it.
  const missing = missingRequired(tool.responseType, json)
  return missing === undefined ? { json } : toolError(`encoding response: ${describeFailure(missing)}`)
}

/**
 * Runs one call of `tool` with the raw `arguments` of a `tools/call`
 * (absent or `null` meaning `{}`), resolving to the result clients see.
 */
export async function callProtoTool(tool: CompiledTool, args: unknown, context: CallContext): Promise<ToolResult> {
  let input: unknown = args == null ? EMPTY : args
  let invalid = validationFailure(tool, input)
  if (invalid !== undefined && tool.lenient !== undefined) {
    // Off the hot path: another spelling the decoder reads, in the advertised form.
    const coerced = coerceArguments(tool.lenient, tool.spec.requestType, input)
    if (coerced !== input) {
      invalid = validationFailure(tool, coerced)
      input = coerced
    }
  }
  if (invalid !== undefined) return toolError(invalid)
  if (tool.rewrites) {
    try {
      input = toProtoJson(tool.lenient!, tool.spec.requestType, input)
    } catch (error) {
      return toolError(`decoding arguments: ${messageOf(error)}`)
    }
  }

  let request: unknown
  try {
    request = decodeRequest(tool, input)
  } catch {
    return toolError(decodeText('decoding arguments: ', tool, input, false))
  }

  const handler = tool.handler
  if (handler === undefined) return toolError(tool.unbound)
  if (tool.spec.serverStreaming) return callStreamingTool(tool, request, context)
  let response: unknown
  try {
    response = await handler.call(tool.target, request, context)
  } catch (error) {
    return backendErrorResult(error)
  }

  // A handler with nothing to say (an Empty response) may return nothing.
  if (response === undefined) response = EMPTY
  const encoded = encodeReply(tool, response)
  if ('content' in encoded) return encoded
  const json = encoded.json
  const text = JSON.stringify(json)
  if (tool.structured && json !== null && typeof json === 'object' && !Array.isArray(json)) {
    return { content: [{ type: 'text', text }], isError: false, structuredContent: json as Record<string, unknown> }
  }
  return { content: [{ type: 'text', text }], isError: false }
}
