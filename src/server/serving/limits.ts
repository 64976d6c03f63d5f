/** Limits of the serving transports: defined once in the contract (src/contract/defaults.ts), named here for server/ with their texts. */
import { MAX_BODY_BYTES } from '../../contract/defaults.ts'

export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_STREAMS_PER_CALLER,
  DEFAULT_REQUEST_STATE_TTL_S,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SESSION_IDLE_MS,
  DEFAULT_HTTP_PORT,
  DEFAULT_MCP_PATH,
  MAX_BODY_BYTES,
} from '../../contract/defaults.ts'

/** The one text of a `413`, whichever way the body came (a declared length, chunks, `fetch()`). */
export const BODY_TOO_LARGE = `request body too large: the limit is ${MAX_BODY_BYTES} bytes`

/** The text of a POST body that is not JSON (`400`, JSON-RPC `-32700`). */
export const BODY_NOT_JSON = 'Parse error: the request body is not valid JSON'

/** Default `maxRequestsPerConnection` of `serveHttp()`/`nodeHandler()`: requests one connection may have in flight (pipelined). */
export const DEFAULT_MAX_REQUESTS_PER_CONNECTION = 4
/** Default `maxRequestsPerCaller`: requests one caller (a principal; callers without auth are one) may have in flight. */
export const DEFAULT_MAX_REQUESTS_PER_CALLER = 64
/** Default `maxUnsentBytes`: response bytes a connection may hold unsent (its client not reading) before it is closed. */
export const DEFAULT_MAX_UNSENT_BYTES = 16 * 1024 * 1024
/** Default `writeTimeoutMs`: how long a connection may hold unsent response bytes while its client reads none. */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000
