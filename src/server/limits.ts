/** Limits of the serving transports, defined once for every stage that needs them. */

/** Largest HTTP request body served, in bytes (4 MiB); larger bodies get `413`. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** The one text of a `413`, whichever way the body came (a declared length, chunks, `fetch()`). */
export const BODY_TOO_LARGE = `request body too large: the limit is ${MAX_BODY_BYTES} bytes`

/** The text of a POST body that is not JSON (`400`, JSON-RPC `-32700`). */
export const BODY_NOT_JSON = 'Parse error: the request body is not valid JSON'

/** Default `headersTimeoutMs` of `serveHttp()`: a request's headers must be in within 10 s. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000

/** Default `requestTimeoutMs` of `serveHttp()`: a whole request, body included, must be in within 30 s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000

/** Default `maxConnections` of `serveHttp()`. */
export const DEFAULT_MAX_CONNECTIONS = 1000

/** Default `sessionIdleMs` of HTTP serving: an initialize-era session without requests (and no open GET stream) is closed after 10 min. */
export const DEFAULT_SESSION_IDLE_MS = 10 * 60_000

/** Default `port` and `path` of `serveHttp()`. */
export const DEFAULT_HTTP_PORT = 3000
export const DEFAULT_HTTP_PATH = '/mcp'

/** Default `ttlSeconds` of `requestStateKey()`: a sealed requestState stays valid 10 min. */
export const DEFAULT_REQUEST_STATE_TTL_S = 600

/** Default `maxSessions` of HTTP serving: initialize-era sessions open at once. */
export const DEFAULT_MAX_SESSIONS = 1000

/**
 * Default `maxStreamsPerCaller` of HTTP serving: held SSE streams (a
 * session's GET stream, a 2026-07-28 `subscriptions/listen`) one caller may
 * have open at once, a tenth of `maxConnections`, so one caller cannot hold
 * every connection.
 */
export const DEFAULT_MAX_STREAMS_PER_CALLER = 100
