/**
 * The type tool's calls (docs/profiles.md, "Token budget"): the answer built
 * for a message or tool name, or an error naming the nearest name known.
 */
import { nearestName } from '../contract/nearest.ts'
import { toolError } from './result.ts'
import type { ToolResult, TypeDetailSpec } from './types.ts'
import { isRecord } from '../contract/is-record.ts'

/** The answer of the type tool `detail` to `args` (`{"type": "pkg.Message"}`, or a tool's name). */
export function answerTypeDetail(detail: TypeDetailSpec, args: unknown): ToolResult {
  const name = detail.tool.name
  const wanted = isRecord(args) ? (args as Record<string, unknown>).type : undefined
  if (typeof wanted !== 'string') {
    return toolError(`invalid arguments: /type: ${name} takes {"type": "<message full name or tool name>"}, as a placeholder names it`)
  }
  const type = wanted.replace(/^\./, '')
  if (Object.hasOwn(detail.answers, type)) return { content: [{ type: 'text', text: detail.answers[type]! }], isError: false }
  const near = nearestName(type, Object.keys(detail.answers))
  return toolError(
    `invalid arguments: /type: no schema of "${type}" here: ${name} knows the messages placeholders name and the tools` +
      (near === undefined ? '' : `; did you mean "${near}"?`),
  )
}
