/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663; docs/serving.md, "Tasks"):
 * a `tools/call` of a tool that may run as a task, from a client that
 * declared the extension, answers with a task once it has not finished at
 * once; the handler goes on in the background, its questions become the
 * task's input requests (`tasks/get` shows them, `tasks/update` answers
 * them), its result the task's result; `tasks/cancel` stops it. Task state
 * is in a {@link TaskStore}; what each change does is decided here, by
 * pure functions a store applies atomically.
 */
import { checkOptions, integerRule, type OptionRule } from '../../runtime/check-options.ts'
import { isAnswerOf, type InputRequest, type QuestionMethod } from '../primitives/requests-to-client.ts'
import { toBase64url } from '../base/base64url.ts'
import { noteTaskCreated, noteTaskEnded } from '../operate/telemetry.ts'
import {
  DEFAULT_MAX_BYTES_ALL_TASKS,
  DEFAULT_MAX_TASKS,
  isTerminal,
  MemoryTaskStore,
  type StoredTask,
  type TaskError,
  type TaskStore,
} from '../cluster/task-store.ts'

/** The extension's identifier, as clients and servers declare it under `capabilities.extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks'

/** How a tool may run: `optional` (a task when the caller can take one), `required` (only as a task), `forbidden` (never). */
export type TaskSupport = 'forbidden' | 'optional' | 'required'

/** The tasks options of a server (`Server.builder(name).tasks(...)`). */
export interface TaskOptions {
  /** Where tasks live. @default a MemoryTaskStore with `maxTasks` and `maxBytes` */
  store?: TaskStore
  /** Milliseconds a task is kept after it was created (`ttlMs` of the task). @default 3600000 (1 hour) */
  ttlMs?: number
  /** Milliseconds between polls the server suggests (`pollIntervalMs`); also how often a long-running operation is read. @default 1000 */
  pollIntervalMs?: number
  /** Milliseconds a call may take before it becomes a task; a call done sooner answers directly. @default 0 */
  startAfterMs?: number
  /** Tasks the default store keeps at once. @default 1000 */
  maxTasks?: number
  /** Bytes of task JSON the default store keeps. @default 67108864 (64 MiB) */
  maxBytes?: number
  /** Tasks one principal may have running at once in this instance (its next call is refused with `-32603` until one ends). @default 100 */
  maxTasksPerPrincipal?: number
  /** Task ids one `subscriptions/listen` may ask for (more is refused with `-32602`). @default 100 */
  maxListenTaskIds?: number
}

/** Default `ttlMs` of `tasks()`: a task is kept an hour after it was created. */
export const DEFAULT_TASK_TTL_MS = 3_600_000
/** Default `pollIntervalMs` of `tasks()`. */
export const DEFAULT_POLL_INTERVAL_MS = 1000
/** Default `startAfterMs` of `tasks()`: a call not done at once becomes a task. */
export const DEFAULT_START_AFTER_MS = 0
/** Default `maxTasksPerPrincipal` of `tasks()`. */
export const DEFAULT_MAX_TASKS_PER_PRINCIPAL = 100
/** Default `maxListenTaskIds` of `tasks()`. */
export const DEFAULT_MAX_LISTEN_TASK_IDS = 100

/** The option rules of `tasks()`, with their defaults (the docs show them: test/option-docs.test.ts). */
export const TASK_OPTION_RULES: Record<keyof TaskOptions, OptionRule> = {
  store: {
    accepts: 'a TaskStore (an object with create, get and update functions)',
    test: (v) =>
      v !== null &&
      typeof v === 'object' &&
      ['create', 'get', 'update'].every((k) => typeof (v as Record<string, unknown>)[k] === 'function'),
  },
  ttlMs: { ...integerRule(1), default: DEFAULT_TASK_TTL_MS },
  pollIntervalMs: { ...integerRule(1), default: DEFAULT_POLL_INTERVAL_MS },
  startAfterMs: { ...integerRule(0), default: DEFAULT_START_AFTER_MS },
  maxTasks: { ...integerRule(1), default: DEFAULT_MAX_TASKS },
  maxBytes: { ...integerRule(1024), default: DEFAULT_MAX_BYTES_ALL_TASKS },
  maxTasksPerPrincipal: { ...integerRule(1), default: DEFAULT_MAX_TASKS_PER_PRINCIPAL },
  maxListenTaskIds: { ...integerRule(1), default: DEFAULT_MAX_LISTEN_TASK_IDS },
}

/** Checks `tasks()` options (one line naming a wrong one). */
export function checkTaskOptions(options: TaskOptions): void {
  checkOptions('tasks()', options, TASK_OPTION_RULES)
}

/** A task as `tasks/get` shows it (SEP-2663 `DetailedTask`), and as a `CreateTaskResult` carries it (without the inlined parts). */
export type TaskView = Record<string, unknown>

const iso = (ms: number): string => new Date(ms).toISOString()

/** The wire form of a task: its fields, with the inlined input requests, result or error of its status when `detailed`. */
export function taskView(task: StoredTask, detailed: boolean): TaskView {
  const view: TaskView = {
    taskId: task.taskId,
    status: task.status,
    ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.lastUpdatedAt),
    ttlMs: task.ttlMs,
    pollIntervalMs: task.pollIntervalMs,
  }
  if (!detailed) return view
  if (task.status === 'input_required') view.inputRequests = task.inputRequests ?? {}
  if (task.status === 'completed') view.result = task.result ?? {}
  if (task.status === 'failed') view.error = task.error ?? { code: -32603, message: 'Internal error' }
  return view
}

// The changes of a task: pure functions a store applies atomically (task-store.ts, `TaskChange`).

/** Moves a task on (never a terminal one): the fields given replace the task's, `lastUpdatedAt` is now. */
const moved =
  (fields: Partial<StoredTask>) =>
  (task: StoredTask): StoredTask | undefined =>
    isTerminal(task.status) ? undefined : { ...task, ...fields, lastUpdatedAt: Date.now() }

/** Asks `request` under `key`: the task waits for it (`input_required`). A key asked before is refused (a key names one question). */
export const askChange =
  (key: string, request: InputRequest) =>
  (task: StoredTask): StoredTask | undefined => {
    if (isTerminal(task.status) || task.askedKeys?.includes(key)) return undefined
    return moved({
      status: 'input_required',
      inputRequests: { ...task.inputRequests, [key]: request },
      askedKeys: [...(task.askedKeys ?? []), key],
    })(task)
  }

/**
 * Takes a client's answers (`tasks/update`): only those to questions
 * outstanding, and of their request's shape, count (others are ignored);
 * the task works again once nothing is outstanding.
 */
export const answerChange =
  (responses: Record<string, unknown>) =>
  (task: StoredTask): StoredTask | undefined => {
    const outstanding = { ...task.inputRequests }
    const taken: Record<string, unknown> = {}
    for (const [key, answer] of Object.entries(responses)) {
      const request = outstanding[key]
      if (request === undefined || !isAnswerOf(request.method as QuestionMethod, answer)) continue
      taken[key] = answer
      delete outstanding[key]
    }
    if (Object.keys(taken).length === 0) return undefined
    const waiting = Object.keys(outstanding).length > 0
    return moved({
      status: waiting ? 'input_required' : 'working',
      inputRequests: waiting ? outstanding : undefined,
      inputResponses: { ...task.inputResponses, ...taken },
    })(task)
  }

/** Removes answers the running handler has taken. */
const takenChange =
  (keys: readonly string[]) =>
  (task: StoredTask): StoredTask | undefined => {
    if (task.inputResponses === undefined) return undefined
    const left = { ...task.inputResponses }
    for (const key of keys) delete left[key]
    return { ...task, inputResponses: Object.keys(left).length > 0 ? left : undefined }
  }

/** Ends a task with the request's result; the last progress was how the work went, not how it ended: it goes. */
export const completeChange = (result: Record<string, unknown>) =>
  moved({ status: 'completed', result, statusMessage: undefined, inputRequests: undefined, inputResponses: undefined })

/** Ends a task with a JSON-RPC error. */
export const failChange = (error: TaskError, statusMessage: string) =>
  moved({ status: 'failed', error, statusMessage, inputRequests: undefined, inputResponses: undefined })

/** Cancels a task (`tasks/cancel`): at once, so a task cancelled stays cancelled whatever its handler does next. */
export const cancelChange = moved({
  status: 'cancelled',
  statusMessage: 'cancelled by the client',
  cancelRequested: true,
  inputRequests: undefined,
  inputResponses: undefined,
})

/** Says how the work goes (`statusMessage`): a handler's progress, a long-running operation's metadata. */
export const messageChange = (statusMessage: string) => moved({ statusMessage })

// In a fleet (docs/cluster.md) a task has a runner: the instance running it, under a lease it renews.

/** `change`, made only while `instance` runs the task (a task without a runner is one instance's). */
export const runnerOnly =
  (instance: string, change: (task: StoredTask) => StoredTask | undefined) =>
  (task: StoredTask): StoredTask | undefined =>
    task.runner !== undefined && task.runner.instance !== instance ? undefined : change(task)

/** Renews `instance`'s lease of a task it runs to `until`, recording the operation it follows when given. */
export const leaseChange =
  (instance: string, until: number, operation?: string) =>
  (task: StoredTask): StoredTask | undefined => {
    if (isTerminal(task.status) || (task.runner !== undefined && task.runner.instance !== instance)) return undefined
    return { ...task, runner: { instance, until }, ...(operation === undefined ? {} : { operation }) }
  }

/** Takes a task over for `instance` when its runner's lease ended before `now` (one instance wins: the store applies changes one at a time). */
export const claimChange =
  (instance: string, now: number, until: number) =>
  (task: StoredTask): StoredTask | undefined =>
    isTerminal(task.status) || task.runner === undefined || task.runner.until >= now ? undefined : { ...task, runner: { instance, until } }

/** The first wait before a task's end is written again (the store unreachable), doubling up to {@link FINISH_RETRY_MAX_MS}. */
const FINISH_RETRY_FIRST_MS = 50
const FINISH_RETRY_MAX_MS = 500

/** A task running in this instance: how to stop it and who waits for which answer. */
interface Live {
  readonly controller: AbortController
  readonly waiting: Map<string, { method: QuestionMethod; resolve: (answer: unknown) => void }>
  stop?: () => void
}

/** A task this server cannot create (its store is full), or a change its store cannot hold. */
export function isLimitError(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'TaskLimitError'
}

/** What the task methods read of the server state (`ServerState` is one): its tasks, read at each use (joining a fleet replaces them). */
export interface TaskHost {
  readonly tasks: TaskManager
}

/**
 * The tasks of one server: its store, its options, and the tasks running
 * in this instance (their handlers, the answers they wait for).
 */
export class TaskManager {
  readonly store: TaskStore
  readonly ttlMs: number
  readonly pollIntervalMs: number
  readonly startAfterMs: number
  readonly maxTasksPerPrincipal: number
  readonly maxListenTaskIds: number
  readonly #live = new Map<string, Live>()
  /** Tasks running here by owner (the principal): what `maxTasksPerPrincipal` bounds. */
  readonly #running = new Map<string, number>()
  /** Told of each failure of the store under a request (store-errors.ts): the server's log. */
  onStoreError: (method: string, error: unknown) => void = () => {}
  /** This instance's id in a fleet (tasks get a runner and a lease); none for one instance alone. */
  #instance: string | undefined
  #renewer: ReturnType<typeof setInterval> | undefined

  constructor(options: TaskOptions = {}) {
    this.store = options.store ?? new MemoryTaskStore({ maxTasks: options.maxTasks, maxBytes: options.maxBytes })
    this.ttlMs = options.ttlMs ?? DEFAULT_TASK_TTL_MS
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS
    this.startAfterMs = options.startAfterMs ?? DEFAULT_START_AFTER_MS
    this.maxTasksPerPrincipal = options.maxTasksPerPrincipal ?? DEFAULT_MAX_TASKS_PER_PRINCIPAL
    this.maxListenTaskIds = options.maxListenTaskIds ?? DEFAULT_MAX_LISTEN_TASK_IDS
  }

  /**
   * Why `owner` may not start another task now (it has `maxTasksPerPrincipal`
   * running here), or `undefined`: one principal cannot take every task the
   * store keeps from the others.
   */
  quotaRefusal(owner: string): string | undefined {
    const running = this.#running.get(owner) ?? 0
    if (running < this.maxTasksPerPrincipal) return undefined
    return `too many tasks: this caller has ${running} running, the most one caller may (maxTasksPerPrincipal); retry once one has ended`
  }

  /** Runs tasks as instance `instanceId` of a fleet: each gets a lease this instance renews while it runs it. */
  joinFleet(instanceId: string): void {
    this.#instance = instanceId
  }

  /** Whether task `taskId` runs in this instance now. */
  runsHere(taskId: string): boolean {
    return this.#live.has(taskId)
  }

  /** This instance's id in a fleet, if it is in one. */
  get instance(): string | undefined {
    return this.#instance
  }

  /** How long a runner's lease holds: three polls (renewed every poll), at least a second. */
  get leaseMs(): number {
    return Math.max(3 * this.pollIntervalMs, 1000)
  }

  /** A new task record (not stored yet): 128 random bits as its id, `working`; in a fleet, run here under a lease. */
  newTask(owner: string, tool: string): StoredTask {
    const now = Date.now()
    return {
      taskId: toBase64url(globalThis.crypto.getRandomValues(new Uint8Array(16))),
      owner,
      tool,
      status: 'working',
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      ...(this.#instance === undefined ? {} : { runner: { instance: this.#instance, until: now + this.leaseMs } }),
    }
  }

  /**
   * Whether this instance still follows operation `name` of task `taskId`
   * (recording the name in the task, renewing the lease): in a fleet,
   * exactly one instance reads an operation at a time. Always so for one
   * instance alone, and for a task that ended (its own end stops the reading).
   */
  async holdsOperation(taskId: string, name: string): Promise<boolean> {
    const instance = this.#instance
    if (instance === undefined) return true
    // The store unreachable for a moment: reading on is safer than dropping the operation.
    const stored = await this.store.update(taskId, leaseChange(instance, Date.now() + this.leaseMs, name)).catch(() => null)
    if (stored === null) return true
    return stored !== undefined && (isTerminal(stored.status) || stored.runner?.instance === instance)
  }

  /** Renews the lease of every task running here (one change each), so the fleet does not take them over. */
  #renew(): void {
    const instance = this.#instance!
    const until = Date.now() + this.leaseMs
    for (const taskId of this.#live.keys()) this.store.update(taskId, leaseChange(instance, until)).catch(() => {})
  }

  /**
   * Runs `settled` (the handler's outcome) as `task`: its answers and
   * cancellation reach the handler through `controller` and {@link ask};
   * its outcome becomes the task's end (`end`, which may throw a
   * JSON-RPC error: the task then fails with it). `onEnd` runs once the
   * task is settled in the store (tests, logs).
   */
  adopt(
    task: StoredTask,
    controller: AbortController,
    settled: Promise<unknown>,
    end: (outcome: unknown) => Record<string, unknown>,
    onEnd?: (error?: unknown) => void,
  ): void {
    const live: Live = { controller, waiting: new Map() }
    this.#live.set(task.taskId, live)
    // Its polls and its end are linked to the span of the call that created it (operate/telemetry.ts).
    noteTaskCreated(task.taskId)
    let ended = 'completed'
    this.#running.set(task.owner, (this.#running.get(task.owner) ?? 0) + 1)
    if (this.#instance !== undefined && this.#renewer === undefined) {
      this.#renewer = setInterval(() => this.#renew(), this.leaseMs / 3)
      ;(this.#renewer as { unref?: () => void }).unref?.()
    }
    // In a fleet, only the runner ends the task: an instance whose lease another took over leaves the end to it.
    const own = (change: (t: StoredTask) => StoredTask | undefined) =>
      this.#instance === undefined ? change : runnerOnly(this.#instance, change)
    const seen = (stored: StoredTask): void => {
      if (stored.cancelRequested || isTerminal(stored.status)) {
        if (!controller.signal.aborted) controller.abort(new Error(`task ${stored.taskId} was ${stored.status}`))
        return
      }
      this.#deliver(stored, live)
    }
    if (this.store.watch) live.stop = this.store.watch(task.taskId, seen)
    else {
      // A store that cannot tell of changes is read for them, as often as clients are asked to poll.
      const timer = setInterval(() => {
        this.store.get(task.taskId).then(
          (stored) => (stored ? seen(stored) : controller.abort(new Error('task expired'))),
          () => {},
        )
      }, this.pollIntervalMs)
      ;(timer as { unref?: () => void }).unref?.()
      live.stop = () => clearInterval(timer)
    }
    const finish = async (change: (t: StoredTask) => StoredTask | undefined): Promise<void> => {
      try {
        await this.#write(task, own(change))
      } catch (error) {
        // A result the store cannot hold (too large) still ends the task, as a failure saying why.
        if (!isLimitError(error)) throw error
        await this.#write(
          task,
          own(failChange({ code: -32603, message: (error as Error).message }, 'the result does not fit the task store')),
        )
      }
    }
    settled
      .then(
        (outcome) => {
          let result: Record<string, unknown>
          try {
            result = end(outcome)
          } catch (error) {
            ended = 'failed'
            return finish(failChange(asTaskError(error), `failed: ${(error as Error).message}`))
          }
          return finish(completeChange(result))
        },
        (error: unknown) => {
          ended = controller.signal.aborted ? 'cancelled' : 'failed'
          return finish(failChange(asTaskError(error), `failed: ${(error as Error)?.message ?? String(error)}`))
        },
      )
      .then(
        () => onEnd?.(),
        (error: unknown) => onEnd?.(error),
      )
      .finally(() => {
        noteTaskEnded(task.taskId, task.tool, ended)
        live.stop?.()
        this.#live.delete(task.taskId)
        const running = (this.#running.get(task.owner) ?? 1) - 1
        if (running > 0) this.#running.set(task.owner, running)
        else this.#running.delete(task.owner)
        if (this.#live.size === 0 && this.#renewer !== undefined) {
          clearInterval(this.#renewer)
          this.#renewer = undefined
        }
        for (const waiter of live.waiting.values()) waiter.resolve(undefined)
      })
  }

  /**
   * Writes a task's end, retried with backoff while the store cannot be
   * reached (a database restarting): the task stays live here meanwhile,
   * its lease renewed whenever the store answers, so no other instance
   * takes it over and fails it. In a fleet the change is the runner's only
   * (`runnerOnly`): once another instance holds the task, the write leaves
   * it. Gives up when the task expires; a limit error is no outage.
   */
  async #write(task: StoredTask, change: (t: StoredTask) => StoredTask | undefined): Promise<void> {
    for (let delay = FINISH_RETRY_FIRST_MS; ; delay = Math.min(2 * delay, FINISH_RETRY_MAX_MS)) {
      try {
        await this.store.update(task.taskId, change)
        return
      } catch (error) {
        if (isLimitError(error) || Date.now() + delay >= task.createdAt + task.ttlMs) throw error
      }
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }

  /**
   * Asks `request` under `key` in a running task: the task shows it until
   * a client answers (`tasks/update`); resolves with the answer. Rejects
   * when the task ends first, or when `key` was asked before in the task.
   */
  async ask(taskId: string, request: InputRequest, key: string): Promise<unknown> {
    const live = this.#live.get(taskId)
    if (live === undefined) throw new Error(`task ${taskId} is not running here`)
    if (live.waiting.has(key)) throw new Error(`${request.method}: the question key "${key}" is already waiting for an answer in this task`)
    const answered = new Promise<unknown>((resolve) => live.waiting.set(key, { method: request.method, resolve }))
    const stored = await this.store.update(taskId, askChange(key, request))
    if (stored === undefined || isTerminal(stored.status)) {
      live.waiting.delete(key)
      throw new Error(`task ${taskId} ended before ${request.method} was answered`)
    }
    if (stored.inputRequests?.[key] === undefined && stored.inputResponses?.[key] === undefined) {
      live.waiting.delete(key)
      throw new Error(`${request.method}: the question key "${key}" was used before in this task (a key names one question)`)
    }
    this.#deliver(stored, live)
    const answer = await answered
    if (answer === undefined) throw new Error(`task ${taskId} ended before ${request.method} was answered`)
    return answer
  }

  /** Hands the answers a task holds to the handlers waiting for them, and removes them from the task. */
  #deliver(stored: StoredTask, live: Live): void {
    const given = stored.inputResponses ?? {}
    const keys = Object.keys(given).filter((key) => live.waiting.has(key))
    if (keys.length === 0) return
    for (const key of keys) {
      const waiter = live.waiting.get(key)!
      live.waiting.delete(key)
      waiter.resolve(given[key])
    }
    this.store.update(stored.taskId, takenChange(keys)).catch(() => {
      // Answers left in the task are ignored once taken here; the next change removes them.
    })
  }

  /** Notes how the work goes, best effort (a progress report never fails the handler). */
  report(taskId: string, statusMessage: string): Promise<void> {
    const change = messageChange(statusMessage)
    return this.store.update(taskId, this.#instance === undefined ? change : runnerOnly(this.#instance, change)).then(
      () => {},
      () => {},
    )
  }
}

/** The JSON-RPC error a task fails with: a thrown protocol error's own code and data, else an internal error. */
export function asTaskError(error: unknown): TaskError {
  const e = error as { code?: unknown; message?: unknown; data?: unknown } | null
  const message = typeof e?.message === 'string' ? e.message : String(error)
  if (typeof e?.code === 'number' && Number.isInteger(e.code)) {
    return e.data === undefined ? { code: e.code, message } : { code: e.code, message, data: e.data }
  }
  return { code: -32603, message }
}
