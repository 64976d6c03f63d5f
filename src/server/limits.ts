/** Limits of the serving transports: defined once in the contract (src/contract/defaults.ts), named here for server/. */
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_BODY_BYTES,
} from '../contract/defaults.ts'
