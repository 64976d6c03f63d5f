/**
 * Serving Streamable HTTP on Node: a `(req, res, next?)` handler behind
 * Host/Origin guards and the body limit, over the session handler
 * (session-handler.ts), and `serveHttp()` listening with it on node:http.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  hostHeaderValidation,
  localhostHostValidation,
  localhostOriginValidation,
  originValidation,
  toNodeHandler,
} from '@modelcontextprotocol/node'
import type { AuthOptions } from '../../contract/auth-options.ts'
import { DEFAULT_HTTP_HOST, isLoopbackHost, loopbackHostNames } from '../../contract/index.ts'
import { runtimeError } from '../../runtime/errors.ts'
import { mayBeFastCall, serveFastCall } from './modern-tool-call.ts'
import { mayBeSessionCall, serveSessionCall } from './session-tool-call.ts'
import { declined, eraOf, nodeHeader, readRequest, replayed, type NextPath, type ReadBody, type ReadRequest } from './inbound.ts'
import { noteClientAddress } from '../operate/sdk-request.ts'
import { createAuthGate, type AuthGate } from './http-auth.ts'
import { createSessionHandler, type SessionOptions } from './session-handler.ts'
import { Log, type LoggingOptions } from '../base/logging.ts'
import {
  BODY_TOO_LARGE,
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_MCP_PATH,
  DEFAULT_HTTP_PORT,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_REQUEST_TIMEOUT_MS,
  MAX_BODY_BYTES,
} from '../serving/limits.ts'
import type { ServerState } from '../serving/server-state.ts'
import { jsonRpcErrorBody } from '../../contract/json-rpc-error.ts'
import { countRejected } from '../../runtime/otel.ts'
import { adoptSource, rememberSource } from '../../runtime/number-source.ts'
import { rateLimiterOf } from '../operate/rate-limit.ts'
import { rateLimited, servedHealth } from './operate-http.ts'
import { connectionLimits, type ConnectionLimitOptions } from './connection-limits.ts'

/** Options of `nodeHandler()`; `logger` and `onError` win over the server's `logging()`. */
export interface NodeHandlerOptions extends SessionOptions, LoggingOptions, ConnectionLimitOptions {
  /** Only this path is served (query ignored); others go to `next()`, or get 404 without one. @default every path */
  path?: string
  /** Host header hostnames accepted (DNS-rebinding guard). @default localhost, 127.0.0.1, [::1] */
  allowedHosts?: string[]
  /** Origin hostnames accepted from browsers. @default localhost, 127.0.0.1, [::1] */
  allowedOrigins?: string[]
  /**
   * Bearer-token authorization (docs/serving.md, "Authorization"): tokens of `issuer`
   * for `resource` are verified, the protected-resource metadata is served,
   * and `req.auth` is ignored. @default none (`req.auth`, when set, is the auth info)
   */
  auth?: AuthOptions
}

/** Options of `serveHttp()`; `logger` and `onError` win over the server's `logging()`. */
export interface ServeHttpOptions extends SessionOptions, LoggingOptions, ConnectionLimitOptions {
  /** Address to bind. A non-loopback address is an explicit choice: pass `allowedHosts`. @default '127.0.0.1' */
  host?: string
  /** Port; `0` picks a free one (see the handle's `url`). @default 3000 */
  port?: number
  /** Path of the MCP endpoint. @default '/mcp' */
  path?: string
  /**
   * Host header hostnames accepted (DNS-rebinding guard). Required for a
   * non-loopback `host` unless `allowAnyHost` is set.
   * @default localhost, 127.0.0.1, [::1] and the bound loopback address
   */
  allowedHosts?: string[]
  /**
   * Serve a non-loopback `host` without checking the Host header: any site
   * can then reach the server through DNS rebinding. An explicit opt-in
   * (the MCP guidance for local servers is to check it).
   * @default false
   */
  allowAnyHost?: boolean
  /** Time a client has to send a request's headers; then the connection is closed (`408`). @default 10000 */
  headersTimeoutMs?: number
  /** Time a client has to send a whole request, body included; then the connection is closed (`408`). Responses (SSE streams) are not cut. @default 30000 */
  requestTimeoutMs?: number
  /** Connections open at once; one more is closed as it arrives. @default 1000 */
  maxConnections?: number
  /** Origin hostnames accepted from browsers. @default localhost, 127.0.0.1, [::1] */
  allowedOrigins?: string[]
  /**
   * Bearer-token authorization (docs/serving.md, "Authorization"): tokens of `issuer`
   * for `resource` (by default this server's URL on loopback) are verified
   * and the protected-resource metadata is served; `serveHttp()` resolves
   * once every issuer's discovery document answered.
   */
  auth?: AuthOptions
}

/** A running HTTP server. */
export interface HttpHandle {
  /** The endpoint's URL, with the real port (`http://127.0.0.1:41234/mcp`). */
  readonly url: string
  /** Initialize-era sessions open now. */
  readonly sessionCount: number
  /** Stops accepting connections, ends open ones and sessions, and resolves when closed. */
  close(): Promise<void>
}

/** A Node/connect handler serving MCP; `next` is called for paths it does not serve. */
export interface McpNodeHandler {
  (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void): void
  /** Initialize-era sessions open now. */
  readonly sessionCount: number
  /** Closes every session and stream this handler opened. */
  close(): Promise<void>
}

/** The HTTP methods of Streamable HTTP; every other one gets 405. */
const SERVED_METHODS: readonly string[] = ['GET', 'POST', 'DELETE']

type Guard = (req: IncomingMessage, res: ServerResponse) => boolean

/** Sends a web `Response` that is short and whole (the gate's answers). */
async function send(res: ServerResponse, response: Response): Promise<void> {
  const body = response.body === null ? undefined : Buffer.from(await response.arrayBuffer())
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[name] = value
  })
  res.writeHead(response.status, headers)
  res.end(body)
}

function reply(res: ServerResponse, status: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(jsonRpcErrorBody(-32000, message)))
}

/**
 * A body sent in chunks (no declared length), read up to the limit: `req`
 * with the body ready to be read again (the SDK's adapter reads it), or
 * `false` once it was answered `413` with the same text as a declared
 * length past the limit (the adapter has its own wording).
 */
async function readChunked(req: IncomingMessage, res: ServerResponse): Promise<IncomingMessage | false> {
  const chunks: Buffer[] = []
  let bytes = 0
  for await (const chunk of req as AsyncIterable<Buffer | string>) {
    const piece = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
    bytes += piece.length
    if (bytes > MAX_BODY_BYTES) {
      countRejected('size')
      res.setHeader('connection', 'close')
      reply(res, 413, BODY_TOO_LARGE)
      return false
    }
    chunks.push(piece)
  }
  // The same request (method, headers, auth) with its body read again from memory.
  const replay = Object.create(req) as IncomingMessage
  Object.defineProperty(replay, Symbol.asyncIterator, {
    value: async function* () {
      yield* chunks
    },
  })
  return replay
}

/** Whether the headers given to `writeHead` (an object or a raw list) declare an SSE stream. */
function isEventStream(headers: unknown): boolean {
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() === 'content-type') return String(headers[i + 1]).includes('text/event-stream')
    }
    return false
  }
  if (headers === null || typeof headers !== 'object') return false
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'content-type') return String(value).includes('text/event-stream')
  }
  return false
}

/**
 * Sends an SSE response's headers as soon as they are written: the SDK's
 * Node adapter only writes them, and Node holds them until the first body
 * chunk, so a GET stream with nothing to say yet would look unanswered.
 */
function flushEventStreams(res: ServerResponse): void {
  const writeHead = res.writeHead
  res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const result = (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args)
    const headers = args.findLast((arg) => typeof arg === 'object' && arg !== null)
    if (isEventStream(headers) || String(this.getHeader('content-type') ?? '').includes('text/event-stream')) this.flushHeaders()
    return result
  } as ServerResponse['writeHead']
}

/** The path of a request URL, without its query. */
const pathOf = (url: string): string => {
  const q = url.indexOf('?')
  return q === -1 ? url : url.slice(0, q)
}

/**
 * Creates the Node handler of `state`. `hostCheck`: `false` skips the Host
 * guard (a non-loopback bind with `allowAnyHost`), a string also accepts
 * that loopback address (`127.0.0.2`) next to the localhost names. `gate`:
 * the auth gate `serveHttp()` made (else one of `options.auth`).
 */
export function createNodeHandler(
  state: ServerState,
  options: NodeHandlerOptions = {},
  hostCheck: boolean | string = true,
  log = new Log(options, state.log),
  gate: AuthGate | undefined = options.auth && createAuthGate(state, options.auth, log),
): McpNodeHandler {
  const guards: Guard[] = []
  if (options.allowedHosts) guards.push(hostHeaderValidation(options.allowedHosts))
  else if (typeof hostCheck === 'string') guards.push(hostHeaderValidation(loopbackHostNames(hostCheck) ?? []))
  else if (hostCheck) guards.push(localhostHostValidation())
  guards.push(options.allowedOrigins ? originValidation(options.allowedOrigins) : localhostOriginValidation())
  const http = createSessionHandler(state, options, log)
  const limits = connectionLimits(options, log, state.info.name)
  const adapterOptions = {
    maxRequestBodySize: MAX_BODY_BYTES,
    onerror: (error: Error) => {
      // A client that went away mid-request (a cut upload) is not a server error: thousands would flood the log.
      if ((error as { code?: unknown }).code === 'ECONNRESET' || error.message === 'aborted') return
      log.error(`${state.info.name}: ${error.message}`, error, 'http')
    },
  }
  /**
   * The SDK path of a request (through the SDK's Node adapter): `read`, a body the edge read whole and parsed, goes as
   * the adapter's parsed body with its era (inbound.ts, `declined`: the session handler does not classify it again),
   * the request the adapter makes of it taking the body's text (kept with the message) for exact 64-bit numbers, as
   * readBody gives it. The adapter's web request carries the client's address for the request's span.
   */
  const toSdk = (req: IncomingMessage, res: ServerResponse, read?: ReadBody): Promise<void> => {
    if (read !== undefined) rememberSource(read.message, read.text)
    const adapter = toNodeHandler(
      {
        fetch: (request, options) => {
          noteClientAddress(request, req.socket?.remoteAddress)
          if (read === undefined) return http.fetch(request, options)
          adoptSource(request, options?.parsedBody)
          return http.fetch(request, read.era === undefined ? options : { ...options, era: read.era })
        },
      },
      adapterOptions,
    )
    return adapter(req, res, read?.message)
  }
  const serve = (req: IncomingMessage, res: ServerResponse): Promise<void> => toSdk(req, res)
  /** How a fast path hands on a request it does not answer (inbound.ts, `declined`). */
  const onward =
    (res: ServerResponse): NextPath =>
    (req, read) =>
      toSdk(req, res, read)
  /**
   * A POST body the edge read, its era decided once (inbound.ts): a plain 2026-07-28 tools/call to the fast path
   * (modern-tool-call.ts), a call or notification of an initialize-era session to its transport (session-tool-call.ts),
   * the rest to the SDK path with the body and the era.
   */
  const byEra = (req: IncomingMessage, res: ServerResponse, body: ReadRequest): Promise<void> => {
    const next = onward(res)
    if (body.message === undefined) return declined(req, body, next)
    const era = eraOf('POST', nodeHeader(req), body.message)
    if (era.kind === 'modern' && mayBeFastCall(req)) return serveFastCall(state, req, res, body, era, next, log)
    if (era.kind === 'legacy' && mayBeSessionCall(req)) return serveSessionCall(http.sessionCall, req, res, body, era, next)
    return declined(req, body, next, era)
  }
  const failed = (res: ServerResponse) => (error: Error) => {
    log.error(`${state.info.name}: ${error.message}`, error, 'http')
    if (!res.headersSent) reply(res, 500, 'internal error')
    else res.end()
  }
  /**
   * Past the connection limits and the rate limits, a request goes one way: a body in chunks is read here first, so that
   * past the limit it gets the same 413 as a declared length (and goes to the SDK); the body of a POST a fast path may
   * take (by its headers) is read once and its era decided once (`byEra`); the rest goes to the SDK as it came.
   */
  const pass = (req: IncomingMessage, res: ServerResponse): void => {
    // An auth middleware's `req.auth` getter may throw: a 500 and an error for the logger, never an uncaught exception.
    let admitted: boolean
    try {
      admitted = limits.caller(req, res)
    } catch (error) {
      return failed(res)(error as Error)
    }
    if (!admitted) return
    if (rateLimiterOf(state) !== undefined) {
      rateLimited(state, log, req, res).then((read) => read !== false && dispatch(req, res, read), failed(res))
      return
    }
    dispatch(req, res)
  }
  /** Serves `req`; `read`: its body, when the rate limits read it already. */
  const dispatch = (req: IncomingMessage, res: ServerResponse, read?: ReadRequest): void => {
    const chunked = req.headers['content-length'] === undefined && req.headers['transfer-encoding'] !== undefined
    const fast = mayBeFastCall(req) || mayBeSessionCall(req)
    const served = chunked
      ? readChunked(read === undefined ? req : replayed(req, read.chunks), res).then((again) =>
          again === false ? undefined : serve(again, res),
        )
      : fast
        ? (read === undefined ? readRequest(req) : Promise.resolve(read)).then((body) => byEra(req, res, body))
        : serve(read === undefined ? req : replayed(req, read.chunks), res)
    served.catch((error: Error) => {
      // A client that went away mid-body (a cut upload) is not a server error, as for the adapter above.
      if ((error as { code?: unknown }).code === 'ECONNRESET' || error.message === 'aborted') return void res.destroy()
      failed(res)(error)
    })
  }
  const handler = ((req, res, next) => {
    const path = pathOf(req.url ?? '/')
    // The metadata is public (CORS *): answered before the endpoint's guards.
    if (gate?.isMetadataPath(path)) return void send(res, gate.metadata(req.method ?? 'GET')).catch(failed(res))
    if (options.path !== undefined && path !== options.path) {
      if (next) return next()
      return reply(res, 404, `not found: the MCP endpoint is ${options.path}`)
    }
    for (const guard of guards) if (!guard(req, res)) return
    // Streamable HTTP has these three; anything else (TRACE, which a web
    // `Request` cannot even hold) is refused before it reaches the SDK.
    if (!SERVED_METHODS.includes(req.method ?? '')) {
      res.setHeader('allow', SERVED_METHODS.join(', '))
      return reply(res, 405, `method not allowed: ${req.method ?? ''} (the MCP endpoint answers ${SERVED_METHODS.join(', ')})`)
    }
    if (Number(req.headers['content-length']) > MAX_BODY_BYTES) {
      countRejected('size')
      res.setHeader('connection', 'close')
      return reply(res, 413, BODY_TOO_LARGE)
    }
    if (!limits.connection(req, res)) return
    // A POST's stream answers soon (its result); a GET stream may say nothing for long, so its headers go at once.
    if (req.method === 'GET') flushEventStreams(res)
    if (gate === undefined) return pass(req, res)
    // Checked before the body is read and before the fast path or the SDK sees the request; the token goes no further than here.
    gate.authenticate(req.headers.authorization).then((verdict) => {
      if (verdict instanceof Response) return (countRejected('auth'), send(res, verdict))
      ;(req as IncomingMessage & { auth?: unknown }).auth = verdict
      delete req.headers.authorization
      pass(req, res)
    }, failed(res))
  }) as McpNodeHandler
  Object.defineProperty(handler, 'sessionCount', { get: () => http.sessionCount })
  handler.close = () => http.close()
  readiness.set(handler, http.ready())
  return handler
}

/** Per handler, when its cluster listens (serveHttp() resolves only then). */
const readiness = new WeakMap<McpNodeHandler, Promise<void>>()

/** Serves `state` over Streamable HTTP (options checked by `Server.serveHttp`); resolves once listening. */
export async function serveOverHttp(state: ServerState, options: ServeHttpOptions = {}): Promise<HttpHandle> {
  const {
    host = DEFAULT_HTTP_HOST,
    port = DEFAULT_HTTP_PORT,
    path = DEFAULT_MCP_PATH,
    allowAnyHost = false,
    headersTimeoutMs = DEFAULT_HEADERS_TIMEOUT_MS,
    requestTimeoutMs = DEFAULT_REQUEST_TIMEOUT_MS,
    maxConnections = DEFAULT_MAX_CONNECTIONS,
    ...handlerOptions
  } = options
  const loopback = isLoopbackHost(host)
  const log = new Log(options, state.log)
  if (!loopback && !options.allowedHosts) {
    if (!allowAnyHost) {
      throw runtimeError(
        'BAD_OPTION',
        `serveHttp(): refusing to serve non-loopback address ${host} without allowedHosts: ` +
          'any web page could reach it through DNS rebinding; pass allowedHosts (the names clients use), or allowAnyHost: true to accept any Host',
      )
    }
    log.warn(
      `${state.info.name}: serving on non-loopback address ${host} with allowAnyHost: the Host header is not checked (DNS rebinding)`,
    )
  }
  let url = ''
  const gate = handlerOptions.auth && createAuthGate(state, handlerOptions.auth, log, () => url)
  const handler = createNodeHandler(state, { ...handlerOptions, path }, loopback ? host : false, log, gate)
  const server = createServer(
    {
      // Node requires headersTimeout <= requestTimeout.
      headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
      requestTimeout: requestTimeoutMs,
      // Node checks both timeouts this often (30 s by default, far past a short timeout).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 4))),
    },
    // The health paths first: probes reach them without the Host guard or auth (operate-http.ts).
    (req, res) => servedHealth(state, req, res, options.cluster) || handler(req, res),
  )
  server.maxConnections = maxConnections
  // Node hands CONNECT to this event, not to the handler; without a listener it drops the socket unanswered.
  server.on('connect', (_req: IncomingMessage, socket: import('node:stream').Duplex) => {
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nallow: ${SERVED_METHODS.join(', ')}\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`)
  })
  try {
    // A cluster that cannot be reached is a start-up error, like a port in use.
    await readiness.get(handler)
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, host, () => {
        server.off('error', reject)
        resolve()
      })
    })
  } catch (error) {
    // A port in use, say: the handler must not keep listening to the server's changes.
    await handler.close()
    throw error
  }
  const address = server.address() as AddressInfo
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  url = `http://${shownHost}:${address.port}${path}`
  try {
    await gate?.ready()
  } catch (error) {
    await handler.close()
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
    throw runtimeError('AUTH_UNAVAILABLE', `serveHttp(): ${(error as Error).message}`, error)
  }
  log.info(`${state.info.name}: serving on ${url}`)
  return {
    url,
    get sessionCount() {
      return handler.sessionCount
    },
    close: async () => {
      await handler.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
