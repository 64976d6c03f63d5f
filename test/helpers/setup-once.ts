/**
 * What vitest's global setups (setup-build.ts, setup-postgres.ts, named by
 * the projects of vitest.config.ts) do once per run, whichever project asks
 * first. Every project's global setup runs in vitest's one main process, each
 * through a module runner of its own, so the memo is on `globalThis`.
 */

interface Memo {
  jobs: Map<string, Promise<unknown>>
  teardowns: Map<string, { users: number; close: () => Promise<void> }>
}

const KEY = Symbol.for('unplugin-proto-mcp.test-setup-once')
const memo: Memo = ((globalThis as Record<symbol, Memo>)[KEY] ??= { jobs: new Map(), teardowns: new Map() })

/**
 * Runs `start` the first time `name` is asked for in this run and resolves
 * with its value; the returned teardown runs `close` after the last asker's.
 */
export async function once<T>(
  name: string,
  start: () => Promise<{ value: T; close?: () => Promise<void> }>,
): Promise<{ value: T; teardown: () => Promise<void> }> {
  let job = memo.jobs.get(name) as Promise<{ value: T; close?: () => Promise<void> }> | undefined
  if (!job) memo.jobs.set(name, (job = start()))
  const entry = memo.teardowns.get(name) ?? { users: 0, close: async () => {} }
  memo.teardowns.set(name, { ...entry, users: entry.users + 1 })
  const { value, close } = await job
  return {
    value,
    async teardown() {
      const current = memo.teardowns.get(name)!
      if (--current.users > 0) return
      memo.teardowns.delete(name)
      memo.jobs.delete(name)
      await close?.()
    },
  }
}
