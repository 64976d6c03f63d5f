/**
 * Tool results (docs/calls.md, "The pipeline"): what a call answers, for generated tools
 * (the pipeline, streaming) and hand-written ones (server/tools/hand-written-tool.ts) alike.
 */
import type { ToolResult } from './types.ts'
import { isRecord } from '../contract/is-record.ts'

/** A tool error: one text item, `isError: true`. */
export function toolError(text: string): ToolResult {
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * A successful result of canonical JSON `json`: its text (`text` when the
 * caller has it already), then `note` as a second text item when given;
 * `structuredContent` when the tool is `structured` and `json` is an object
 * (MCP requires one).
 */
export function toolResult(json: unknown, structured: boolean, note?: string, text = JSON.stringify(json)): ToolResult {
  const result: ToolResult =
    note === undefined
      ? { content: [{ type: 'text', text }], isError: false }
      : {
          content: [
            { type: 'text', text },
            { type: 'text', text: note },
          ],
          isError: false,
        }
  if (structured && isRecord(json)) result.structuredContent = json as Record<string, unknown>
  return result
}
