/**
 * Serving Streamable HTTP on node:http with the SDK's `createMcpHandler`
 * (both protocol eras; 2025-era clients are served statelessly), behind
 * Host/Origin guards and a body limit.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createMcpHandler } from '@modelcontextprotocol/server'
import {
  hostHeaderValidation, localhostHostValidation, localhostOriginValidation, originValidation, toNodeHandler,
} from '@modelcontextprotocol/node'
import { LOOPBACK_HOSTS, MAX_BODY_BYTES } from './limits.ts'
import { sdkServerFactory, type ServingCore } from './sdk-server.ts'

/** Options of `serveHttp()`. */
export interface ServeHttpOptions {
  /** Address to bind. A non-loopback address is an explicit choice: pass `allowedHosts`. @default '127.0.0.1' */
  host?: string
  /** Port; `0` picks a free one (see the handle's `url`). @default 3000 */
  port?: number
  /** Path of the MCP endpoint. @default '/mcp' */
  path?: string
  /** Host header hostnames accepted (DNS-rebinding guard). @default localhost, 127.0.0.1, [::1] */
  allowedHosts?: string[]
  /** Origin hostnames accepted from browsers. @default localhost, 127.0.0.1, [::1] */
  allowedOrigins?: string[]
}

/** A running HTTP server. */
export interface HttpHandle {
  /** The endpoint's URL, with the real port (`http://127.0.0.1:41234/mcp`). */
  readonly url: string
  /** Stops accepting connections, ends open ones, and resolves when closed. */
  close(): Promise<void>
}

type Guard = (req: IncomingMessage, res: ServerResponse) => boolean

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

/** Serves `core` over Streamable HTTP; resolves once listening. */
export async function serveCoreHttp(core: ServingCore, options: ServeHttpOptions = {}): Promise<HttpHandle> {
  const { host = '127.0.0.1', port = 3000, path = '/mcp' } = options
  const loopback = LOOPBACK_HOSTS.includes(host)
  if (!loopback && !options.allowedHosts) {
    process.stderr.write(
      `${core.info.name}: serving on non-loopback address ${host} without allowedHosts: the Host header is not checked (DNS rebinding); pass allowedHosts to restrict it\n`,
    )
  }
  const guards: Guard[] = []
  if (options.allowedHosts) guards.push(hostHeaderValidation(options.allowedHosts))
  else if (loopback) guards.push(localhostHostValidation())
  guards.push(options.allowedOrigins ? originValidation(options.allowedOrigins) : localhostOriginValidation())

  const mcp = createMcpHandler(sdkServerFactory(core), {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error) => process.stderr.write(`${core.info.name}: ${error.message}\n`),
  })
  const handle = toNodeHandler(mcp, { maxRequestBodySize: MAX_BODY_BYTES })

  const server = createServer((req, res) => {
    for (const guard of guards) if (!guard(req, res)) return
    const url = req.url ?? '/'
    const q = url.indexOf('?')
    if ((q === -1 ? url : url.slice(0, q)) !== path) return reply(res, 404, `not found: the MCP endpoint is ${path}`)
    const length = Number(req.headers['content-length'])
    if (length > MAX_BODY_BYTES) {
      res.setHeader('connection', 'close')
      return reply(res, 413, `request body too large: the limit is ${MAX_BODY_BYTES} bytes`)
    }
    handle(req, res).catch((error: Error) => {
      process.stderr.write(`${core.info.name}: ${error.message}\n`)
      if (!res.headersSent) reply(res, 500, 'internal error')
      else res.end()
    })
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shownHost}:${address.port}${path}`,
    close: async () => {
      await mcp.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
