/**
 * The task store of the Postgres cluster (docs/cluster.md): one row per
 * task, its JSON and a version; a change reads the row, applies the change
 * (a pure function, tasks.ts) and writes it back only if the version is
 * still the one read, else reads again (optimistic). Each write notifies
 * the task's id on the cluster's channel; an instance watching the task
 * reads it then. Bounded in count (`maxTasks`) and per task (`maxTaskBytes`).
 */
import type { Statements } from './schema.ts'
import { dueOf, TaskLimitError, type StoredTask, type TaskChange, type TaskStore } from '../server/cluster/task-store.ts'

type Query = <R extends Record<string, unknown>>(text: string, values: unknown[]) => Promise<{ rows: R[]; rowCount: number | null }>

/** The limits of the Postgres task store. */
export interface TaskLimits {
  maxTasks: number
  maxTaskBytes: number
}

const encoder = new TextEncoder()

/** The task store over `query`; `heard(taskId)` is to be called for each task notification of another instance. */
export function postgresTasks(
  sql: Statements,
  query: Query,
  instanceId: string,
  limits: TaskLimits,
): TaskStore & { heard(taskId: string): void } {
  const watchers = new Map<string, Set<(task: StoredTask) => void>>()
  const tell = (task: StoredTask): void => {
    for (const listener of [...(watchers.get(task.taskId) ?? [])]) listener(structuredClone(task))
  }
  /** The JSON of `task`, refused when larger than a task may be. */
  const text = (task: StoredTask): string => {
    const json = JSON.stringify(task)
    const bytes = encoder.encode(json).length
    if (bytes > limits.maxTaskBytes) {
      throw new TaskLimitError(
        `task ${task.taskId} does not fit: ${bytes} bytes, more than the ${limits.maxTaskBytes} a task may hold`,
        'bytes',
      )
    }
    return json
  }
  const read = async (taskId: string): Promise<{ task: StoredTask; version: number } | undefined> => {
    const { rows } = await query<{ task: string; version: number }>(sql.getTask, [taskId, Date.now()])
    return rows[0] === undefined ? undefined : { task: JSON.parse(rows[0].task) as StoredTask, version: rows[0].version }
  }
  return {
    async create(task) {
      const json = text(task)
      const insert = () => query(sql.createTask, [task.taskId, json, task.createdAt + task.ttlMs, dueOf(task), Date.now(), limits.maxTasks])
      let { rowCount } = await insert()
      // Full: a task that ended (its result kept for its TTL) makes room, so finished tasks never lock new ones out.
      if (rowCount !== 1 && ((await query(sql.dropEndedTask, [])).rowCount ?? 0) > 0) ({ rowCount } = await insert())
      if (rowCount !== 1)
        throw new TaskLimitError(`too many tasks: all ${limits.maxTasks} the fleet keeps are in use; retry later`, 'tasks')
    },
    async get(taskId) {
      return (await read(taskId))?.task
    },
    async update(taskId: string, change: TaskChange) {
      for (;;) {
        const found = await read(taskId)
        if (found === undefined) return undefined
        const next = change(found.task)
        if (next === undefined) return found.task
        const json = text(next)
        const values = [taskId, found.version, json, next.createdAt + next.ttlMs, dueOf(next), instanceId]
        const { rowCount } = await query(sql.updateTask, values)
        // Another change came in between: read it and apply this one to it.
        if (rowCount !== 1) continue
        const stored = JSON.parse(json) as StoredTask
        tell(stored)
        return stored
      }
    },
    watch(taskId, listener) {
      let set = watchers.get(taskId)
      if (set === undefined) watchers.set(taskId, (set = new Set()))
      set.add(listener)
      return () => {
        set.delete(listener)
        if (set.size === 0 && watchers.get(taskId) === set) watchers.delete(taskId)
      }
    },
    async due(now, limit) {
      const { rows } = await query<{ id: string }>(sql.dueTasks, [now, limit])
      return rows.map((row) => row.id)
    },
    heard(taskId) {
      if (!watchers.has(taskId)) return
      read(taskId).then(
        (found) => found && tell(found.task),
        () => {},
      )
    },
  }
}
