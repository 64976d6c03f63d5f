/**
 * One call that may become a task (docs/serving.md, "Tasks"): the handler runs;
 * if it has not finished after `startAfterMs` (and asked no question of
 * this round), the task is created (stored before the call answers with
 * it) and the handler goes on as the task. Until then its questions are
 * the request's own (`input_required` rounds), its progress the
 * request's; from then on its questions are the task's input requests,
 * its progress the task's `statusMessage`, and its signal the task's
 * (aborted by `tasks/cancel`, no longer by the request).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { CallContext } from '../../runtime/types.ts'
import type { Ask, InputRequest, Rounds } from '../primitives/requests-to-client.ts'
import { fromStore } from './store-errors.ts'
import type { StoredTask } from '../cluster/task-store.ts'
import { isLimitError, type TaskManager } from './tasks.ts'

type Progress = NonNullable<CallContext['progress']>

/** What {@link TaskableCall.run} resolves with: the call's own outcome, or the task it became. */
export type CallOutcome<R> = { result: R } | { task: StoredTask }

/** A call that may become a task. */
export class TaskableCall {
  readonly #tasks: TaskManager
  readonly #owner: string
  readonly #tool: string
  readonly #rounds: Rounds | undefined
  readonly #direct: Ask
  readonly #requestProgress: Progress | undefined
  readonly #controller = new AbortController()
  #task: StoredTask | undefined
  /** Settles once the task is stored and adopted: questions of the task wait for it. */
  #adopted: Promise<void> | undefined
  #asked = 0

  /**
   * `direct`: how a question reaches the client before the task starts;
   * `requestProgress`: the request's progress, when the caller asked for it.
   */
  constructor(
    tasks: TaskManager,
    owner: string,
    tool: string,
    request: AbortSignal,
    options: { rounds?: Rounds; direct: Ask; requestProgress?: Progress },
  ) {
    this.#tasks = tasks
    this.#owner = owner
    this.#tool = tool
    this.#rounds = options.rounds
    this.#direct = options.direct
    this.#requestProgress = options.requestProgress
    // The request's cancellation stops the handler only until the call is a task.
    if (request.aborted) this.#controller.abort(request.reason)
    else request.addEventListener('abort', () => this.#task === undefined && this.#controller.abort(request.reason), { once: true })
  }

  /** The handler's signal: the request's, then the task's. */
  get signal(): AbortSignal {
    return this.#controller.signal
  }

  /** The handler's questions. */
  readonly ask: Ask = <T>(request: InputRequest, key?: string): Promise<T> => {
    if (this.#task === undefined) return this.#direct<T>(request, key)
    const taskId = this.#task.taskId
    const name = key ?? `ask-${this.#asked++}`
    return this.#adopted!.then(() => this.#tasks.ask(taskId, request, name) as Promise<T>)
  }

  /** For a long-running RPC: whether this instance still follows operation `name` of the task (in a fleet, one instance does). */
  readonly holdsOperation = (name: string): Promise<boolean> => {
    if (this.#task === undefined) return Promise.resolve(true)
    const taskId = this.#task.taskId
    return this.#adopted!.then(
      () => this.#tasks.holdsOperation(taskId, name),
      () => false,
    )
  }

  /** The handler's progress: the request's notifications, then the task's `statusMessage`. */
  readonly progress: Progress = (progress, message, total) => {
    if (this.#task === undefined) return this.#requestProgress?.(progress, message, total) ?? Promise.resolve()
    const text = message ?? (total === undefined ? `${progress}` : `${progress} of ${total}`)
    return this.#adopted!.then(() => this.#tasks.report(this.#task!.taskId, text))
  }

  /**
   * Waits for `call` (the running handler) or for `startAfterMs`, whichever
   * first; then answers with its outcome, or makes it a task whose end is
   * `end(outcome)` (a result to store; a throw fails the task). Rejects
   * with a `-32603` when the store has no room for the task.
   */
  async run<R>(call: Promise<R>, end: (outcome: R) => Record<string, unknown>): Promise<CallOutcome<R>> {
    let timer: ReturnType<typeof setTimeout> | undefined
    const due = new Promise<undefined>((resolve) => {
      timer = setTimeout(() => resolve(undefined), this.#tasks.startAfterMs)
    })
    const first = await Promise.race([call.then((result) => ({ result })), due])
    clearTimeout(timer)
    if (first !== undefined) return first
    // A question asked in this round: the client answers it first, whatever the handler does meanwhile.
    if (this.#rounds?.pending.size) return { result: await call }
    const refusal = this.#tasks.quotaRefusal(this.#owner)
    if (refusal !== undefined) {
      const error = new ProtocolError(ProtocolErrorCode.InternalError, refusal)
      this.#controller.abort(error)
      throw error
    }
    const task = this.#tasks.newTask(this.#owner, this.#tool)
    this.#task = task
    let adopted!: () => void
    let refused!: (error: unknown) => void
    this.#adopted = new Promise<void>((resolve, reject) => {
      adopted = resolve
      refused = reject
    })
    this.#adopted.catch(() => {})
    try {
      await fromStore(this.#tasks, 'tools/call', () => this.#tasks.store.create(task))
    } catch (error) {
      this.#controller.abort(error)
      refused(error)
      if (isLimitError(error)) throw new ProtocolError(ProtocolErrorCode.InternalError, (error as Error).message)
      throw error
    }
    this.#tasks.adopt(task, this.#controller, call, end as (outcome: unknown) => Record<string, unknown>)
    adopted()
    return { task }
  }
}
