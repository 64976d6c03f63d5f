/**
 * A tool result checked before it goes out (docs/serving.md, "Tools, errors and visibility"): a result
 * the transports cannot write (a value JSON cannot hold, a cycle, a text
 * past the longest string V8 makes) would be dropped on the way out, its
 * request never answered. Such a result becomes a tool error here instead,
 * and like every failed call it is logged.
 */
import { toolError } from '../../runtime/result.ts'
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
