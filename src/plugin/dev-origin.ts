/**
 * Which requests the dev mount (`/mcp`) and the `/__mcp/` page accept: the
 * request's path, the Host names (loopback by the contract's one rule, or
 * what Vite binds and allows), a browser's Origin, and the `dev.auth`
 * resource URL on the dev server.
 */
import { networkInterfaces } from 'node:os'
import type { ViteDevServer } from 'vite'
import type { AuthOptions } from '../contract/auth-options.ts'
import { isLoopbackHost, LOOPBACK_HOSTNAMES, loopbackHostNames } from '../contract/index.ts'

/** The path part of a request URL. */
export function pathOf(url: string | undefined): string {
  const raw = url ?? '/'
  const q = raw.search(/[?#]/)
  return q === -1 ? raw : raw.slice(0, q)
}

/**
 * The hostnames the mount accepts in Host and Origin headers. Vite on
 * loopback (`server.host` unset, `false` or a loopback address, the rule
 * `serveHttp()` uses): `undefined` for the handler's localhost-only guards,
 * or those names and the address for another loopback address
 * (`127.0.0.2`). Vite beyond loopback: loopback, this machine's addresses,
 * the host Vite binds and Vite's `server.allowedHosts` (`.example.com` as
 * `example.com`).
 */
export function devAllowedHosts(server: ViteDevServer): string[] | undefined {
  const host = server.config.server.host
  if (host === undefined || host === false) return undefined
  if (typeof host === 'string' && isLoopbackHost(host)) {
    const names = loopbackHostNames(host)!
    return names.length === LOOPBACK_HOSTNAMES.length ? undefined : names
  }
  const bracket = (address: string): string => (address.includes(':') ? `[${address}]` : address)
  const names = new Set(LOOPBACK_HOSTNAMES)
  for (const list of Object.values(networkInterfaces())) for (const address of list ?? []) names.add(bracket(address.address))
  if (typeof host === 'string') names.add(bracket(host))
  const allowed = server.config.server.allowedHosts
  if (Array.isArray(allowed)) for (const name of allowed) names.add(name.replace(/^\./, ''))
  return [...names]
}

/** The `dev.auth` option with `resource` defaulting to the endpoint's URL on the dev server (its first local URL). */
export function devAuth(server: ViteDevServer, auth: AuthOptions, path: string): AuthOptions {
  const local = server.resolvedUrls?.local[0]
  return auth.resource !== undefined || local === undefined ? auth : { ...auth, resource: new URL(path, local).href }
}

/**
 * Whether a browser `origin` is the dev server's own: the origin of the
 * request's Host (already checked by the Host guard), or one of the URLs
 * Vite listens on. Another port of localhost is another site.
 */
export function isOwnOrigin(server: ViteDevServer, origin: string, host: string | undefined): boolean {
  let parsed: URL
  try {
    parsed = new URL(origin)
  } catch {
    return false
  }
  const scheme = server.config.server.https ? 'https:' : 'http:'
  if (parsed.protocol !== scheme) return false
  if (host !== undefined && parsed.host.toLowerCase() === host.toLowerCase()) return true
  const urls = server.resolvedUrls
  return [...(urls?.local ?? []), ...(urls?.network ?? [])].some((url) => {
    try {
      return new URL(url).origin === parsed.origin
    } catch {
      return false
    }
  })
}
