/**
 * The Tasks extension's methods on an SDK instance (docs/serving.md, "Tasks"):
 * `tasks/get`, `tasks/update` and `tasks/cancel`, answered from the task
 * store for the caller that created the task, and refused with `-32021`
 * to a request that did not declare the extension.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
} from '@modelcontextprotocol/server'
import type { Server as SdkServer, ServerContext, StandardSchemaV1 } from '@modelcontextprotocol/server'
import { principalOf } from '../base/principal.ts'
import type { StoredTask } from '../cluster/task-store.ts'
import { fromStore } from './store-errors.ts'
import { answerChange, cancelChange, TASKS_EXTENSION, taskView, type TaskHost } from './tasks.ts'

/** Whether a 2026-07-28 request declared the Tasks extension in its client capabilities. */
export function declaresTasks(ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined
  const capabilities = envelope?.[CLIENT_CAPABILITIES_META_KEY] as { extensions?: Record<string, unknown> } | undefined
  const extension = capabilities?.extensions?.[TASKS_EXTENSION]
  return extension !== null && typeof extension === 'object'
}

/** The `-32021` of a request that needs the Tasks extension and did not declare it. */
export function missingTasksCapability(what: string): MissingRequiredClientCapabilityError {
  return new MissingRequiredClientCapabilityError(
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    `${what} needs the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities`,
  )
}

/** Who owns the tasks a request creates or reads (server/base/principal.ts). */
export function ownerOf(ctx: ServerContext): string {
  return principalOf(ctx.http?.authInfo, ctx.http?.req?.headers.get('authorization'))
}

/**
 * The params "schema" of the three methods: a Standard Schema (what the
 * SDK's three-argument `setRequestHandler` takes) that accepts anything,
 * so the handler checks the capability first and the params after, as
 * SEP-2663 orders them.
 */
const ANY_PARAMS: StandardSchemaV1<unknown, Record<string, unknown>> = {
  '~standard': { version: 1, vendor: 'unplugin-proto-mcp', validate: (value) => ({ value: (value ?? {}) as Record<string, unknown> }) },
}

/** The `-32602` of a task that is unknown, expired or another caller's: the same answer, so no caller learns of another's tasks. */
const notFound = (): ProtocolError => new ProtocolError(ProtocolErrorCode.InvalidParams, 'Failed to retrieve task: Task not found')

/** The task `params.taskId` if the caller of `ctx` owns it; throws `-32021` to a request without the extension, `-32602` when not found. */
async function ownTask(state: TaskHost, ctx: ServerContext, method: string, params: Record<string, unknown>): Promise<StoredTask> {
  // The extension exists on 2026-07-28 only (SEP-2663): an initialize-era session has no such method.
  if (ctx.mcpReq.envelope === undefined) throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found')
  if (!declaresTasks(ctx)) throw missingTasksCapability(method)
  const taskId = params.taskId
  if (typeof taskId !== 'string' || taskId === '')
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `${method}: "taskId" must be a non-empty string`)
  const task = await fromStore(state.tasks, method, () => state.tasks.store.get(taskId))
  if (task === undefined || task.owner !== ownerOf(ctx)) throw notFound()
  return task
}

/** Registers `tasks/get`, `tasks/update` and `tasks/cancel` on one SDK instance. */
export function serveTaskMethods(server: SdkServer, state: TaskHost): void {
  server.setRequestHandler('tasks/get', { params: ANY_PARAMS }, async (params, ctx) => {
    return taskView(await ownTask(state, ctx, 'tasks/get', params), true) as never
  })
  server.setRequestHandler('tasks/update', { params: ANY_PARAMS }, async (params, ctx) => {
    const task = await ownTask(state, ctx, 'tasks/update', params)
    // The SDK lifts `inputResponses` out of the params (keeping only answer-shaped entries).
    const responses = ctx.mcpReq.inputResponses
    if (responses === undefined)
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'tasks/update: "inputResponses" must be an object of answers by key')
    // Answers to questions not outstanding are ignored (SEP-2663); the ack says nothing of the task.
    await fromStore(state.tasks, 'tasks/update', () => state.tasks.store.update(task.taskId, answerChange(responses)))
    return {} as never
  })
  server.setRequestHandler('tasks/cancel', { params: ANY_PARAMS }, async (params, ctx) => {
    const task = await ownTask(state, ctx, 'tasks/cancel', params)
    // A terminal task stays as it is: the ack is the same (cancelling twice, or too late, is no error).
    await fromStore(state.tasks, 'tasks/cancel', () => state.tasks.store.update(task.taskId, cancelChange))
    return {} as never
  })
}
