/**
 * The `cluster` and `requestStateKey` options of `serveHttp()`,
 * `nodeHandler()` and `fetchHandler()`: their rules, and the start-up check
 * that a cluster comes with a key every instance shares (docs/cluster.md).
 */
import type { AuthOptions } from '../../contract/auth-options.ts'
import type { Cluster } from './cluster.ts'
import { runtimeError } from '../../runtime/errors.ts'
import { checkOptions, type OptionRule } from '../../runtime/check-options.ts'
import { LOGGING_RULES, type LoggingOptions } from '../base/logging.ts'

/** What the instances of a server behind a load balancer share (docs/cluster.md). */
export interface ClusterOptions {
  /**
   * Shares sessions, their events, list changes and clients' answers with
   * the other instances (`postgresCluster()` of `unplugin-proto-mcp/postgres`).
   * Needs a `requestStateKey`. @default this instance's own state, in memory
   */
  cluster?: Cluster
  /** The requestState key (docs/serving.md, "requestState"), the same on every instance. @default `Server.builder(...).requestStateKey(key)`, else random */
  requestStateKey?: Uint8Array | string
}

const CLUSTER_METHODS = [
  'instanceId',
  'attach',
  'publish',
  'createSession',
  'touchSession',
  'endSession',
  'events',
  'sendResponse',
  'isAlive',
  'tasks',
]

/** The rules of the cluster options. */
export const CLUSTER_RULES: Record<keyof ClusterOptions, OptionRule> = {
  cluster: {
    accepts: `a Cluster (postgresCluster(), memoryCluster(), or an object with ${CLUSTER_METHODS.join(', ')})`,
    test: (v) => v !== null && typeof v === 'object' && CLUSTER_METHODS.every((key) => key in v),
  },
  requestStateKey: {
    accepts: 'a Uint8Array or a string of at least 32 bytes',
    test: (v) => (v instanceof Uint8Array ? v.length : typeof v === 'string' ? new TextEncoder().encode(v).length : 0) >= 32,
  },
}

/** What {@link applyClusterOptions} reads and sets of the server state (`ServerState` is one). */
export interface RequestStateKeyHolder {
  readonly hasRequestStateKey: boolean
  useRequestStateKey(key: Uint8Array | string, where: string): void
}

/**
 * Sets the given `requestStateKey` on the server, then refuses a cluster
 * without a key: a state sealed on one instance must open on every other.
 */
export function applyClusterOptions(where: string, state: RequestStateKeyHolder, options: ClusterOptions | undefined): void {
  if (options?.requestStateKey !== undefined) state.useRequestStateKey(options.requestStateKey, where)
  if (options?.cluster !== undefined && !state.hasRequestStateKey) {
    throw runtimeError(
      'BAD_OPTION',
      `${where}: a cluster needs a requestStateKey shared by every instance (a multi-round-trip call may land on any of them): ` +
        'pass requestStateKey, or give the server one with Server.builder(name).requestStateKey(key)',
    )
  }
}

/** Options of `server.fetchHandler()`. */
export interface FetchHandlerOptions extends ClusterOptions, LoggingOptions {
  /**
   * Bearer-token authorization (docs/serving.md, "Authorization"), `resource` required:
   * tokens verified, the protected-resource metadata served, as `fetch(request, { auth })`.
   */
  auth?: AuthOptions
}

/** A web-standard handler from `server.fetchHandler()`. */
export interface McpFetchHandler {
  /** `authInfo`: verified elsewhere (ignored with the `auth` option, which verifies the request's own token). */
  (request: Request, options?: { authInfo?: unknown }): Promise<Response>
  /** Resolves once its cluster listens and, with `auth`, every issuer answered (rejects when one cannot be reached). */
  ready(): Promise<void>
  /** Ends its listen streams and leaves its cluster. */
  close(): Promise<void>
}

/** The options of `fetchHandler()` (`auth` is checked whole by checkAuth, index.ts: a nested option says which key is wrong). */
export const FETCH_HANDLER_RULES: Record<string, OptionRule> = {
  ...CLUSTER_RULES,
  ...LOGGING_RULES,
  auth: { accepts: 'an object', test: () => true },
}

/** Throws for an unknown or wrong option of `fetchHandler()`. */
export function checkFetchHandlerOptions(options: unknown): void {
  checkOptions('fetchHandler()', options, FETCH_HANDLER_RULES)
}
