/**
 * The option rules of `serveHttp()` and `nodeHandler()`, apart from the
 * Node transports themselves (loaded on first use), so that `nodeHandler()`
 * checks its options where they are given.
 */
import { authOptionsProblem } from '../../contract/auth-options.ts'
import { DEFAULT_HTTP_HOST } from '../../contract/defaults.ts'
import { isLoopbackHost } from '../../contract/loopback.ts'
import { runtimeError } from '../../runtime/errors.ts'
import { booleanRule, checkOptions, integerRule, pathRule, stringRule, stringsRule, type OptionRule } from '../../runtime/check-options.ts'
import type { NodeHandlerOptions, ServeHttpOptions } from './http.ts'
import { CLUSTER_RULES } from '../cluster/cluster-options.ts'
import type { SessionOptions } from './session-handler.ts'
import { DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_EVENTS, DEFAULT_MAX_SESSION_EVENT_BYTES } from '../../contract/defaults.ts'
import {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MCP_PATH,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_REQUESTS_PER_CALLER,
  DEFAULT_MAX_REQUESTS_PER_CONNECTION,
  DEFAULT_MAX_STREAMS_PER_CALLER,
  DEFAULT_MAX_UNSENT_BYTES,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_WRITE_TIMEOUT_MS,
} from '../serving/limits.ts'
import { LOGGING_RULES } from '../base/logging.ts'

const SESSION_RULES: Record<keyof SessionOptions, OptionRule> = {
  sessionIdleMs: { ...integerRule(1), default: DEFAULT_SESSION_IDLE_MS },
  maxSessions: { ...integerRule(1), default: DEFAULT_MAX_SESSIONS },
  maxSessionEvents: { ...integerRule(1), default: DEFAULT_MAX_EVENTS },
  maxSessionEventBytes: { ...integerRule(1), default: DEFAULT_MAX_SESSION_EVENT_BYTES },
  maxEventBytes: { ...integerRule(1), default: DEFAULT_MAX_EVENT_BYTES },
  maxStreamsPerCaller: { ...integerRule(1), default: DEFAULT_MAX_STREAMS_PER_CALLER },
  ...CLUSTER_RULES,
}

/** The options of `nodeHandler()`, with their defaults (the docs' tables show them: test/option-docs.test.ts). */
export const HANDLER_RULES: Record<keyof NodeHandlerOptions, OptionRule> = {
  ...SESSION_RULES,
  path: pathRule,
  allowedHosts: stringsRule,
  allowedOrigins: stringsRule,
  // Checked whole by checkAuth (a nested option says which key is wrong).
  auth: { accepts: 'an object', test: () => true },
  maxRequestsPerConnection: { ...integerRule(1), default: DEFAULT_MAX_REQUESTS_PER_CONNECTION },
  maxRequestsPerCaller: { ...integerRule(1), default: DEFAULT_MAX_REQUESTS_PER_CALLER },
  maxUnsentBytes: { ...integerRule(1024), default: DEFAULT_MAX_UNSENT_BYTES },
  writeTimeoutMs: { ...integerRule(1), default: DEFAULT_WRITE_TIMEOUT_MS },
  ...LOGGING_RULES,
}

/** The options of `serveHttp()`, with their defaults. */
export const SERVE_RULES: Record<keyof ServeHttpOptions, OptionRule> = {
  ...HANDLER_RULES,
  path: { ...pathRule, default: DEFAULT_MCP_PATH },
  host: { ...stringRule, default: DEFAULT_HTTP_HOST },
  port: { ...integerRule(0, 65535), default: DEFAULT_HTTP_PORT },
  allowAnyHost: { ...booleanRule, default: false },
  headersTimeoutMs: { ...integerRule(1), default: DEFAULT_HEADERS_TIMEOUT_MS },
  requestTimeoutMs: { ...integerRule(1), default: DEFAULT_REQUEST_TIMEOUT_MS },
  maxConnections: { ...integerRule(1), default: DEFAULT_MAX_CONNECTIONS },
}

/**
 * Throws for a wrong `auth` option of `where`; `needResource`: the
 * transport cannot default `auth.resource` to its own URL.
 */
export function checkAuth(where: string, auth: unknown, needResource: boolean): void {
  if (auth === undefined) return
  const problem = authOptionsProblem(auth, needResource)
  if (problem !== undefined) throw runtimeError('BAD_OPTION', `${where}: ${problem}`)
}

/** Throws for an unknown or wrong option of `nodeHandler()`. */
export function checkNodeHandlerOptions(options: unknown): void {
  checkOptions('nodeHandler()', options, HANDLER_RULES)
  checkAuth('nodeHandler()', (options as NodeHandlerOptions | undefined)?.auth, true)
}

/** Throws for an unknown or wrong option of `serveHttp()`. */
export function checkServeHttpOptions(options: unknown): void {
  checkOptions('serveHttp()', options, SERVE_RULES)
  const given = options as ServeHttpOptions | undefined
  // Off loopback, the URL clients use is not the bound address: it must be said (node:net stays out of this check: the web build has it).
  const host = given?.host ?? DEFAULT_HTTP_HOST
  checkAuth('serveHttp()', given?.auth, !isLoopbackHost(host))
}
