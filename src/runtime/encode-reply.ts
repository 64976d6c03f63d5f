/**
 * A handler's response as canonical protobuf JSON (docs/calls.md, "The pipeline"), for
 * unary and streamed replies alike, and the texts of values that do not
 * decode. Never throws: a failure is a tool error.
 */
import { describeFailure, fromJson, isCyclicValueError, jsonFromJs, locateFailure, toJson } from './protojson.ts'
import { encodeResponse } from './codec.ts'
import { exactIntegers, isExactIntegerError } from './exact-integers.ts'
import type { NumberSource } from './number-source.ts'
import { missingRequired } from './required-fields.ts'
import { toolError } from './result.ts'
import type { CompiledTool } from './tool-table.ts'
import type { ToolResult } from './types.ts'

// The reason of a value whose walk overflowed the stack (the fix-ups and the failure locator recurse).
const TOO_DEEP = 'value nested too deeply'

/** The reason of a thrown `error` as a tool error says it. */
export const messageOf = (error: unknown): string =>
  error instanceof RangeError ? TOO_DEEP : error instanceof Error ? error.message : 'unreadable value'

/**
 * `<prefix><path>: <reason>` of a value that failed to decode; never
 * throws. A request is located as the decoder read it: after the exact
 * pass over its 64-bit values (`source`, the text it came from).
 */
export function decodeText(prefix: string, tool: CompiledTool, json: unknown, forResponse: boolean, source?: NumberSource): string {
  const type = forResponse ? tool.responseType : tool.requestType
  try {
    const read = forResponse ? json : exactIntegers(type, json, source)
    return `${prefix}${describeFailure(locateFailure(type, read))}`
  } catch (error) {
    if (isExactIntegerError(error)) return `${prefix}${describeFailure(error)}`
    // A value locateFailure cannot walk (a throwing getter, a stack overflow).
    return `${prefix}${messageOf(error)}`
  }
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
