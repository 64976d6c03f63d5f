/**
 * Server-streaming tools (docs/calls.md, "Streaming"): the backend's stream of responses
 * is collected into `{"messages":[...]}`, each message is reported as an MCP
 * progress notification, and a cap ends a stream that runs too long.
 */
import { DEFAULT_STREAM_BYTE_CAP, DEFAULT_STREAM_CAP } from './backend.ts'
import { backendErrorResult } from './backend-error.ts'
import { encodeReply } from './encode-reply.ts'
import { toolError, toolResult } from './result.ts'
import { statusText } from './status.ts'
import type { CompiledTool } from './tool-table.ts'
import type { CallContext, ToolResult } from './types.ts'

/** The tool error of a server-streaming handler that returned something other than a stream. */
export const NOT_A_STREAM =
  'encoding response: a server-streaming method must return an array, an iterable or an async iterable of responses'

type AnyIterator = Iterator<unknown> | AsyncIterator<unknown>

/** The iterator of an array, iterable or async iterable; `undefined` for anything else (strings included). */
function iteratorOf(source: unknown): AnyIterator | undefined {
  if (source === null || typeof source !== 'object') return undefined
  const asyncIterate = (source as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator]
  if (typeof asyncIterate === 'function') return asyncIterate.call(source) as AsyncIterator<unknown>
  const iterate = (source as { [Symbol.iterator]?: unknown })[Symbol.iterator]
  if (typeof iterate === 'function') return iterate.call(source) as Iterator<unknown>
  return undefined
}

/** The note added as a second text item when the cap cut the stream. */
export function streamCutNote(cap: number): string {
  return `stream cut at ${cap} messages (the stream cap): the remaining messages were not collected and the stream was cancelled`
}

/** The note added as a second text item when the byte cap cut the stream after `kept` messages. */
export function streamByteCutNote(kept: number, byteCap: number): string {
  return `stream cut at ${kept} ${kept === 1 ? 'message' : 'messages'}: the next one would pass the stream byte cap (${byteCap} bytes of JSON); the remaining messages were not collected and the stream was cancelled`
}

async function closeIterator(iterator: AnyIterator): Promise<void> {
  try {
    await iterator.return?.()
  } catch {
    // The stream is being abandoned; its own failure on close changes nothing.
  }
}

/**
 * The iterator's next step, or `undefined` once `signal` aborts first: a
 * stream gone quiet must not hold a cancelled call open.
 */
function nextStep(iterator: AnyIterator, signal: AbortSignal | undefined): Promise<IteratorResult<unknown> | undefined> {
  if (signal?.aborted) return Promise.resolve(undefined)
  const next = Promise.resolve(iterator.next())
  if (signal === undefined) return next
  return new Promise((resolve, reject) => {
    const onAbort = (): void => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    next.then(
      (step) => {
        signal.removeEventListener('abort', onAbort)
        resolve(step)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}

/** The bytes of `text` in UTF-8 (what it costs on the wire). */
export function utf8Length(text: string): number {
  const buffer = (globalThis as { Buffer?: { byteLength(text: string): number } }).Buffer
  if (buffer) return buffer.byteLength(text)
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c < 0x80) bytes += 1
    else if (c < 0x800) bytes += 2
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/**
 * Runs a server-streaming tool's backend call with the decoded `request` and
 * collects what it streams, up to the stream caps: messages, and bytes of
 * their JSON. The message cap reads one message past it, so a stream of
 * exactly `cap` messages is complete, not cut; the byte cap keeps every
 * message that fits and cuts the stream at the first one that does not.
 * Each message is encoded to its text once: for progress, for the byte
 * count and for the result's text.
 */
export async function callStreamingTool(tool: CompiledTool, request: unknown, context: CallContext): Promise<ToolResult> {
  let source: unknown
  try {
    source = await tool.handler!.call(tool.target, request, context)
  } catch (error) {
    return backendErrorResult(error)
  }
  const iterator = iteratorOf(source)
  if (iterator === undefined || typeof source === 'string') return toolError(NOT_A_STREAM)
  const cap = tool.streamCaps?.messages ?? DEFAULT_STREAM_CAP
  const byteCap = tool.streamCaps?.bytes ?? DEFAULT_STREAM_BYTE_CAP
  const messages: unknown[] = []
  const texts: string[] = []
  let bytes = 0
  let cut: string | undefined
  for (;;) {
    let step: IteratorResult<unknown> | undefined
    try {
      step = await nextStep(iterator, context.signal)
    } catch (error) {
      return backendErrorResult(error)
    }
    if (step === undefined) {
      // Not awaited: an async generator busy in an `await` would only close after it.
      void closeIterator(iterator)
      return toolError(statusText(1, 'the request was cancelled'))
    }
    if (step.done) break
    if (context.signal?.aborted) {
      await closeIterator(iterator)
      return toolError(statusText(1, 'the request was cancelled'))
    }
    if (messages.length === cap) {
      cut = streamCutNote(cap)
      await closeIterator(iterator)
      break
    }
    // Encoded as a unary response is.
    const encoded = encodeReply(tool, step.value ?? {})
    if ('content' in encoded) {
      await closeIterator(iterator)
      const reason = encoded.content[0].text.replace(/^encoding response: /, '')
      return toolError(`encoding response: message ${messages.length + 1} of the stream: ${reason}`)
    }
    const text = JSON.stringify(encoded.json)
    // The separating comma counts too: the cap bounds the messages' part of the result text.
    const size = utf8Length(text) + (messages.length > 0 ? 1 : 0)
    if (bytes + size > byteCap) {
      cut = streamByteCutNote(messages.length, byteCap)
      await closeIterator(iterator)
      break
    }
    bytes += size
    messages.push(encoded.json)
    texts.push(text)
    // A client gone away must not fail the call: its result is simply never read.
    const progress = context.progress
    if (progress)
      await Promise.resolve()
        .then(() => progress(messages.length, text))
        .catch(() => {})
  }
  return toolResult({ messages }, tool.structured, cut, `{"messages":[${texts.join(',')}]}`)
}
