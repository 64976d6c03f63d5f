/**
 * Task status notifications over Streamable HTTP (SEP-2663,
 * docs/serving.md, "Tasks"): a `subscriptions/listen` asking for `taskIds` gets
 * a stream that sends `notifications/tasks` (the task as `tasks/get` shows
 * it) each time one of those tasks changes, beside the list changes and
 * resource updates it asked for as the SDK's listen streams send them. The
 * SDK's own listen router knows no `taskIds`, so such a request is served
 * here; any other goes to the SDK.
 */
import { MissingRequiredClientCapabilityError, SUBSCRIPTION_ID_META_KEY } from '@modelcontextprotocol/server'
import { principalOf } from '../base/principal.ts'
import type { ListKind } from '../base/list-kind.ts'
import { onResourceUpdated, type ResourceHost } from '../primitives/subscriptions.ts'
import type { StoredTask } from '../cluster/task-store.ts'
import { fromStore } from './store-errors.ts'
import { TASKS_EXTENSION, taskView, type TaskHost } from './tasks.ts'

/** How often an idle stream says it is alive (an SSE comment), as the SDK's listen streams do. */
const KEEP_ALIVE_MS = 15_000

const LIST_BITS: Record<ListKind, 'toolsListChanged' | 'resourcesListChanged' | 'promptsListChanged'> = {
  tools: 'toolsListChanged',
  resources: 'resourcesListChanged',
  prompts: 'promptsListChanged',
}

/** What a listen stream reads of the server state (`ServerState` is one): its tasks, resource updates and list changes. */
export interface ListenHost extends TaskHost, ResourceHost {
  onChange(listener: (kind: ListKind) => void): () => void
}

type Message = { id?: unknown; method?: unknown; params?: { notifications?: Record<string, unknown>; _meta?: Record<string, unknown> } }

/**
 * The answer to a 2026-07-28 `subscriptions/listen` that asks for task
 * notifications: `-32021` (HTTP 400) without the Tasks extension, else the
 * stream. `undefined` for any other message (the SDK serves it).
 */
export async function taskListen(state: ListenHost, message: unknown, request: Request, authInfo: unknown): Promise<Response | undefined> {
  const m = message as Message | null
  if (m === null || typeof m !== 'object' || m.method !== 'subscriptions/listen') return undefined
  const wanted = m.params?.notifications?.taskIds
  if (!Array.isArray(wanted) || wanted.length === 0) return undefined
  const id = typeof m.id === 'string' || typeof m.id === 'number' ? m.id : null
  const capabilities = m.params?._meta?.['io.modelcontextprotocol/clientCapabilities'] as
    { extensions?: Record<string, unknown> } | undefined
  const declared = capabilities?.extensions?.[TASKS_EXTENSION]
  if (declared === null || typeof declared !== 'object') {
    const error = new MissingRequiredClientCapabilityError(
      { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
      `task notifications need the ${TASKS_EXTENSION} extension: declare it in the request's client capabilities`,
    )
    return Response.json({ jsonrpc: '2.0', id, error: { code: error.code, message: error.message, data: error.data } }, { status: 400 })
  }
  const distinct = [...new Set(wanted.filter((t): t is string => typeof t === 'string'))]
  const most = state.tasks.maxListenTaskIds
  if (distinct.length > most) {
    const message = `subscriptions/listen: ${distinct.length} taskIds, more than the ${most} one subscription may watch (maxListenTaskIds)`
    return Response.json({ jsonrpc: '2.0', id, error: { code: -32602, message } }, { status: 400 })
  }
  // Only the caller's own tasks: another caller's are not acknowledged, exactly like unknown ones. Read together, not one after another.
  const owner = principalOf(authInfo, request.headers.get('authorization'))
  let found: Array<StoredTask | undefined>
  try {
    found = await fromStore(state.tasks, 'subscriptions/listen', () => Promise.all(distinct.map((taskId) => state.tasks.store.get(taskId))))
  } catch (error) {
    return Response.json({ jsonrpc: '2.0', id, error: { code: -32603, message: (error as Error).message } }, { status: 503 })
  }
  const taskIds = distinct.filter((_, i) => found[i] !== undefined && found[i]!.owner === owner)
  const readAt = new Map(found.flatMap((task) => (task === undefined ? [] : [[task.taskId, task.lastUpdatedAt] as const])))
  const asked = m.params?.notifications ?? {}
  const honored: Record<string, unknown> = { taskIds }
  for (const bit of Object.values(LIST_BITS)) if (asked[bit] === true) honored[bit] = true
  const uris = Array.isArray(asked.resourceSubscriptions)
    ? asked.resourceSubscriptions.filter((u): u is string => typeof u === 'string')
    : []
  if (uris.length > 0) honored.resourceSubscriptions = uris
  return new Response(listenStream(state, id, honored, taskIds, readAt, uris, request.signal), {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  })
}

/** The SSE stream: the acknowledgment first, then the notifications its filter asks for, each tagged with the subscription id. */
function listenStream(
  state: ListenHost,
  id: string | number | null,
  honored: Record<string, unknown>,
  taskIds: readonly string[],
  readAt: ReadonlyMap<string, number>,
  uris: readonly string[],
  signal: AbortSignal,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const stops: Array<() => void> = []
  let closed = false
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const write = (frame: string): void => {
    if (closed) return
    try {
      controller.enqueue(encoder.encode(frame))
    } catch {
      close()
    }
  }
  const send = (method: string, params: Record<string, unknown>): void =>
    write(
      `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', method, params: { ...params, _meta: { [SUBSCRIPTION_ID_META_KEY]: id } } })}\n\n`,
    )
  const close = (): void => {
    if (closed) return
    closed = true
    for (const stop of stops.splice(0)) stop()
    try {
      controller.close()
    } catch {
      // Already closed by the client going away.
    }
  }
  /**
   * Each change of a task from the state read for the acknowledgment on. A change between that read
   * and the watch (a task reaching input_required meanwhile) is sent once from a second read, unless
   * the watch has sent a state by then; a state is never sent twice in a row.
   */
  const watchFromRead = (taskId: string): void => {
    let lastSent: string | undefined
    let watched = false
    const notify = (task: StoredTask): void => {
      const key = `${task.status}@${task.lastUpdatedAt}`
      if (key === lastSent) return
      lastSent = key
      send('notifications/tasks', taskView(task, true))
    }
    stops.push(
      watchTask(state, taskId, (task) => {
        watched = true
        notify(task)
      }),
    )
    state.tasks.store.get(taskId).then(
      (task) => {
        if (!watched && !closed && task !== undefined && task.lastUpdatedAt !== readAt.get(taskId)) notify(task)
      },
      () => {},
    )
  }
  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
      send('notifications/subscriptions/acknowledged', { notifications: honored })
      stops.push(
        state.onChange((kind) => {
          if (honored[LIST_BITS[kind]] === true) send(`notifications/${kind}/list_changed`, {})
        }),
      )
      if (uris.length > 0)
        stops.push(onResourceUpdated(state, (uri) => uris.includes(uri) && send('notifications/resources/updated', { uri })))
      for (const taskId of taskIds) watchFromRead(taskId)
      const alive = setInterval(() => write(': keepalive\n\n'), KEEP_ALIVE_MS)
      ;(alive as { unref?: () => void }).unref?.()
      stops.push(() => clearInterval(alive))
      if (signal.aborted) close()
      else signal.addEventListener('abort', close, { once: true })
    },
    cancel() {
      close()
    },
  })
}

/** Calls `seen` with each new state of a task: through the store's `watch`, else read every `pollIntervalMs`. */
function watchTask(state: TaskHost, taskId: string, seen: (task: StoredTask) => void): () => void {
  const store = state.tasks.store
  if (store.watch) return store.watch(taskId, seen)
  let last = 0
  const timer = setInterval(() => {
    store.get(taskId).then(
      (task) => {
        if (task !== undefined && task.lastUpdatedAt !== last) {
          last = task.lastUpdatedAt
          seen(task)
        }
      },
      () => {},
    )
  }, state.tasks.pollIntervalMs)
  ;(timer as { unref?: () => void }).unref?.()
  return () => clearInterval(timer)
}
