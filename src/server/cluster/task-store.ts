/**
 * Where tasks live (the Tasks extension, docs/serving.md, "Tasks"): the
 * `TaskStore` interface and its in-memory default. A store keeps JSON
 * records and applies changes atomically; what a change means (a status
 * moving on, an answer taken) is decided once, in tasks.ts, by the pure
 * function a change is. So a store for another engine (a database shared
 * by several instances) implements four small methods.
 */

/** A task's status; the last three are terminal: a terminal task never changes again. */
export type TaskStatus = 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled'

/** Whether `status` is terminal (`completed`, `failed`, `cancelled`). */
export function isTerminal(status: TaskStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled'
}

/** A question a task waits on: an `elicitation/create`, `sampling/createMessage` or `roots/list` request. */
export interface TaskInputRequest {
  method: string
  params: Record<string, unknown>
}

/** A JSON-RPC error, as a failed task carries it. */
export interface TaskError {
  code: number
  message: string
  data?: unknown
}

/**
 * A task as stored: plain JSON (a store may keep it as text, a column, a
 * document). Times are milliseconds since the epoch.
 */
export interface StoredTask {
  /** Unguessable (128 random bits): it is the only handle a client has. */
  taskId: string
  /** The principal of the caller that created it (server/base/principal.ts); only it sees the task. */
  owner: string
  /** What runs: the tool's name. */
  tool: string
  status: TaskStatus
  statusMessage?: string
  createdAt: number
  lastUpdatedAt: number
  /** From `createdAt`: after it the task may be discarded. */
  ttlMs: number
  pollIntervalMs: number
  /** The questions outstanding, by key (status `input_required`). */
  inputRequests?: Record<string, TaskInputRequest>
  /** Answers a client gave (`tasks/update`) that the running handler has not taken yet, by key. */
  inputResponses?: Record<string, unknown>
  /** Every key asked so far: a key is never used for a second question. */
  askedKeys?: string[]
  /** The result (status `completed`): what the request itself would have answered. */
  result?: Record<string, unknown>
  /** The JSON-RPC error (status `failed`). */
  error?: TaskError
  /** Set by `tasks/cancel`: the instance running the task stops it. */
  cancelRequested?: boolean
  /**
   * In a fleet (docs/cluster.md): the instance running the task, and
   * until when (ms since the epoch) its lease holds. It renews the lease
   * while it runs; once the lease ran out, another instance takes the task
   * over: it follows the task's `operation`, or fails the task.
   */
  runner?: { instance: string; until: number }
  /** The name of the `google.longrunning.Operation` the task follows: another instance can follow it too. */
  operation?: string
}

/**
 * A change of one task: a pure function of the task as stored, returning
 * the task to store, or `undefined` to leave it. A store may call it more
 * than once (an optimistic store retries on a conflict), so it must not
 * have effects.
 */
export type TaskChange = (task: StoredTask) => StoredTask | undefined

/**
 * Where a server keeps its tasks. Every method is async, so a store can be
 * a database; the server creates a task before it answers with its id
 * (`create` resolves once `get` would see it), reads it for `tasks/get`,
 * and changes it through `update` only. Tasks expire: `get` and `update`
 * treat a task past `createdAt + ttlMs` as unknown.
 */
export interface TaskStore {
  /** Stores a new task. Rejects with a {@link TaskLimitError} when the store is full. */
  create(task: StoredTask): Promise<void>
  /** The task, or `undefined` when unknown or expired. */
  get(taskId: string): Promise<StoredTask | undefined>
  /**
   * Applies `change` atomically (no other change of the task in between)
   * and resolves with the task as stored after it: unchanged when `change`
   * returned `undefined`, `undefined` when the task is unknown or expired.
   * Rejects with a {@link TaskLimitError} when the changed task does not fit.
   */
  update(taskId: string, change: TaskChange): Promise<StoredTask | undefined>
  /**
   * Calls `listener` with the task after each change (one made through
   * another instance too, for a shared store); returns the unsubscribe.
   * Optional: without it, the instance running a task reads it every
   * `pollIntervalMs` for answers and cancellation.
   */
  watch?(taskId: string, listener: (task: StoredTask) => void): () => void
  /**
   * Ids of up to `limit` live tasks, not terminal, whose `runner` lease
   * ended before `now`: the tasks a fleet takes over (docs/cluster.md).
   * Optional: a store without it is one instance's.
   */
  due?(now: number, limit: number): Promise<string[]>
  /** Frees what the store holds (timers, connections). */
  close?(): Promise<void>
}

/** A store refusing a task, or a change, for want of room. */
export class TaskLimitError extends Error {
  override name = 'TaskLimitError'
  constructor(
    message: string,
    /** Which limit: the number of tasks, or their bytes. */
    readonly limit: 'tasks' | 'bytes',
  ) {
    super(message)
  }
}

/** Options of {@link MemoryTaskStore}. */
export interface MemoryTaskStoreOptions {
  /** Tasks kept at once, expired ones aside; when full, the oldest that ended is dropped for a new one. @default 1000 */
  maxTasks?: number
  /** Bytes of all tasks' JSON together (UTF-8). @default 67108864 (64 MiB) */
  maxBytes?: number
  /** How often expired tasks are dropped. @default 60000 */
  sweepMs?: number
}

/** The defaults of {@link MemoryTaskStore}, defined once. */
export const DEFAULT_MAX_TASKS = 1000
/** Bytes of all tasks' JSON a memory store keeps together (64 MiB); a Postgres store bounds each task instead (postgres-cluster.ts). */
export const DEFAULT_MAX_BYTES_ALL_TASKS = 64 * 1024 * 1024

interface Kept {
  /** The task's JSON text: what is stored is a copy, never an object a caller holds. */
  json: string
  bytes: number
  expires: number
  /** The runner's lease end, for a task not terminal that has one. */
  due?: number
  /** Whether the task has ended: such a task makes room for a new one when the store is full. */
  ended: boolean
}

const encoder = new TextEncoder()

/** What the memory store keeps of `task`. */
function keptOf(task: StoredTask, json: string, bytes: number): Kept {
  const held: Kept = { json, bytes, expires: task.createdAt + task.ttlMs, ended: isTerminal(task.status) }
  const due = dueOf(task)
  if (due !== null) held.due = due
  return held
}

/** The runner's lease end of `task` when a fleet may take it over (not terminal), else `null`: what a shared store indexes. */
export function dueOf(task: StoredTask): number | null {
  return task.runner !== undefined && !isTerminal(task.status) ? task.runner.until : null
}

/**
 * The in-memory `TaskStore`: one process's tasks, bounded in number and in
 * bytes, dropped when their TTL has passed (on access, and by a sweep
 * every `sweepMs`, a timer that does not hold the process open). Each task
 * is kept as its JSON text, so its bytes are counted exactly and no caller
 * shares an object with the store.
 */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Kept>()
  readonly #listeners = new Map<string, Set<(task: StoredTask) => void>>()
  readonly #maxTasks: number
  readonly #maxBytes: number
  #bytes = 0
  #sweep: ReturnType<typeof setInterval> | undefined

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.#maxTasks = options.maxTasks ?? DEFAULT_MAX_TASKS
    this.#maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES_ALL_TASKS
    const sweepMs = options.sweepMs ?? 60_000
    this.#sweep = setInterval(() => this.#dropExpired(Date.now()), sweepMs)
    ;(this.#sweep as { unref?: () => void }).unref?.()
  }

  /** Tasks kept now (expired ones not yet dropped included). */
  get size(): number {
    return this.#tasks.size
  }

  /** Bytes kept now. */
  get bytes(): number {
    return this.#bytes
  }

  async create(task: StoredTask): Promise<void> {
    const now = Date.now()
    const json = JSON.stringify(task)
    const bytes = encoder.encode(json).length
    if (this.#tasks.size >= this.#maxTasks || this.#bytes + bytes > this.#maxBytes) this.#dropExpired(now)
    // Tasks that ended make room, the oldest first: a store full of results nobody fetched takes new tasks still.
    for (const [taskId, kept] of this.#tasks) {
      if (this.#tasks.size < this.#maxTasks && this.#bytes + bytes <= this.#maxBytes) break
      if (kept.ended) this.#drop(taskId, kept)
    }
    if (this.#tasks.size >= this.#maxTasks) {
      throw new TaskLimitError(`too many tasks: all ${this.#maxTasks} the store keeps are in use; retry later`, 'tasks')
    }
    if (this.#bytes + bytes > this.#maxBytes) {
      throw new TaskLimitError(`the task store is full: ${this.#bytes} of ${this.#maxBytes} bytes in use; retry later`, 'bytes')
    }
    this.#tasks.set(task.taskId, keptOf(task, json, bytes))
    this.#bytes += bytes
  }

  async get(taskId: string): Promise<StoredTask | undefined> {
    const kept = this.#live(taskId)
    return kept === undefined ? undefined : (JSON.parse(kept.json) as StoredTask)
  }

  async update(taskId: string, change: TaskChange): Promise<StoredTask | undefined> {
    const kept = this.#live(taskId)
    if (kept === undefined) return undefined
    const task = JSON.parse(kept.json) as StoredTask
    const next = change(task)
    if (next === undefined) return task
    const json = JSON.stringify(next)
    const bytes = encoder.encode(json).length
    if (this.#bytes - kept.bytes + bytes > this.#maxBytes) {
      throw new TaskLimitError(
        `task ${taskId} does not fit: ${bytes} bytes, with ${this.#bytes - kept.bytes} of ${this.#maxBytes} in use by the others`,
        'bytes',
      )
    }
    this.#bytes += bytes - kept.bytes
    this.#tasks.set(taskId, keptOf(next, json, bytes))
    const listeners = this.#listeners.get(taskId)
    if (listeners) for (const listener of [...listeners]) listener(JSON.parse(json) as StoredTask)
    return JSON.parse(json) as StoredTask
  }

  watch(taskId: string, listener: (task: StoredTask) => void): () => void {
    let set = this.#listeners.get(taskId)
    if (set === undefined) this.#listeners.set(taskId, (set = new Set()))
    set.add(listener)
    return () => {
      set.delete(listener)
      if (set.size === 0 && this.#listeners.get(taskId) === set) this.#listeners.delete(taskId)
    }
  }

  async due(now: number, limit: number): Promise<string[]> {
    const ids: string[] = []
    for (const [taskId, kept] of this.#tasks) {
      if (ids.length >= limit) break
      if (kept.due !== undefined && kept.due < now && kept.expires > now) ids.push(taskId)
    }
    return ids
  }

  async close(): Promise<void> {
    if (this.#sweep !== undefined) clearInterval(this.#sweep)
    this.#sweep = undefined
    this.#tasks.clear()
    this.#listeners.clear()
    this.#bytes = 0
  }

  /** The kept task, or `undefined` when unknown or expired (then dropped). */
  #live(taskId: string): Kept | undefined {
    const kept = this.#tasks.get(taskId)
    if (kept === undefined) return undefined
    if (kept.expires > Date.now()) return kept
    this.#drop(taskId, kept)
    return undefined
  }

  #drop(taskId: string, kept: Kept): void {
    this.#tasks.delete(taskId)
    this.#listeners.delete(taskId)
    this.#bytes -= kept.bytes
  }

  #dropExpired(now: number): void {
    for (const [taskId, kept] of this.#tasks) if (kept.expires <= now) this.#drop(taskId, kept)
  }
}
