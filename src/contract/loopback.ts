/**
 * Loopback, one rule for every stage (docs/serving.md, "Transports"): what
 * `serveHttp()` and the command bind without `allowedHosts`, what the dev
 * mount treats as Vite on this machine only, and where `auth` accepts
 * `http://` URLs. Written over WHATWG URL parsing, not `node:net`, so the
 * web build and the plugin use it too.
 */

/** The hostnames of loopback as a Host header carries them (IPv6 bracketed): accepted without `allowedHosts`. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]']

/** `host` (a bind address, a Vite `server.host` or a URL's `hostname`) as URLs write it, or `undefined` when it is no hostname. */
function urlHostname(host: string): string | undefined {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  try {
    return new URL(`http://${bare.includes(':') ? `[${bare}]` : bare}/`).hostname
  } catch {
    return undefined
  }
}

/**
 * The hostname a Host header carries for `host`, normalised as URLs write
 * it: IPv6 bracketed and compressed (`0:0:0:0:0:0:0:1` → `[::1]`,
 * `::ffff:127.0.0.1` → `[::ffff:7f00:1]`), IPv4 dotted, names lower-case;
 * `host` unbracketed as given when it is no hostname at all.
 */
export function hostHeaderName(host: string): string {
  return urlHostname(host) ?? (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host)
}

/**
 * Whether `host` is this machine only: `localhost`, any address of
 * 127.0.0.0/8, `::1` in any spelling (`0:0:0:0:0:0:0:1`, `[::1]`) and
 * IPv4-mapped `::ffff:127.x.y.z`. `host` is a bind address, a Vite
 * `server.host` or a URL's `hostname`.
 */
export function isLoopbackHost(host: string): boolean {
  const name = urlHostname(host)
  return (
    name === 'localhost' ||
    (name !== undefined && /^127(?:\.\d{1,3}){3}$/.test(name)) ||
    name === '[::1]' ||
    (name !== undefined && /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(name))
  )
}

/**
 * The Host header names a server bound to `host` accepts when it checks
 * them itself: the loopback names, plus `host` when it is another loopback
 * address (`127.0.0.2`); `undefined` when `host` is not loopback (then the
 * names must be given: `allowedHosts`).
 */
export function loopbackHostNames(host: string): string[] | undefined {
  if (!isLoopbackHost(host)) return undefined
  return [...new Set([...LOOPBACK_HOSTNAMES, hostHeaderName(host)])]
}
