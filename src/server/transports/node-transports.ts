/**
 * The Node transports. stdio is loaded with the server: it is how MCP
 * clients start a server, once per session, and a module loaded with the
 * others costs a start less than one imported later (the SDK's stdio
 * transport is small). The HTTP stack (node:http and the SDK's Node
 * adapter) loads on first use, so a stdio server never loads it. The
 * runtime's web build (for Workers and browsers) puts web-transports.ts in
 * this module's place, so its bundles never reach Node's streams or `node:http`.
 */
import * as stdio from '../stdio/stdio.ts'

/** `serveStdio()`'s transport (the SDK's stdio server). */
export const loadStdio = (): Promise<typeof import('../stdio/stdio.ts')> => Promise.resolve(stdio)

/** Loads `serveHttp()`'s and `nodeHandler()`'s transport (node:http and the SDK's Node adapter). */
export const loadHttp = (): Promise<typeof import('../http/http.ts')> => import('../http/http.ts')
