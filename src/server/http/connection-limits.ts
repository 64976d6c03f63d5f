/**
 * The work one connection and one caller may hold (docs/guide/serving.md,
 * "Over HTTP"): HTTP/1.1 lets a client pipeline requests in one write and
 * never read the answers, and Node runs every request it parses, holding
 * each answer until the one before it is sent. So, before the fast paths
 * or the SDK see a request:
 * - past `maxRequestsPerConnection` requests in flight on its connection,
 *   or (once its token is verified) `maxRequestsPerCaller` of its caller,
 *   it is answered `429` at once (no tool runs);
 * - a connection holding more than `maxUnsentBytes` of answers its client
 *   has not read is closed, and so is one whose client has read nothing
 *   for `writeTimeoutMs` while answers wait: its requests are cancelled
 *   like those of a client that went away.
 * Both the answers being written and those queued behind them count.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { jsonRpcErrorBody } from '../../contract/json-rpc-error.ts'
import { callerKey } from '../operate/operate.ts'
import {
  DEFAULT_MAX_REQUESTS_PER_CALLER,
  DEFAULT_MAX_REQUESTS_PER_CONNECTION,
  DEFAULT_MAX_UNSENT_BYTES,
  DEFAULT_WRITE_TIMEOUT_MS,
} from '../serving/limits.ts'
import type { Log } from '../base/logging.ts'

/** The options of {@link connectionLimits}. */
export interface ConnectionLimitOptions {
  /** Requests one connection may have in flight (pipelined HTTP/1.1); one more is answered `429`. @default 4 */
  maxRequestsPerConnection?: number
  /**
   * Requests one caller may have in flight; one more is answered `429`. The caller is the verified principal
   * when the server checks tokens (counted after the check), else the session, else the client's address. @default 64
   */
  maxRequestsPerCaller?: number
  /** Bytes of answers a connection may hold that its client has not read; past them it is closed. @default 16777216 (16 MiB) */
  maxUnsentBytes?: number
  /** Milliseconds a connection may hold unsent answers while its client reads nothing; then it is closed. @default 30000 */
  writeTimeoutMs?: number
}

/** What is known of one connection. */
interface Connection {
  /** Its requests not answered yet (their responses not finished nor closed). */
  readonly open: Set<ServerResponse>
  /** Armed while answers wait unsent: closes the connection when its client reads nothing for `writeTimeoutMs`. */
  stall?: ReturnType<typeof setTimeout>
}

/**
 * The guards of a Node handler, each `false` when it answered (or closed)
 * the request itself; counts free themselves as responses end.
 * `connection(req, res)` runs first, before anything reads the request;
 * `caller(req, res)` once the caller is known (after the auth gate, which
 * sets `req.auth`): a token is never a caller before it is verified.
 */
export interface ConnectionGuards {
  connection(req: IncomingMessage, res: ServerResponse): boolean
  caller(req: IncomingMessage, res: ServerResponse): boolean
}

/** {@link ConnectionGuards} of `options`. */
export function connectionLimits(options: ConnectionLimitOptions, log: Log, name: string): ConnectionGuards {
  const perConnection = options.maxRequestsPerConnection ?? DEFAULT_MAX_REQUESTS_PER_CONNECTION
  const perCaller = options.maxRequestsPerCaller ?? DEFAULT_MAX_REQUESTS_PER_CALLER
  const maxUnsent = options.maxUnsentBytes ?? DEFAULT_MAX_UNSENT_BYTES
  const writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS
  const connections = new WeakMap<Socket, Connection>()
  const callers = new Map<string, number>()

  /** Answers not yet read on `socket`: what the socket holds, and what waits in the responses queued behind. */
  const unsent = (socket: Socket, connection: Connection): number => {
    let bytes = socket.writableLength
    for (const res of connection.open) bytes += Math.max(0, res.writableLength - (res.socket === socket ? socket.writableLength : 0))
    return bytes
  }
  const cut = (socket: Socket, why: string): void => {
    log.warnThrottled('unread answers', `${name}: ${why}: the connection was closed`)
    socket.destroy()
  }
  /** Bytes of `socket` that left it (the client, or its kernel, took them). */
  const flushed = (socket: Socket): number => socket.bytesWritten - socket.writableLength
  /** After each write: too much unread is cut; answers waiting arm the stall timer, which cuts when nothing left the socket meanwhile. */
  const check = (socket: Socket, connection: Connection): void => {
    if (socket.destroyed) return
    const bytes = unsent(socket, connection)
    if (bytes > maxUnsent) return cut(socket, `a client left ${bytes} bytes of answers unread, more than maxUnsentBytes (${maxUnsent})`)
    if (bytes === 0 || connection.stall !== undefined) return
    const before = flushed(socket)
    connection.stall = setTimeout(() => {
      connection.stall = undefined
      // Answers queued behind a call still running are not the client's doing: only bytes the socket cannot pass count.
      if (socket.writableLength > 0 && flushed(socket) === before) {
        return cut(socket, `a client read no answer for ${writeTimeoutMs} ms (writeTimeoutMs)`)
      }
      check(socket, connection)
    }, writeTimeoutMs)
    connection.stall.unref?.()
  }
  const watchWrites = (res: ServerResponse, socket: Socket, connection: Connection): void => {
    const write = res.write
    const end = res.end
    res.write = function (this: ServerResponse, ...args: unknown[]) {
      const result = (write as (...a: unknown[]) => boolean).apply(this, args)
      check(socket, connection)
      return result
    } as ServerResponse['write']
    res.end = function (this: ServerResponse, ...args: unknown[]) {
      const result = (end as (...a: unknown[]) => ServerResponse).apply(this, args)
      check(socket, connection)
      return result
    } as ServerResponse['end']
  }
  const refuse = (res: ServerResponse, message: string): false => {
    log.warnThrottled('requests in flight', `${name}: ${message}: answered 429`)
    const body = JSON.stringify(jsonRpcErrorBody(-32000, message))
    res.writeHead(429, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'retry-after': '1' })
    res.end(body)
    return false
  }

  const connection = (req: IncomingMessage, res: ServerResponse): boolean => {
    const socket = req.socket
    let connection = connections.get(socket)
    if (connection === undefined) {
      connections.set(socket, (connection = { open: new Set() }))
      socket.once('close', () => clearTimeout(connection!.stall))
    }
    if (connection.open.size >= perConnection) {
      return refuse(
        res,
        `too many requests in flight on this connection: ${perConnection} (maxRequestsPerConnection); wait for their answers`,
      )
    }
    connection.open.add(res)
    const open = connection
    res.once('close', () => {
      open.open.delete(res)
      check(socket, open)
    })
    watchWrites(res, socket, connection)
    return true
  }
  const caller = (req: IncomingMessage, res: ServerResponse): boolean => {
    // The verified principal (the auth gate's `req.auth`, or an auth middleware's), else the session, else the address.
    const session = req.headers['mcp-session-id']
    const key = callerKey((req as { auth?: unknown }).auth, typeof session === 'string' ? session : undefined, req.socket?.remoteAddress)
    const held = callers.get(key) ?? 0
    if (held >= perCaller) {
      return refuse(res, `too many requests in flight for this caller: ${perCaller} (maxRequestsPerCaller); wait for their answers`)
    }
    callers.set(key, held + 1)
    res.once('close', () => {
      const left = (callers.get(key) ?? 1) - 1
      if (left > 0) callers.set(key, left)
      else callers.delete(key)
    })
    return true
  }
  return { connection, caller }
}
