/**
 * The tool a `tools/call` runs, as the operating hooks name it (its
 * per-tool rate-limit bucket, its audit line): in search mode a
 * `call_tool`'s is the tool it names (docs/guide/big-apis.md). The server
 * state says how it reads that (`ServerState.calledTool`); without it, the
 * name the call gives.
 */

const readers = new WeakMap<object, (params: unknown) => string | undefined>()

/** Registers how `state` reads the tool a call's params run. */
export function readCalledToolWith(state: object, read: (params: unknown) => string | undefined): void {
  readers.set(state, read)
}

/** The tool a `tools/call` with `params` runs on `state` (unchecked: the call finds out whether it exists). */
export function calledToolOf(state: object, params: unknown): string {
  return readers.get(state)?.(params) ?? String((params as { name?: unknown } | undefined)?.name ?? '')
}
