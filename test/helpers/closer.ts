/**
 * What a test opened (clients, servers, child processes, temporary folders),
 * closed last-opened first. In one test, `await using closer = new Closer()`
 * closes at the end of the block; for a file's shared set-up, one Closer
 * closed in `afterAll`/`afterEach` (`afterAll(() => closers.close())`).
 */
export class Closer implements AsyncDisposable {
  #closes: Array<() => unknown> = []
  readonly #strict: boolean

  /** `strict`: `close()` rejects with the first failure (after running the rest) instead of ignoring failures. */
  constructor(options: { strict?: boolean } = {}) {
    this.#strict = options.strict ?? false
  }

  /** Closes `close` with the rest (pushed last, run first). */
  push(...closes: Array<() => unknown>): void {
    this.#closes.push(...closes)
  }

  /** `value`, closed by `close(value)` with the rest. */
  add<T>(value: T, close: (value: T) => unknown): T {
    this.#closes.push(() => close(value))
    return value
  }

  /** Runs every close, last pushed first, each even when one before it failed (failures are ignored unless `strict`); then holds nothing. */
  async close(): Promise<void> {
    const failures: unknown[] = []
    for (const close of this.#closes.splice(0).reverse()) {
      try {
        await close()
      } catch (error) {
        failures.push(error)
      }
    }
    if (this.#strict && failures.length > 0) throw failures[0]
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close()
  }
}
