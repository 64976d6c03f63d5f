/**
 * HTTP on the raw wire: requests written byte for byte on a TCP socket (any
 * method, any Host, a body sent slowly or never).
 */
import { connect, type Socket } from 'node:net'

/** A parsed response. */
export interface RawResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Options of {@link rawRequest}. */
export interface RawRequestOptions {
  method?: string
  headers?: Record<string, string>
  body?: string
  /** Milliseconds to wait for the whole response. @default 10000 */
  timeoutMs?: number
}

/** Parses a complete HTTP/1.1 response (chunked bodies decoded). */
export function parseResponse(raw: string): RawResponse {
  const end = raw.indexOf('\r\n\r\n')
  const head = end === -1 ? raw : raw.slice(0, end)
  let body = end === -1 ? '' : raw.slice(end + 4)
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  if (headers['transfer-encoding'] === 'chunked') {
    let out = ''
    let rest = body
    for (;;) {
      const lineEnd = rest.indexOf('\r\n')
      if (lineEnd === -1) break
      const size = parseInt(rest.slice(0, lineEnd), 16)
      if (!(size > 0)) break
      out += rest.slice(lineEnd + 2, lineEnd + 2 + size)
      rest = rest.slice(lineEnd + 2 + size + 2)
    }
    body = out
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body }
}

/** Whether `raw` holds a whole response: its head, and all of a sized or chunked body. */
function isComplete(raw: string): boolean {
  const end = raw.indexOf('\r\n\r\n')
  if (end === -1) return false
  const head = raw.slice(0, end).toLowerCase()
  const body = raw.slice(end + 4)
  if (/^http\/1\.1 (?:204|304)/.test(head)) return true
  const length = /\r\ncontent-length: *(\d+)/.exec(head)
  if (length) return Buffer.byteLength(body) >= Number(length[1])
  if (/\r\ntransfer-encoding: *chunked/.test(head)) return body === '0\r\n\r\n' || body.endsWith('\r\n0\r\n\r\n')
  return false
}

/** Opens a socket to the host and port of `url`. */
export function openSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) }, () => resolve(socket))
    socket.once('error', reject)
  })
}

/** Sends one request with `connection: close` and resolves with the response once the server closes. */
export async function rawRequest(url: string, options: RawRequestOptions = {}): Promise<RawResponse> {
  const target = new URL(url)
  const socket = await openSocket(url)
  const body = options.body ?? ''
  const headers: Record<string, string> = {
    host: target.host,
    connection: 'close',
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    ...(body === '' ? {} : { 'content-length': String(Buffer.byteLength(body)) }),
    ...options.headers,
  }
  const head =
    `${options.method ?? 'POST'} ${target.pathname}${target.search} HTTP/1.1\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n'
  return new Promise((resolve, reject) => {
    let raw = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no complete response in ${options.timeoutMs ?? 10_000} ms: ${JSON.stringify(raw.slice(0, 200))}`))
    }, options.timeoutMs ?? 10_000)
    let done = false
    const finish = (): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve(parseResponse(raw))
    }
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      raw += chunk
      // Complete before the server closes (an SSE response asks for keep-alive whatever we send).
      if (isComplete(raw)) finish()
    })
    socket.on('error', () => {})
    socket.on('close', finish)
    socket.write(head + body)
  })
}

/** A JSON-RPC initialize request body (initialize era). */
export const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
})
