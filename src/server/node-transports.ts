/**
 * The Node transports, each loaded on first use: a stdio server loads no
 * HTTP stack, and a server that only answers `fetch()` loads neither. The
 * runtime's web build (for Workers and browsers) puts web-transports.ts in
 * this module's place, so its bundles never reach `node:http`.
 */

/** Loads `serveStdio()`'s transport (the SDK's stdio server). */
export const loadStdio = (): Promise<typeof import('./stdio.ts')> => import('./stdio.ts')

/** Loads `serveHttp()`'s and `nodeHandler()`'s transport (node:http and the SDK's Node adapter). */
export const loadHttp = (): Promise<typeof import('./http.ts')> => import('./http.ts')
