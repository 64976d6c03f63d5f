/**
 * The call pipeline of a generated tool (runtime.md §1): validate, decode,
 * call the backend, encode. Every failure is a tool result, never a throw.
 */
import { describeFailure, fromJson, jsonFromJs, locateFailure, toJson } from './protojson.ts'
import { errorStatusText } from './status.ts'
import type { CompiledTool } from './tool-table.ts'
import type { CallContext, ToolResult } from './types.ts'
import { renderValidationErrors } from './validation-text.ts'

const EMPTY: Readonly<Record<string, never>> = Object.freeze({})

/** A tool error: one text item, `isError: true`. */
export function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

function decodeText(prefix: string, tool: CompiledTool, json: unknown, forResponse: boolean): string {
  const type = forResponse ? tool.responseType : tool.requestType
  return `${prefix}${describeFailure(locateFailure(type, json))}`
}

/**
 * Runs one call of `tool` with the raw `arguments` of a `tools/call`
 * (absent or `null` meaning `{}`), resolving to the result clients see.
 */
export async function callProtoTool(tool: CompiledTool, args: unknown, context: CallContext): Promise<ToolResult> {
  const input = args == null ? EMPTY : args
  const validate = tool.spec.validate
  if (!validate(input)) return toolError(renderValidationErrors(validate.errors ?? []))

  let request: unknown
  try {
    request = toJson(tool.requestType, fromJson(tool.requestType, input))
  } catch {
    return toolError(decodeText('decoding arguments: ', tool, input, false))
  }

  const handler = tool.handler
  if (handler === undefined) return toolError(tool.unbound)
  let response: unknown
  try {
    response = await handler.call(tool.target, request, context)
  } catch (error) {
    return toolError(errorStatusText(error))
  }

  // A handler with nothing to say (an Empty response) may return nothing.
  let raw: unknown = response === undefined ? EMPTY : response
  let json: unknown
  try {
    json = toJson(tool.responseType, fromJson(tool.responseType, raw))
  } catch {
    // Off the hot path: retry once with NaN, bigint and byte arrays in their JSON forms.
    raw = jsonFromJs(raw)
    try {
      json = toJson(tool.responseType, fromJson(tool.responseType, raw))
    } catch {
      return toolError(decodeText('encoding response: ', tool, raw, true))
    }
  }
  const text = JSON.stringify(json)
  if (tool.structured && json !== null && typeof json === 'object' && !Array.isArray(json)) {
    return { content: [{ type: 'text', text }], isError: false, structuredContent: json as Record<string, unknown> }
  }
  return { content: [{ type: 'text', text }], isError: false }
}
