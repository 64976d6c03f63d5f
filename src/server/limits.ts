/** Limits of the serving transports, defined once for every stage that needs them. */
import { BlockList, isIPv4, isIPv6 } from 'node:net'

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

// 127.0.0.0/8 and ::1; BlockList also matches any spelling of ::1 and IPv4-mapped ::ffff:127.x.
const LOOPBACK = new BlockList()
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4')
LOOPBACK.addAddress('::1', 'ipv6')

/**
 * Whether binding `host` serves this machine only: `localhost`, any address
 * of 127.0.0.0/8, `::1` in any spelling (`0:0:0:0:0:0:0:1`, `[::1]`) and
 * IPv4-mapped `::ffff:127.x.y.z`.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (bare.toLowerCase() === 'localhost') return true
  if (isIPv4(bare)) return LOOPBACK.check(bare, 'ipv4')
  if (isIPv6(bare)) return LOOPBACK.check(bare, 'ipv6')
  return false
}

/** The hostname a Host header carries for `host` (IPv6 bracketed and normalised as URLs write it). */
export function hostHeaderName(host: string): string {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  try {
    return new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}/`).hostname
  } catch {
    return bare
  }
}
