/**
 * What a client is told when the task store fails (a database restarting,
 * docs/serving.md, "Tasks"): a JSON-RPC internal error in plain words, never
 * the driver's message (it names the database's address, `ECONNREFUSED`).
 * The cause goes to the server's log.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { isLimitError, type TaskManager } from './tasks.ts'

/** The text of a request the task store could not serve. */
export const TASK_STORE_UNAVAILABLE = 'the task store is unavailable; retry shortly'

/**
 * Runs `work` (reads and changes of the task store for `method`): a store
 * failure is logged and becomes a `-32603` saying the store is unavailable.
 * A protocol error, or a store refusing for want of room, passes as it is.
 */
export async function fromStore<T>(tasks: TaskManager, method: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work()
  } catch (error) {
    if (error instanceof ProtocolError || isLimitError(error)) throw error
    tasks.onStoreError(method, error)
    throw new ProtocolError(ProtocolErrorCode.InternalError, `${method}: ${TASK_STORE_UNAVAILABLE}`)
  }
}
