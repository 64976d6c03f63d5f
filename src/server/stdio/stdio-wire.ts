/**
 * The stdio wire: newline-delimited JSON-RPC on a pair of Node streams, in
 * the place of the SDK's `StdioServerTransport`, whose read buffer closes
 * the whole transport (and so ends the server with exit code 0) when one
 * line passes its limit. Here a line that is too long, not JSON or not a
 * JSON-RPC message is that message's error: a JSON-RPC error carrying its
 * `id` when one can be read, and the server goes on. A line past the
 * limit is never held: its bytes are dropped as they arrive, scanned only
 * for the message's top-level `id`. A failure of the streams themselves is
 * fatal and reported as such (`onfatal`).
 */
import { parseJSONRPCMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/server'
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server'
import { rememberSource } from '../../runtime/number-source.ts'

/** The longest line read by default, in bytes (the SDK's own limit, 10 MiB). */
export const DEFAULT_MAX_LINE_BYTES: number = STDIO_DEFAULT_MAX_BUFFER_SIZE

type Id = string | number | null

const NEWLINE = 10

/**
 * Finds the top-level `"id"` of a JSON object fed to it in pieces, without
 * keeping the object: the state of a small scanner (depth, strings, the
 * last key) and the id's own text. Clients write `id` anywhere (the SDK's
 * last, after `params`), so every byte goes through it.
 */
export class IdScanner {
  #depth = 0
  #inString = false
  #escaped = false
  /** What the string being read is: a top-level key, the id's value, or nothing kept. */
  #role: 'key' | 'id' | undefined
  #text: number[] = []
  #expectKey = false
  #key: string | undefined
  #valueOf: string | undefined
  /** The id's text when it is a number or a literal, while it is being read. */
  #bare: number[] | undefined
  #id: Id | undefined

  /** The id found, `undefined` when there is none (or not a string, number or null). */
  get id(): Id | undefined {
    this.#endBare()
    return this.#id
  }

  feed(bytes: Uint8Array): void {
    for (const b of bytes) this.#byte(b)
  }

  #byte(b: number): void {
    if (this.#inString) {
      if (this.#escaped) this.#escaped = false
      else if (b === 0x5c) this.#escaped = true
      else if (b === 0x22) {
        this.#inString = false
        this.#endString()
        return
      }
      if (this.#role !== undefined && this.#text.length < 512) this.#text.push(b)
      return
    }
    if (this.#bare !== undefined) {
      if (b === 0x2c || b === 0x7d || b === 0x5d || b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d) this.#endBare()
      else {
        if (this.#bare.length < 64) this.#bare.push(b)
        return
      }
    }
    const top = this.#depth === 1
    switch (b) {
      case 0x22: // "
        this.#inString = true
        this.#role = top && this.#expectKey ? 'key' : top && this.#valueOf === 'id' ? 'id' : undefined
        this.#text = []
        this.#expectKey = false
        if (this.#role === 'id') this.#valueOf = undefined
        return
      case 0x7b: // {
      case 0x5b: // [
        if (top) this.#valueOf = undefined
        this.#depth++
        this.#expectKey = b === 0x7b && this.#depth === 1
        return
      case 0x7d: // }
      case 0x5d: // ]
        this.#depth--
        return
      case 0x3a: // :
        if (top) {
          this.#valueOf = this.#key
          this.#key = undefined
        }
        return
      case 0x2c: // ,
        if (top) {
          this.#expectKey = true
          this.#valueOf = undefined
        }
        return
      case 0x20:
      case 0x09:
      case 0x0a:
      case 0x0d:
        return
      default:
        if (top && this.#valueOf === 'id') {
          this.#valueOf = undefined
          this.#bare = [b]
        }
    }
  }

  #decoded(): string | undefined {
    try {
      return JSON.parse(`"${Buffer.from(this.#text).toString('utf8')}"`) as string
    } catch {
      return undefined
    }
  }

  #endString(): void {
    if (this.#role === 'key') this.#key = this.#decoded()
    else if (this.#role === 'id') this.#id = this.#decoded()
    this.#role = undefined
  }

  #endBare(): void {
    if (this.#bare === undefined) return
    const text = Buffer.from(this.#bare).toString('latin1')
    this.#bare = undefined
    if (text === 'null') this.#id = null
    else if (/^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/.test(text)) this.#id = Number(text)
  }
}

/** The top-level id of a whole line, scanned as {@link IdScanner} does. */
function idOf(line: Buffer): Id {
  const scanner = new IdScanner()
  scanner.feed(line)
  return scanner.id ?? null
}

/** Streams that already have a listener swallowing late write errors. */
const swallowing = new WeakSet<NodeJS.WritableStream>()

const errorMessage = (id: Id, code: number, message: string): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, error: { code, message } }) as unknown as JSONRPCMessage

/** Options of {@link StdioWire}. */
export interface StdioWireOptions {
  /** The longest line read, in bytes. @default DEFAULT_MAX_LINE_BYTES */
  maxLineBytes?: number
  /** Told of a failure of the streams (stdin or stdout): the wire is closed after it. */
  onfatal?: (error: Error) => void
}

/** A `Transport` over newline-delimited JSON-RPC on `stdin` and `stdout`. */
export class StdioWire implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T) => void

  readonly #stdin: NodeJS.ReadableStream
  readonly #stdout: NodeJS.WritableStream
  readonly #max: number
  readonly #onfatal: ((error: Error) => void) | undefined
  /** The current line's pieces and their bytes; `undefined` while a line past the limit is dropped. */
  #parts: Buffer[] | undefined = []
  #bytes = 0
  /** The id scanner of a line past the limit, until its end. */
  #oversized: IdScanner | undefined
  #started = false
  #closed = false

  constructor(stdin: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, options: StdioWireOptions = {}) {
    this.#stdin = stdin
    this.#stdout = stdout
    this.#max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES
    this.#onfatal = options.onfatal
  }

  readonly #ondata = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk
    let start = 0
    while (start < bytes.length && !this.#closed) {
      const newline = bytes.indexOf(NEWLINE, start)
      const end = newline === -1 ? bytes.length : newline
      this.#take(bytes.subarray(start, end))
      if (newline === -1) return
      this.#endLine()
      start = newline + 1
    }
  }

  readonly #onend = (): void => {
    void this.close()
  }

  readonly #onstreamerror = (error: Error): void => {
    if (this.#closed) return
    this.#onfatal?.(error)
    this.onerror?.(error)
    void this.close()
  }

  /** Adds a piece of the current line, or scans and drops it once the line is past the limit. */
  #take(piece: Buffer): void {
    if (piece.length === 0) return
    if (this.#oversized) return this.#oversized.feed(piece)
    this.#bytes += piece.length
    if (this.#bytes <= this.#max) {
      // Copied: a stream may reuse its chunk's memory.
      this.#parts!.push(Buffer.from(piece))
      return
    }
    const scanner = new IdScanner()
    for (const part of this.#parts!) scanner.feed(part)
    scanner.feed(piece)
    this.#oversized = scanner
    this.#parts = undefined
  }

  #endLine(): void {
    const oversized = this.#oversized
    const parts = this.#parts
    const bytes = this.#bytes
    this.#parts = []
    this.#bytes = 0
    this.#oversized = undefined
    if (oversized) {
      this.#refuse(oversized.id ?? null, -32000, `message too large: a stdio line may be at most ${this.#max} bytes`)
      return
    }
    if (bytes === 0) return
    let line = parts!.length === 1 ? parts![0]! : Buffer.concat(parts!, bytes)
    if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1)
    const text = line.toString('utf8')
    if (text.trim() === '') return
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      this.#refuse(idOf(line), -32700, 'Parse error: the line is not valid JSON')
      return
    }
    let message: JSONRPCMessage
    try {
      message = parseJSONRPCMessage(parsed)
    } catch {
      const id = (parsed as { id?: unknown } | null)?.id
      this.#refuse(
        typeof id === 'string' || typeof id === 'number' ? id : null,
        -32600,
        'Invalid Request: the line is not a JSON-RPC message',
      )
      return
    }
    const args = (message as { params?: { arguments?: unknown } }).params?.arguments
    if (args !== null && typeof args === 'object') rememberSource(args, text)
    this.onmessage?.(message)
  }

  /** Answers a line that cannot be served (with its id when it has one), and tells `onerror`. */
  #refuse(id: Id, code: number, message: string): void {
    this.onerror?.(new Error(`stdio: ${message}${id === null ? '' : ` (request ${JSON.stringify(id)})`}`))
    this.send(errorMessage(id, code, message)).catch(() => {
      // The wire is closing: nothing left to answer on.
    })
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('the stdio transport is already started')
    this.#started = true
    const stdin = this.#stdin as NodeJS.ReadableStream & { readableEnded?: boolean; destroyed?: boolean }
    if (stdin.readableEnded || stdin.destroyed) setImmediate(this.#onend)
    stdin.on('data', this.#ondata)
    stdin.on('end', this.#onend)
    stdin.on('close', this.#onend)
    stdin.on('error', this.#onstreamerror)
    this.#stdout.on('error', this.#onstreamerror)
  }

  /**
   * Writes one message as a line. A message that cannot be written as JSON
   * (a result past the longest string, a value JSON cannot hold) is
   * answered, when it is a response, with a JSON-RPC error of its id: a
   * request is never left unanswered.
   */
  send(message: JSONRPCMessage): Promise<void> {
    if (this.#closed) return Promise.reject(new Error('the stdio transport is closed'))
    let line: string
    try {
      line = `${JSON.stringify(message)}\n`
    } catch (error) {
      const id = (message as { id?: unknown }).id
      const response = 'result' in message || 'error' in message
      if (!response || (typeof id !== 'string' && typeof id !== 'number')) return Promise.reject(error)
      const reason = error instanceof Error ? error.message : String(error)
      this.onerror?.(new Error(`stdio: the response to request ${JSON.stringify(id)} could not be sent: ${reason}`))
      line = `${JSON.stringify(errorMessage(id, -32603, `Internal error: the result could not be sent: ${reason}`))}\n`
    }
    return new Promise((resolve, reject) => {
      const stdout = this.#stdout
      let settled = false
      const done = (error?: Error): void => {
        if (settled) return
        settled = true
        stdout.off('error', done)
        stdout.off('drain', onDrain)
        if (error) reject(error)
        else resolve()
      }
      const onDrain = (): void => done()
      stdout.once('error', done)
      if (stdout.write(line)) done()
      else if (!settled) stdout.once('drain', onDrain)
    })
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const stdin = this.#stdin
    stdin.off('data', this.#ondata)
    stdin.off('end', this.#onend)
    stdin.off('close', this.#onend)
    stdin.off('error', this.#onstreamerror)
    // Late write failures after close are not errors any more: one listener per stream swallows them.
    this.#stdout.off('error', this.#onstreamerror)
    if (!swallowing.has(this.#stdout)) {
      swallowing.add(this.#stdout)
      this.#stdout.on('error', () => {})
    }
    if (stdin.listenerCount('data') === 0) stdin.pause()
    this.#parts = []
    this.#oversized = undefined
    this.onclose?.()
  }
}
