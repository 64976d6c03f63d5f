/**
 * A tool result checked before it goes out (docs/serving.md, "Tools, errors and visibility"): a result
 * the transports cannot write (a value JSON cannot hold, a cycle, a text
 * past the longest string V8 makes) would be dropped on the way out, its
 * request never answered. Such a result becomes a tool error here instead,
 * and like every failed call it is logged.
 */
import { toolError } from '../../runtime/result.ts'
import type { Log } from '../base/logging.ts'
import type { CallResult, ToolEntry } from './tool-set.ts'

/**
 * The longest string V8 makes on 64-bit (2^29 - 24 UTF-16 units): one
 * JSON-RPC message is written as one string, by every transport.
 */
export const MAX_MESSAGE_CHARS = 2 ** 29 - 24

/** Room for the JSON-RPC envelope and an SSE frame around a result. */
const ENVELOPE = 4096

/** The tool error of a result that cannot be sent. */
export const unsendable = (reason: string): CallResult => toolError(`the result could not be sent: ${reason}`)

/**
 * `result` when a transport can write it, else the tool error that says
 * why. A proto tool's result is canonical JSON already: its text item
 * holds it, and the message holds it twice (the escaped text and
 * `structuredContent`), so the text's length decides. A hand-written
 * tool's result is any object: it is written once here to find out.
 */
export function sendable(result: CallResult, entry: ToolEntry): CallResult {
  if (entry.proto) {
    let chars = 0
    for (const item of (result as { content?: Array<{ text?: unknown }> }).content ?? [])
      if (typeof item.text === 'string') chars += item.text.length
    // Escaping can double the text; structuredContent repeats it.
    return 3 * chars + ENVELOPE > MAX_MESSAGE_CHARS
      ? unsendable(`its JSON text of ${chars} characters is past what one message can hold (${MAX_MESSAGE_CHARS} characters)`)
      : result
  }
  let chars: number
  try {
    const text = JSON.stringify(result)
    if (text === undefined) return unsendable('it is not a JSON value')
    chars = text.length
  } catch (error) {
    return unsendable(error instanceof Error ? error.message : String(error))
  }
  return chars + ENVELOPE > MAX_MESSAGE_CHARS
    ? unsendable(`its JSON text of ${chars} characters is past what one message can hold (${MAX_MESSAGE_CHARS} characters)`)
    : result
}

/** The first text item of a failed result, cut to `max` characters, for a log line. */
export function failureText(result: CallResult, max = 300): string {
  const first = (result as { content?: Array<{ text?: unknown }> }).content?.find((item) => typeof item.text === 'string')?.text
  const text = typeof first === 'string' ? first : '(no text)'
  return text.length > max ? `${text.slice(0, max)}...` : text
}

/** Who answers a call, for its log line: the server's name and its log. */
export interface CallLog {
  readonly server: string
  readonly log: Log
}

/**
 * Logs a failed call (throttled, as every path logs one): `via` names the
 * request it served when that is not a `tools/call` (`resources/read`).
 */
export function logFailedCall(to: CallLog, tool: string, result: CallResult, via?: string): void {
  const served = via === undefined ? '' : ` for ${via}`
  to.log.warnThrottled('failed call', `${to.server}: call to tool "${tool}"${served} failed: ${failureText(result)}`)
}

/**
 * The result of a call of `tool` as every path answers a `tools/call` with it: one no
 * transport could write becomes the tool error that says why ({@link sendable}),
 * and a failed one is logged ({@link logFailedCall}).
 */
export function answered(result: CallResult, entry: ToolEntry, tool: string, to: CallLog): CallResult {
  const out = sendable(result, entry)
  if (out.isError) logFailedCall(to, tool, out)
  return out
}
