/**
 * Every default the stages share, defined once: the plugin, the command,
 * the codegen and the server read them from here, and the docs' option
 * tables name these values (docs/serving.md, "Limits").
 */
import type { Profile } from './tool-spec.ts'

/** The profile when none is given: schemas every major AI client accepts (docs/profiles.md). */
export const DEFAULT_PROFILE: Profile = 'portable'

/** `serverInfo.version` when none is given (a `?mcp` module, `Server.builder()`, the command). */
export const DEFAULT_SERVER_VERSION = '0.0.0'

/** The MCP endpoint's path: `serveHttp()`'s `path` and the dev mount's `dev.path`. */
export const DEFAULT_MCP_PATH = '/mcp'

/** The address `serveHttp()` binds unless told otherwise. */
export const DEFAULT_HTTP_HOST = '127.0.0.1'

/** The port `serveHttp()` listens on unless told otherwise. */
export const DEFAULT_HTTP_PORT = 3000

/** How long the dev mount waits for its `dev.server` module to load (`dev.loadTimeoutMs`). */
export const DEFAULT_LOAD_TIMEOUT_MS = 10_000

/** Seconds a sealed requestState stays valid (`requestStateKey(key, { ttlSeconds })`). */
export const DEFAULT_REQUEST_STATE_TTL_S = 600

/** Idle time after which an initialize-era HTTP session is closed and freed (`sessionIdleMs`; 10 min). */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000

/** Largest HTTP request body served, in bytes (4 MiB); larger bodies get `413`. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** Default `headersTimeoutMs` of `serveHttp()`: a request's headers must be in within 10 s. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000

/** Default `requestTimeoutMs` of `serveHttp()`: a whole request, body included, must be in within 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

/** Default `maxConnections` of `serveHttp()`. */
export const DEFAULT_MAX_CONNECTIONS = 1000

/** Default `maxSessions` of HTTP serving: initialize-era sessions open at once. */
export const DEFAULT_MAX_SESSIONS = 1000

/**
 * Default `maxStreamsPerCaller` of HTTP serving: held SSE streams (a
 * session's GET stream, a 2026-07-28 `subscriptions/listen`) one caller may
 * have open at once, a tenth of `maxConnections`, so one caller cannot hold
 * every connection.
 */
export const DEFAULT_MAX_STREAMS_PER_CALLER = 100

/** Events an HTTP session keeps for resumption before the oldest are dropped (`maxSessionEvents`). */
export const DEFAULT_MAX_EVENTS = 1000

/** Bytes of events an HTTP session keeps (`maxSessionEventBytes`; 8 MiB). */
export const DEFAULT_MAX_SESSION_EVENT_BYTES = 8 * 1024 * 1024

/** Bytes of events all sessions of a server keep (`maxEventBytes`; 64 MiB). */
export const DEFAULT_MAX_EVENT_BYTES = 64 * 1024 * 1024

/** Default `deadlineMs` of a gRPC call (`grpc()`, `--deadline`). */
export const DEFAULT_DEADLINE_MS = 30_000

/**
 * The MCP request headers backends forward as gRPC metadata unless told
 * otherwise. Behind the `auth` option the `Authorization` header never
 * reaches a backend (the server verified the token, and the MCP spec
 * forbids passing it through): the backend gets the verified principal.
 */
export const DEFAULT_FORWARDED_HEADERS: readonly string[] = ['authorization', 'traceparent']
