/**
 * The tool error of a failed backend call: grpc-go's status text, and the
 * status details (google.rpc.Status `details`) as a second text item.
 */
import { errorStatusText } from './status.ts'
import type { ToolResult } from './types.ts'

/** The second text item of a status error with details: `{"details":[...]}` (documented in the README). */
export function detailsText(details: readonly unknown[]): string | undefined {
  try {
    return JSON.stringify({ details })
  } catch {
    // A detail that is not JSON (a bigint, a cycle): the status alone still says what failed.
    return undefined
  }
}

function statusDetailsOf(error: unknown): unknown[] | undefined {
  if (error === null || typeof error !== 'object') return undefined
  try {
    const details = (error as { statusDetails?: unknown }).statusDetails
    return Array.isArray(details) && details.length > 0 ? details : undefined
  } catch {
    return undefined
  }
}

/**
 * The result of a backend that threw or rejected with `error`: one text item
 * `rpc error: code = X desc = Y`, plus `{"details":[...]}` when the error
 * carries `statusDetails` (an array of JSON values; the gRPC backend fills
 * it from the `grpc-status-details-bin` trailer).
 */
export function backendErrorResult(error: unknown): ToolResult {
  const text = errorStatusText(error)
  const details = statusDetailsOf(error)
  const extra = details === undefined ? undefined : detailsText(details)
  if (extra === undefined) return { content: [{ type: 'text', text }], isError: true }
  return {
    content: [
      { type: 'text', text },
      { type: 'text', text: extra },
    ],
    isError: true,
  }
}
