/**
 * Where a server's messages go (docs/serving.md §9): a `logger` for its
 * warnings and errors, an `onError` callback for the errors themselves
 * (the MCP SDK's `onerror`, with where it happened). By default both are
 * one line on stderr, as before any option; nothing else prints.
 */
import type { OptionRule } from '../runtime/check-options.ts'
import { writeStderr } from '../runtime/report.ts'

/** Receives a server's messages; a method left out drops those messages. */
export interface Logger {
  /** A warning (a call to a hidden tool, a server open to any Host). */
  warn?(message: string): void
  /** An error of a transport or a listener; `error` is what was thrown. */
  error?(message: string, error?: unknown): void
}

/** Where an error passed to `onError` happened. */
export type ErrorSource = 'stdio' | 'http' | 'fetch' | 'list_changed' | 'resources/updated'

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
}

/** One line on stderr (or the console where there is none) per message: the default. */
const STDERR_LOGGER: Logger = {
  warn: (message) => writeStderr(`${message}\n`),
  error: (message) => writeStderr(`${message}\n`),
}

/** Only the logging options of a transport's options. */
const pick = ({ logger, onError }: LoggingOptions): LoggingOptions => ({
  ...(logger === undefined ? {} : { logger }),
  ...(onError === undefined ? {} : { onError }),
})

/**
 * The messages of one server or one transport. A transport's own options
 * win over the server's (`base`), option by option, read when a message is
 * sent, so a later `logging()` call reaches transports already serving.
 */
export class Log {
  #own: LoggingOptions
  readonly #base: Log | undefined

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

  get #onError(): LoggingOptions['onError'] {
    return this.#own.onError ?? (this.#base ? this.#base.#onError : undefined)
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

  /**
   * Sends an error to `onError` when there is one, else to the logger with
   * its message. An `onError` that throws hands both errors to the logger;
   * a logger that throws is dropped, so the caller goes on either way.
   */
  error(message: string, error: unknown, where: ErrorSource): void {
    const onError = this.#onError
    const logger = this.#logger
    try {
      if (onError) return onError(error, where)
    } catch (thrown) {
      try {
        if (logger) logger.error?.(`${message} (and onError threw: ${thrown instanceof Error ? thrown.message : String(thrown)})`, error)
      } catch {
        // Nothing left to tell.
      }
      return
    }
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
    accepts: 'false or an object with warn and error functions (either may be left out)',
    test: (v) =>
      v === false ||
      (v !== null &&
        typeof v === 'object' &&
        !Array.isArray(v) &&
        ['warn', 'error'].every((k) => (v as Record<string, unknown>)[k] === undefined || isFunction((v as Record<string, unknown>)[k]))),
  },
  onError: { accepts: 'a function (error, where)', test: isFunction },
}
