/**
 * Tasks of a fleet whose runner stopped (docs/cluster.md). Every
 * instance looks, every `pollIntervalMs`, for tasks whose runner's lease
 * ran out (`TaskStore.due`) and takes each over with one change (the store
 * applies changes one at a time: one instance wins). A task following a
 * long-running operation is followed from here on: this instance reads
 * the operation, ends the task with its outcome, and cancels it on
 * `tasks/cancel`. Any other task fails, saying that the instance running
 * it stopped (its handler ran there, and is gone with it).
 */
import { followOperation } from '../../runtime/long-running.ts'
import type { CallContext } from '../../runtime/types.ts'
import type { Cluster } from '../cluster/cluster.ts'
import { createSdkServer, taskResult } from './sdk-server.ts'
import type { ServerState } from './server-state.ts'
import { isTerminal, type StoredTask } from '../cluster/task-store.ts'
import { claimChange, failChange, runnerOnly, type TaskManager } from '../tasks/tasks.ts'

/** Tasks claimed per look: the rest wait for the next. */
const CLAIMS_PER_LOOK = 16

/**
 * Runs `state`'s tasks in the fleet of `cluster` and starts looking for
 * tasks to take over; returns the stop. Failures go to `onerror`.
 */
export function joinFleetTasks(state: ServerState, cluster: Cluster, onerror: (error: Error) => void): () => void {
  const tasks = state.joinFleet(cluster)
  const instance = tasks.instance!
  const store = tasks.store
  if (store.due === undefined) return () => {}
  let looking = false
  const look = async (): Promise<void> => {
    const now = Date.now()
    for (const taskId of await store.due!(now, CLAIMS_PER_LOOK)) {
      if (tasks.runsHere(taskId)) continue
      const task = await store.update(taskId, claimChange(instance, now, Date.now() + tasks.leaseMs))
      if (task === undefined || isTerminal(task.status) || task.runner?.instance !== instance || task.runner.until <= now) continue
      takeOver(state, tasks, task)
    }
  }
  const timer = setInterval(() => {
    if (looking) return
    looking = true
    look()
      .catch((error: unknown) => onerror(error instanceof Error ? error : new Error(String(error))))
      .finally(() => (looking = false))
  }, tasks.pollIntervalMs)
  ;(timer as { unref?: () => void }).unref?.()
  return () => clearInterval(timer)
}

/** Runs `task`, just claimed, here: its operation followed, or the task failed. */
function takeOver(state: ServerState, tasks: TaskManager, task: StoredTask): void {
  const entry = state.tools.byName.get(task.tool)
  const tool = entry?.proto?.tool
  if (entry === undefined || tool?.spec.longRunning === undefined || task.operation === undefined || tool.operations?.get === undefined) {
    const error = { code: -32603, message: `the instance running task ${task.taskId} stopped before the task ended` }
    tasks.store.update(task.taskId, runnerOnly(tasks.instance!, failChange(error, 'the instance running it stopped'))).catch(() => {})
    return
  }
  const controller = new AbortController()
  const taskId = task.taskId
  const context: CallContext = {
    tool: task.tool,
    signal: controller.signal,
    pollIntervalMs: tasks.pollIntervalMs,
    progress: (progress, message) => tasks.report(taskId, message ?? String(progress)),
    holdsOperation: (name) => tasks.holdsOperation(taskId, name),
  }
  let server: ReturnType<typeof createSdkServer> | undefined
  const settled = followOperation(tool, { name: task.operation, done: false }, context)
  tasks.adopt(task, controller, settled, (result) =>
    taskResult((server ??= createSdkServer(state)), { name: task.tool, entry }, result as never, {
      server: state.info.name,
      log: state.log,
    }),
  )
}
