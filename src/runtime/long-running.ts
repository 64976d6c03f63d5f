/**
 * Long-running RPCs (docs/calls.md, "Long-running operations"): the RPC answers a
 * `google.longrunning.Operation`; until it is `done` the tool reads it again
 * with `google.longrunning.Operations/GetOperation` on the same backend,
 * every `pollIntervalMs`, reporting its metadata as progress; done, the
 * result is its `response` as the type `operation_info` names, or its
 * `error` (a `google.rpc.Status`) as a tool error. A call cancelled (its
 * task, or its request) cancels the operation (`CancelOperation`).
 */
import { backendErrorResult, detailsText } from './backend-error.ts'
import { OPERATIONS_SERVICE } from './operations-service.ts'
import { detailJson } from './rpc-details.ts'
import { encodeReply } from './encode-reply.ts'
import { toolError, toolResult } from './result.ts'
import { statusCode, statusText } from './status.ts'
import type { CompiledTool } from './tool-table.ts'
import type { CallContext, ToolResult } from './types.ts'

/** How often an operation is read when the server says nothing else (its tasks' `pollIntervalMs`). */
export const DEFAULT_OPERATION_POLL_MS = 1000

/** An `Operation` as protobuf JSON gives it (`metadata` and `response` are `Any`: `@type` and the fields). */
interface OperationJson {
  name?: string
  done?: boolean
  metadata?: Record<string, unknown>
  error?: { code?: number; message?: string; details?: unknown[] }
  response?: Record<string, unknown>
}

/** An `Any`'s fields without its `@type` (a well-known type keeps its `value`). */
function unpacked(any: Record<string, unknown> | undefined): unknown {
  if (any === undefined) return {}
  const { '@type': _type, ...fields } = any
  return Object.keys(fields).length === 1 &&
    'value' in fields &&
    typeof any['@type'] === 'string' &&
    /google\.protobuf\./.test(any['@type'])
    ? fields.value
    : fields
}

/** Resolves after `ms`, or `false` at once when `signal` aborts first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', stop)
      resolve(true)
    }, ms)
    const stop = (): void => {
      clearTimeout(timer)
      resolve(false)
    }
    signal?.addEventListener('abort', stop, { once: true })
  })
}

/** The tool result of a done operation: its response, or its error with the status details. */
function outcome(tool: CompiledTool, op: OperationJson): ToolResult {
  if (op.error !== undefined) {
    const code = statusCode(op.error.code ?? 2) ?? 2
    const text = statusText(code, op.error.message ?? '')
    const details = op.error.details?.length ? detailsText(op.error.details) : undefined
    return details === undefined
      ? toolError(text)
      : {
          content: [
            { type: 'text', text },
            { type: 'text', text: details },
          ],
          isError: true,
        }
  }
  return toolResult(unpacked(op.response), tool.structured)
}

/** Reads an operation with `call` (the RPC, or GetOperation): the `Operation` as JSON, or the tool error of a failed read. */
async function readOperation(tool: CompiledTool, call: () => unknown): Promise<OperationJson | ToolResult> {
  let response: unknown
  try {
    response = await call()
  } catch (error) {
    return backendErrorResult(error)
  }
  // The error's details apart: they may be of types the tool's proto does not declare (google.rpc's, unregistered ones).
  const { details, rest } = withoutDetails(response)
  const encoded = encodeReply(tool, rest)
  if ('content' in encoded) return encoded
  const op = encoded.json as OperationJson
  if (details !== undefined && op.error !== undefined) op.error.details = details.map((d) => detailJson(d, tool.responseType.root))
  return op
}

/** A handler's Operation without its error's details, and the details. */
function withoutDetails(response: unknown): { details?: unknown[]; rest: unknown } {
  const op = (response ?? {}) as { error?: { details?: unknown } }
  if (op.error === null || typeof op.error !== 'object' || !Array.isArray(op.error.details)) return { rest: op }
  const { details, ...error } = op.error
  return { details, rest: { ...op, error } }
}

/**
 * Calls a long-running tool's RPC with the decoded `request` and follows
 * the operation it starts to its end. Never throws: a failure is a tool error.
 */
export async function callLongRunningTool(tool: CompiledTool, request: unknown, context: CallContext): Promise<ToolResult> {
  return followOperation(tool, await readOperation(tool, () => tool.handler!.call(tool.target, request, context)), context)
}

/**
 * Follows operation `op` of a long-running tool to its end: the tool's
 * result. Another instance of a fleet follows a task's operation from its
 * name alone (`{ name }`) when the instance that started it stopped.
 */
export async function followOperation(tool: CompiledTool, op: OperationJson | ToolResult, context: CallContext): Promise<ToolResult> {
  const ops = tool.operations
  /** Cancelled (a task by tasks/cancel, a request by its client): the operation is told, best effort. */
  const cancelled = async (name: string): Promise<ToolResult> => {
    // Its own call, not under the aborted signal (a gRPC call would be cancelled with it).
    const { signal: _aborted, ...rest } = context
    await Promise.resolve()
      .then(() => ops?.cancel?.call(ops.target, { name }, rest))
      .catch(() => {})
    return toolError(statusText(1, `operation ${name} cancelled`))
  }
  const every = context.pollIntervalMs ?? DEFAULT_OPERATION_POLL_MS
  let said: string | undefined
  let reads = 0
  // In a fleet: the operation's name goes into the task at once, so another instance can follow it should this one stop.
  if (!('content' in op) && !op.done && typeof op.name === 'string') await context.holdsOperation?.(op.name)
  while (!('content' in op) && !op.done) {
    if (ops?.get === undefined || typeof op.name !== 'string') {
      return toolError(
        statusText(
          12,
          `operation ${op.name ?? '(unnamed)'} is not done and ${OPERATIONS_SERVICE}/GetOperation is not bound: forward the service to a gRPC backend that serves it, or implement() ${OPERATIONS_SERVICE}`,
        ),
      )
    }
    const text = op.metadata === undefined ? undefined : JSON.stringify(unpacked(op.metadata))
    if (text !== undefined && text !== said) {
      said = text
      await context.progress?.(++reads, text)
    }
    const name = op.name
    if (!(await pause(every, context.signal))) return cancelled(name)
    // Another instance took the operation over (this one's lease ran out): it reads it from now on, and ends the task.
    if (context.holdsOperation && !(await context.holdsOperation(name)))
      return toolError(statusText(10, `operation ${name} is followed by another instance`))
    op = await readOperation(tool, () => ops.get!.call(ops.target, { name }, context))
    // Cancelled while reading (the read itself was cut short with it): the operation is told all the same.
    if (context.signal?.aborted) return cancelled(name)
  }
  return 'content' in op ? op : outcome(tool, op)
}
