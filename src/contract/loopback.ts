/**
 * The names of this machine that HTTP serving trusts by default
 * (docs/serving.md §2): the Host/Origin hostnames accepted without
 * `allowedHosts`, and the address bound by default.
 */

/** The hostnames of loopback as a Host header carries them (IPv6 bracketed). */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]']

/** The address `serveHttp()` binds unless told otherwise. */
export const DEFAULT_HTTP_HOST = '127.0.0.1'

/** Whether `host` is one of the loopback names as written (`localhost`, `127.0.0.1`, `::1` or `[::1]`). */
export function isLoopbackName(host: string): boolean {
  return LOOPBACK_HOSTNAMES.includes(host) || LOOPBACK_HOSTNAMES.includes(`[${host}]`)
}
