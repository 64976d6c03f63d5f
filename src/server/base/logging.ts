/**
 * Where a server's messages go (docs/serving.md, "Logging"): a `logger` for its
 * warnings and errors, an `onError` callback for the errors themselves
 * (the MCP SDK's `onerror`, with where it happened). By default both are
 * one line on stderr, as before any option; nothing else prints.
 */
import type { OptionRule } from '../../runtime/check-options.ts'
import { writeStderr } from '../../runtime/stderr.ts'

/** Receives a server's messages; a method left out drops those messages. */
export interface Logger {
  /** A warning (a call to a hidden tool, a server open to any Host). */
  warn?(message: string): void
  /** An error of a transport or a listener; `error` is what was thrown. */
  error?(message: string, error?: unknown): void
  /**
   * A line of information: where HTTP serving listens (`vibe: serving on http://127.0.0.1:3000/mcp`), or
   * the audit line of a tool call (`audit`), its fields as `record`.
   */
  info?(message: string, record?: Readonly<Record<string, unknown>>): void
}

/** Where an error passed to `onError` happened. */
export type ErrorSource = 'stdio' | 'http' | 'fetch' | 'list_changed' | 'resources/updated' | 'tasks'

/** The `logger` and `onError` options of `Server.logging()`, the builder and each transport. */
export interface LoggingOptions {
  /** Receives the server's warnings and errors; `false` silences them. @default one line on stderr each */
  logger?: Logger | false
  /**
   * Receives every error a transport reports or a listener throws, with
   * where it happened; when given, the logger is not told of errors.
   * @default the logger's `error`
   */
  onError?: (error: unknown, where: ErrorSource) => void
  /**
   * One structured line per tool call to the logger's `info`
   * (docs/guide/production.md): time, principal, tool, outcome, duration,
   * bytes in and out; `{ arguments: true }` adds the call's arguments.
   * @default false
   */
  audit?: boolean | { arguments?: boolean }
}

/** One line on stderr (or the console where there is none) per message: the default. */
const STDERR_LOGGER: Logger = {
  info: (message) => writeStderr(`${message}\n`),
  warn: (message) => writeStderr(`${message}\n`),
  error: (message) => writeStderr(`${message}\n`),
}

/** Lines of one kind the logger is given per window before the rest are counted instead. */
export const LOG_BURST = 10
/** The window of {@link LOG_BURST}, in milliseconds. */
export const LOG_WINDOW_MS = 10_000

interface Window {
  start: number
  shown: number
  hidden: number
  last: string
  timer?: ReturnType<typeof setTimeout>
}

/**
 * At most {@link LOG_BURST} lines of one kind per {@link LOG_WINDOW_MS}:
 * a flood of rejected requests or failed calls must not flood stderr.
 * The lines held back are not lost from sight: when the window ends, the
 * last of them is written once with how many there were.
 */
class Throttle {
  readonly #windows = new Map<string, Window>()

  /** Writes `line` with `write` now, or holds it back (counted) when its kind is over the burst. */
  pass(kind: string, line: string, write: (line: string) => void): void {
    const now = Date.now()
    let window = this.#windows.get(kind)
    if (window !== undefined && now - window.start >= LOG_WINDOW_MS) {
      this.#flush(kind, write)
      window = undefined
    }
    if (window === undefined) this.#windows.set(kind, (window = { start: now, shown: 0, hidden: 0, last: '' }))
    if (window.shown < LOG_BURST) {
      window.shown++
      write(line)
      return
    }
    window.hidden++
    window.last = line
    if (window.timer === undefined) {
      window.timer = setTimeout(() => this.#flush(kind, write), window.start + LOG_WINDOW_MS - now)
      // A held-back summary must not keep a process alive.
      ;(window.timer as { unref?: () => void }).unref?.()
    }
  }

  #flush(kind: string, write: (line: string) => void): void {
    const window = this.#windows.get(kind)
    if (window === undefined) return
    this.#windows.delete(kind)
    if (window.timer !== undefined) clearTimeout(window.timer)
    if (window.hidden === 0) return
    const others = window.hidden - 1
    write(others === 0 ? window.last : `${window.last} (and ${others} more like it in ${LOG_WINDOW_MS / 1000} s, not logged one by one)`)
  }
}

/** Only the logging options of a transport's options. */
const pick = ({ logger, onError, audit }: LoggingOptions): LoggingOptions => ({
  ...(logger === undefined ? {} : { logger }),
  ...(onError === undefined ? {} : { onError }),
  ...(audit === undefined ? {} : { audit }),
})

/**
 * The messages of one server or one transport. A transport's own options
 * win over the server's (`base`), option by option, read when a message is
 * sent, so a later `logging()` call reaches transports already serving.
 */
export class Log {
  #own: LoggingOptions
  readonly #base: Log | undefined
  readonly #throttle = new Throttle()

  constructor(own: LoggingOptions = {}, base?: Log) {
    this.#own = pick(own)
    this.#base = base
  }

  /** Replaces the options given so far (`Server.logging()`). */
  set(options: LoggingOptions): void {
    this.#own = pick(options)
  }

  get #logger(): Logger | false {
    return this.#own.logger ?? (this.#base ? this.#base.#logger : STDERR_LOGGER)
  }

  /** Whether tool calls are audited, and with their arguments. */
  get auditing(): { arguments: boolean } | undefined {
    const audit = this.#auditOption
    if (audit === undefined || audit === false) return undefined
    return { arguments: audit !== true && audit.arguments === true }
  }

  get #auditOption(): LoggingOptions['audit'] {
    return this.#own.audit ?? (this.#base ? this.#base.#auditOption : undefined)
  }

  /** Sends one audit line (JSON) with its record to the logger's `info`. A logger that throws is dropped. */
  audit(record: Readonly<Record<string, unknown>>): void {
    const logger = this.#logger
    try {
      if (logger) logger.info?.(JSON.stringify(record), record)
    } catch {
      // Auditing must not fail the call.
    }
  }

  get #onError(): LoggingOptions['onError'] {
    return this.#own.onError ?? (this.#base ? this.#base.#onError : undefined)
  }

  /** Tells the logger what the server does (a logger without `info` is not told). A throw is dropped, as for warnings. */
  info(message: string): void {
    const logger = this.#logger
    try {
      if (logger) logger.info?.(message)
    } catch {
      // As warn().
    }
  }

  /** Sends a warning to the logger. A logger that throws is not the server's failure: that is dropped. */
  warn(message: string): void {
    const logger = this.#logger
    try {
      if (logger) logger.warn?.(message)
    } catch {
      // The caller (a transport, a listener loop) must go on.
    }
  }

  /** A warning of a kind that can come in floods (a failed call): at most {@link LOG_BURST} per window reach the logger. */
  warnThrottled(kind: string, message: string): void {
    this.#throttle.pass(kind, message, (line) => this.warn(line))
  }

  /**
   * Sends an error to `onError` when there is one, else to the logger with
   * its message. An `onError` that throws hands both errors to the logger;
   * a logger that throws is dropped, so the caller goes on either way.
   */
  error(message: string, error: unknown, where: ErrorSource): void {
    const onError = this.#onError
    try {
      if (onError) return onError(error, where)
    } catch (thrown) {
      this.#logError(`${message} (and onError threw: ${thrown instanceof Error ? thrown.message : String(thrown)})`, error)
      return
    }
    // Every error reaches onError; the logger's lines are throttled per source (a flood of rejected requests is one line in ten seconds).
    this.#throttle.pass(where, message, (line) => this.#logError(line, error))
  }

  #logError(message: string, error: unknown): void {
    const logger = this.#logger
    try {
      if (logger) logger.error?.(message, error)
    } catch {
      // Nothing left to tell.
    }
  }
}

const isFunction = (v: unknown): boolean => typeof v === 'function'

/** The option rules of `logger` and `onError`, shared by every call that takes them. */
export const LOGGING_RULES: Record<keyof LoggingOptions, OptionRule> = {
  logger: {
    accepts: 'false or an object with warn, error and info functions (any may be left out)',
    test: (v) =>
      v === false ||
      (v !== null &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        ['warn', 'error', 'info'].every(
          (k) => (v as Record<string, unknown>)[k] === undefined || isFunction((v as Record<string, unknown>)[k]),
        )),
  },
  onError: { accepts: 'a function (error, where)', test: isFunction },
  audit: {
    accepts: 'a boolean or { arguments: boolean }',
    test: (v) =>
      typeof v === 'boolean' ||
      (v !== null &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        Object.keys(v).every((k) => k === 'arguments') &&
        ['boolean', 'undefined'].includes(typeof (v as { arguments?: unknown }).arguments)),
    default: false,
  },
}
