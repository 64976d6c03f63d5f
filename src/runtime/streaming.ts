/**
 * Server-streaming tools (docs/calls.md §8): the backend's stream of responses
 * is collected into `{"messages":[...]}`, each message is reported as an MCP
 * progress notification, and a cap ends a stream that runs too long.
 */
import { DEFAULT_STREAM_CAP } from './backend.ts'
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

/**
 * Runs a server-streaming tool's backend call with the decoded `request` and
 * collects what it streams. The cap reads one message past it, so a stream of
 * exactly `cap` messages is complete, not cut.
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
  const cap = tool.streamCap ?? DEFAULT_STREAM_CAP
  const messages: unknown[] = []
  let cut = false
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
      cut = true
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
    messages.push(encoded.json)
    // A client gone away must not fail the call: its result is simply never read.
    const progress = context.progress
    if (progress)
      await Promise.resolve()
        .then(() => progress(messages.length, JSON.stringify(encoded.json)))
        .catch(() => {})
  }
  return toolResult({ messages }, tool.structured, cut ? streamCutNote(cap) : undefined)
}
