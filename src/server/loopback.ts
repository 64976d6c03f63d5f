/**
 * Which hosts are this machine only. Node's `node:net` decides, so this
 * lives apart from the limits: only the Node HTTP transport needs it, and
 * the runtime's web build must not reach `node:net`.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net'

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
