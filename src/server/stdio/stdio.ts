/**
 * Serving over stdio with the SDK's `serveStdio`, which answers both
 * protocol eras (an `initialize` opening and a 2026-07-28 `server/discover`).
 */
import { serveStdio as sdkServeStdio } from '@modelcontextprotocol/server/stdio'
import type { JSONRPCMessage, MessageExtraInfo, Transport, TransportSendOptions } from '@modelcontextprotocol/server'
import type { Server as SdkServer } from '@modelcontextprotocol/server'
import { checkOptions, integerRule, type OptionRule } from '../../runtime/check-options.ts'
import { Log, LOGGING_RULES, type LoggingOptions } from '../base/logging.ts'
import { notifyInstance, sdkServerFactory, type ServeStats } from '../serving/sdk-server.ts'
import type { ServerState } from '../serving/server-state.ts'
import { DEFAULT_MAX_LINE_BYTES, StdioWire } from './stdio-wire.ts'

/** What `serveStdio()` resolves with once stdin closes. */
export interface ServeReport {
  /** JSON-RPC requests received. */
  requests: number
  /** `tools/call` requests among them. */
  toolCalls: number
  /** Tool errors plus JSON-RPC error responses sent. */
  errors: number
  /** Time from start to close, in milliseconds. */
  durationMs: number
}

/** Options of `serveStdio()`; `logger` and `onError` win over the server's `logging()`. */
export interface ServeStdioOptions extends LoggingOptions {
  /** Input stream. @default process.stdin */
  stdin?: NodeJS.ReadableStream
  /** Output stream (JSON-RPC only: messages go to the logger, stderr by default). @default process.stdout */
  stdout?: NodeJS.WritableStream
  /**
   * The longest message line read, in bytes. A longer line is answered with
   * a JSON-RPC error (carrying its id when it has one) and skipped, without
   * being held in memory; the server goes on.
   * @default 10485760 (10 MiB)
   */
  maxLineBytes?: number
}

const isStream = (v: unknown): boolean => v !== null && typeof v === 'object' && typeof (v as { on?: unknown }).on === 'function'
/** The options of `serveStdio()`. */
export const STDIO_RULES: Record<keyof ServeStdioOptions, OptionRule> = {
  stdin: { accepts: 'a readable stream', test: (v) => isStream(v) && typeof (v as { read?: unknown }).read === 'function' },
  stdout: { accepts: 'a writable stream', test: (v) => isStream(v) && typeof (v as { write?: unknown }).write === 'function' },
  maxLineBytes: { ...integerRule(1024), default: DEFAULT_MAX_LINE_BYTES },
  ...LOGGING_RULES,
}

/** A transport that counts what passes through another one and tells when it closes. */
class CountingTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void
  setProtocolVersion?: (version: string) => void

  constructor(
    private readonly inner: Transport,
    private readonly stats: ServeStats,
    onclosed: () => void,
  ) {
    inner.onmessage = (message, extra) => {
      if ('method' in message && 'id' in message) stats.requests++
      this.onmessage?.(message, extra)
    }
    inner.onerror = (error) => this.onerror?.(error)
    inner.onclose = () => {
      this.onclose?.()
      onclosed()
    }
    if (inner.setProtocolVersion) this.setProtocolVersion = (v) => inner.setProtocolVersion?.(v)
  }

  start(): Promise<void> {
    return this.inner.start()
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('error' in message) this.stats.errors++
    return this.inner.send(message, options)
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}

/**
 * Serves `state` on stdio until stdin closes; resolves with a report, or
 * rejects with the error when stdin or stdout fails (the process should
 * then exit non-zero). Its messages go to the logger (docs/serving.md, "Logging").
 * List changes reach the client: unsolicited in the initialize era, on its
 * `subscriptions/listen` streams in 2026-07-28.
 */
export function serveOverStdio(state: ServerState, options: ServeStdioOptions = {}): Promise<ServeReport> {
  try {
    checkOptions('serveStdio()', options, STDIO_RULES)
  } catch (error) {
    return Promise.reject(error)
  }
  // Date, not performance: reading `performance` loads perf_hooks, a millisecond or two of every start.
  const started = Date.now()
  const stats: ServeStats = { requests: 0, toolCalls: 0, errors: 0 }
  const log = new Log(options, state.log)
  // The connection's SDK instances (a discarded discovery probe leaves the set when it closes).
  const live = new Set<SdkServer>()
  const off = state.onChange((kind) => {
    for (const server of live) notifyInstance(server, kind)
  }, log)
  return new Promise((resolve, reject) => {
    let fatal: Error | undefined
    const wire = new StdioWire(options.stdin ?? process.stdin, options.stdout ?? process.stdout, {
      ...(options.maxLineBytes === undefined ? {} : { maxLineBytes: options.maxLineBytes }),
      onfatal: (error) => {
        fatal = error
      },
    })
    const transport = new CountingTransport(wire, stats, () => {
      off()
      if (fatal) reject(fatal)
      else resolve({ ...stats, durationMs: Date.now() - started })
    })
    sdkServeStdio(sdkServerFactory(state, { stats, live, log }), {
      transport,
      onerror: (error) => log.error(`${state.info.name}: ${error.message}`, error, 'stdio'),
    })
  })
}
