/**
 * What the runtime's web build (Workers, browsers) has in place of
 * node-transports.ts: no Node transports, and an error that names the
 * method and what to use instead.
 */
import { runtimeError, type RuntimeError } from '../../runtime/errors.ts'

const nodeOnly = (method: string): RuntimeError =>
  runtimeError(
    'NODE_ONLY',
    `${method}() needs Node, Bun or Deno (node:http, stdio): in this runtime, answer requests with server.fetch(request)`,
  )

/** Rejects: stdio needs Node. */
export const loadStdio = (): Promise<typeof import('../stdio/stdio.ts')> => Promise.reject(nodeOnly('serveStdio'))

/** Rejects: node:http needs Node. */
export const loadHttp = (): Promise<typeof import('../http/http.ts')> => Promise.reject(nodeOnly('serveHttp'))
