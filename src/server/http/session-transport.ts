/**
 * The transport of one initialize-era session over Streamable HTTP
 * (docs/serving.md, "Transports"), ours rather than the SDK's sessionful transport:
 * the initialize era is frozen (2026-07-28 has no sessions), so nothing
 * here waits on the SDK's private state. It implements the SDK's
 * `Transport` (the session's SDK instance connects to it) and keeps:
 *
 * - its streams: each POST with requests gets one, the session's GET its
 *   standalone one; a request's messages go to its stream, a stream ends
 *   once every request on it is answered;
 * - a priming event first on each stream and every message stored in the
 *   session's event store with its id, so a GET with `Last-Event-ID`
 *   replays a stream (and, while its requests still run, takes it over);
 * - keep-alive comments on open streams;
 * - backpressure: a message written to a stream its client is slow to read
 *   resolves its `send` only once the stream drained (a Node response's
 *   `drain`, a web body's pull);
 * - the session fast path's stream (`serveCall`: the SSE written straight
 *   onto a Node response), a cancelled request's stream ended once the
 *   SDK aborted it, and a fleet's message routing (`routing`, fleet.ts).
 *
 * What it answers on the web path (`handleRequest`: status codes, texts) is
 * what the SDK's `WebStandardStreamableHTTPServerTransport` answers.
 */
import type { ServerResponse } from 'node:http'
import {
  DEFAULT_NEGOTIATED_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  isInitializeRequest,
  isJsonContentType,
  parseJSONRPCMessage,
  readRequestBody,
  type AuthInfo,
  type EventStore,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server'
import { STANDALONE_STREAM, type MessageRouting, type SessionStreams } from '../cluster/fleet.ts'
import { postFailed, writePostFailed } from './post-failure.ts'

/** Messages one POST may carry as a batch (the SDK's bound). */
const MAX_BATCH = 100
/** Time between keep-alive comments on an open stream (the SDK's default). */
const KEEP_ALIVE_MS = 15_000
/** Bytes a web stream buffers unread before a `send` on it waits. */
const HIGH_WATER_BYTES = 64 * 1024

/** The response headers of an SSE stream. */
const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
}

/** Where a stream's events go: a web body (the SDK path) or a Node response (the fast path). */
interface Sink {
  /** Writes SSE text; `false` once the stream is closed. */
  write(text: string): boolean
  /** Ends the stream (once; later calls do nothing). */
  end(): void
  /** While the client is behind: resolves once it has read what was written (or the stream ended). */
  drained(): Promise<void> | undefined
}

interface OpenStream {
  readonly sink: Sink
  /** Events a resumed stream already replayed (sent again by the request still running: skipped). */
  readonly replayed?: ReadonlySet<string>
  keepAlive?: ReturnType<typeof setInterval>
}

const encoder = new TextEncoder()

/** A stream as a web `ReadableStream` (the body of the `Response` handleRequest returns). */
class WebSink implements Sink {
  readonly body: ReadableStream<Uint8Array>
  #controller!: ReadableStreamDefaultController<Uint8Array>
  #closed = false
  #waiting: Array<() => void> = []

  constructor(cancelled: () => void) {
    this.body = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller
        },
        pull: () => this.#wake(),
        cancel: () => {
          this.#closed = true
          this.#wake()
          cancelled()
        },
      },
      { highWaterMark: HIGH_WATER_BYTES, size: (chunk) => chunk.byteLength },
    )
  }

  write(text: string): boolean {
    if (this.#closed) return false
    try {
      this.#controller.enqueue(encoder.encode(text))
      return true
    } catch {
      this.#closed = true
      return false
    }
  }

  end(): void {
    if (this.#closed) return
    this.#closed = true
    this.#wake()
    try {
      this.#controller.close()
    } catch {
      // Cancelled by the client meanwhile.
    }
  }

  drained(): Promise<void> | undefined {
    if (this.#closed || (this.#controller.desiredSize ?? 1) > 0) return undefined
    return new Promise((resolve) => this.#waiting.push(resolve))
  }

  #wake(): void {
    for (const resolve of this.#waiting.splice(0)) resolve()
  }
}

/**
 * A stream written straight onto a Node response (the fast path). What is
 * written before {@link flush} is held (up to 64 KiB), so a response complete by then goes
 * out in one write with its length; after it, each write goes out as it
 * comes, and a `false` from `res.write` makes the next `send` wait for
 * `drain`.
 */
class NodeSink implements Sink {
  #held: string[] | undefined = []
  #heldChars = 0
  #closed = false
  #blocked: Promise<void> | undefined

  constructor(
    private readonly res: ServerResponse,
    private readonly headers: Record<string, string>,
    /** Called once, when the stream ends or the client goes away first (`gone`). */
    private readonly ended: (gone: boolean) => void,
  ) {
    res.once('close', () => {
      if (this.#closed) return
      this.#closed = true
      ended(true)
    })
  }

  get closed(): boolean {
    return this.#closed
  }

  write(text: string): boolean {
    if (this.#closed) return false
    if (this.#held === undefined) {
      if (!this.res.write(text)) this.#block()
      return true
    }
    this.#held.push(text)
    this.#heldChars += text.length
    // More than a stream buffers: it goes out now, and the writer waits for it like for any other.
    if (this.#heldChars > HIGH_WATER_BYTES) this.flush()
    return true
  }

  /** Sends the headers and what is held; from now on writes go out as they come. */
  flush(): void {
    if (this.#held === undefined || this.#closed) return
    this.res.writeHead(200, this.headers)
    this.res.flushHeaders()
    const text = this.#held.join('')
    this.#held = undefined
    if (text !== '' && !this.res.write(text)) this.#block()
  }

  end(): void {
    if (this.#closed) return
    this.#closed = true
    this.ended(false)
    if (this.#held === undefined) return void this.res.end()
    const body = this.#held.join('')
    this.res.writeHead(200, { ...this.headers, 'content-length': String(Buffer.byteLength(body)) })
    this.res.end(body)
  }

  /** The stream failed before it was flushed (the store unreachable for its priming event): a 503, as the web path answers. */
  fail(): void {
    if (this.#closed) return
    this.#closed = true
    this.ended(false)
    if (this.#held !== undefined) writePostFailed(this.res)
    else this.res.end()
  }

  drained(): Promise<void> | undefined {
    return this.#closed ? undefined : this.#blocked
  }

  #block(): void {
    this.#blocked ??= new Promise((resolve) => {
      const done = (): void => {
        this.res.off('drain', done)
        this.res.off('close', done)
        this.#blocked = undefined
        resolve()
      }
      this.res.on('drain', done)
      this.res.on('close', done)
    })
  }
}

/** The options of a {@link SessionTransport}. */
export interface SessionTransportOptions {
  /** The session's id, given to the client at its `initialize`. */
  sessionId: string
  /** Where every event is stored with its id, for resumption. */
  eventStore: EventStore
  /** Bytes of a POST body read at most (413 past it). */
  maxRequestBodySize: number
  /** Awaited at the `initialize` (a rejection fails it). */
  onsessioninitialized?: (sessionId: string) => unknown
  /** Awaited at a DELETE, before it is answered. */
  onsessionclosed?: (sessionId: string) => unknown
  /** @default 15000 */
  keepAliveMs?: number
}

/** What the fast path hands {@link SessionTransport.serveCall}. */
export interface FastCall {
  readonly message: JSONRPCMessage & { id: RequestId }
  readonly res: ServerResponse
  /** What the handler reads as `ctx.http.req`, and its caller. */
  readonly request: Request
  readonly authInfo?: AuthInfo
  /** The protocol version the request names (the session's own: the caller checked). */
  readonly version: string
  /** Once, when the stream ends; `gone`: the client went away first. */
  ended(gone: boolean): void
}

const isResponse = (message: JSONRPCMessage): boolean => 'id' in message && !('method' in message)
const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } =>
  'method' in message && 'id' in message

/** The transport of one initialize-era session (see the file's comment). */
export class SessionTransport implements Transport, SessionStreams {
  sessionId?: string
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void
  /** In a fleet: ids of requests to the client made the fleet's, responses for another instance handed to it (fleet.ts). */
  routing?: MessageRouting

  readonly #options: SessionTransportOptions
  readonly #store: EventStore
  readonly #streams = new Map<string, OpenStream>()
  readonly #requests = new Map<RequestId, string>()
  readonly #answered = new Set<RequestId>()
  #versions: readonly string[] = SUPPORTED_PROTOCOL_VERSIONS
  #started = false
  #initialized = false
  #closed = false

  constructor(options: SessionTransportOptions) {
    this.#options = options
    this.#store = options.eventStore
  }

  /** Whether the session ended (DELETE, idle, the server closing). */
  get closed(): boolean {
    return this.#closed
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('Transport already started')
    this.#started = true
  }

  /** The protocol versions the connected SDK instance serves (it calls this at `connect`). */
  setSupportedProtocolVersions(versions: string[]): void {
    this.#versions = versions
  }

  /** Whether a client of `version` takes a priming event (empty SSE data): a supported version from 2025-11-25 on. */
  supportsEmptySSEData(version: string): boolean {
    return this.#versions.includes(version) && version >= '2025-11-25'
  }

  // SessionStreams: what a fleet reads of the session's streams (fleet.ts).

  runs(streamId: string): boolean {
    for (const stream of this.#requests.values()) if (stream === streamId) return true
    return false
  }

  holdsStandaloneStream(): boolean {
    return this.#streams.has(STANDALONE_STREAM)
  }

  requestsOf(streamId: string): RequestId[] {
    const ids: RequestId[] = []
    for (const [id, stream] of this.#requests) if (stream === streamId) ids.push(id)
    return ids
  }

  /** Answers a GET, POST or DELETE of the session (the SDK path). */
  async handleRequest(request: Request, options?: { parsedBody?: unknown; authInfo?: AuthInfo }): Promise<Response> {
    if (this.#closed) return this.#refuse(404, -32001, 'Session not found', false)
    switch (request.method) {
      case 'POST':
        return this.#post(request, options)
      case 'GET':
        return this.#get(request)
      case 'DELETE':
        return this.#delete(request)
      default: {
        this.onerror?.(new Error('Method not allowed.'))
        const refused = Response.json(
          { jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null },
          { status: 405 },
        )
        refused.headers.set('allow', 'GET, POST, DELETE')
        return refused
      }
    }
  }

  /**
   * The fast path of a `tools/call` in this session: its SSE stream written
   * onto `call.res` (priming event, the messages of the call, its answer),
   * registered as the web path registers its own. `false` when this
   * transport would not serve it so (closed, not initialized, a version
   * without priming events): the caller hands it to {@link handleRequest}.
   */
  serveCall(call: FastCall): boolean {
    if (this.#closed || !this.#initialized || !this.supportsEmptySSEData(call.version)) return false
    const { message } = call
    const streamId = globalThis.crypto.randomUUID()
    const sink: NodeSink = new NodeSink(call.res, { ...SSE_HEADERS, 'mcp-session-id': this.sessionId! }, (gone) => {
      if (gone) this.#drop(streamId, sink)
      call.ended(gone)
    })
    this.#streams.set(streamId, { sink })
    this.#requests.set(message.id, streamId)
    this.#prime(sink, streamId, call.version).then(
      () => {
        this.#deliver(message, {
          ...(call.authInfo === undefined ? {} : { authInfo: call.authInfo }),
          request: call.request,
          closeSSEStream: () => this.closeSSEStream(message.id),
          closeStandaloneSSEStream: () => this.closeStandaloneSSEStream(),
        })
        // Still open after the turn the handler started in: the headers and what is held go now, then as it comes.
        if (sink.closed) return
        setImmediate(() => {
          sink.flush()
          if (this.#streams.get(streamId)?.sink === sink) this.#keepAlive(streamId)
        })
      },
      (error: unknown) => {
        // As the web path answers a failure of its POST handling (the store unreachable for the priming event, say).
        this.onerror?.(error as Error)
        this.#requests.delete(message.id)
        this.#drop(streamId, sink)
        sink.fail()
      },
    )
    return true
  }

  /** A notification or a response POSTed in the session, delivered as a POST without requests delivers it (answered 202 by the caller). */
  receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    this.#deliver(message, extra)
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const out = this.routing ? this.routing.outgoing(message) : message
    const response = isResponse(out)
    const requestId = response ? (out as { id: RequestId }).id : options?.relatedRequestId
    if (requestId === undefined) {
      if (response) throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request')
      const eventId = await this.#store.storeEvent(STANDALONE_STREAM, out)
      await this.#write(STANDALONE_STREAM, out, eventId)?.drained()
      return
    }
    const streamId = this.#requests.get(requestId)
    if (streamId === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`)
    const eventId = await this.#store.storeEvent(streamId, out)
    const sink = this.#write(streamId, out, eventId)
    if (!response) return sink?.drained()
    this.#answered.add(requestId)
    const related = this.requestsOf(streamId)
    if (!related.every((id) => this.#answered.has(id))) return
    // Every request of the stream answered: it ends (a client that dropped it resumes from the store).
    this.#end(streamId)
    for (const id of related) {
      this.#answered.delete(id)
      this.#requests.delete(id)
    }
  }

  /** Ends the stream of `requestId` (the client reconnects with `Last-Event-ID`). */
  closeSSEStream(requestId: RequestId): void {
    const streamId = this.#requests.get(requestId)
    if (streamId !== undefined) this.#end(streamId)
  }

  /** Ends the session's GET stream. */
  closeStandaloneSSEStream(): void {
    this.#end(STANDALONE_STREAM)
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const streamId of [...this.#streams.keys()]) this.#end(streamId)
    this.#answered.clear()
    this.onclose?.()
  }

  /** Hands a message to the SDK instance (through the fleet's routing); a cancel ends its request's stream once the SDK aborted it. */
  #deliver(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    const routed = this.routing ? this.routing.incoming(message) : message
    if (routed === undefined) return
    this.onmessage?.(routed, extra)
    if (!('method' in routed) || routed.method !== 'notifications/cancelled') return
    const requestId = (routed.params as { requestId?: unknown } | undefined)?.requestId
    if (typeof requestId !== 'string' && typeof requestId !== 'number') return
    // The SDK sends no answer to a cancelled request, so its stream would stay open for the session's life.
    // After the abort has run, so a handler that answers anyway is not cut mid-write.
    setImmediate(() => this.closeSSEStream(requestId))
  }

  /** Writes `message` on its stream (if open here and not replayed already); the stream's sink, for its backpressure. */
  #write(streamId: string, message: JSONRPCMessage, eventId: string): Sink | undefined {
    const stream = this.#streams.get(streamId)
    if (stream === undefined || stream.replayed?.has(eventId)) return undefined
    stream.sink.write(sse(eventId, message))
    return stream.sink
  }

  /** The priming event: its id is where a client resumes a stream that said nothing yet. */
  async #prime(sink: Sink, streamId: string, version: string): Promise<void> {
    if (!this.supportsEmptySSEData(version)) return
    const eventId = await this.#store.storeEvent(streamId, {} as JSONRPCMessage)
    sink.write(`id: ${eventId}\ndata: \n\n`)
  }

  #keepAlive(streamId: string): void {
    const stream = this.#streams.get(streamId)
    const every = this.#options.keepAliveMs ?? KEEP_ALIVE_MS
    if (stream === undefined || this.#closed || !Number.isFinite(every) || every < 1) return
    stream.keepAlive = setInterval(() => {
      if (!stream.sink.write(': keepalive\n\n')) clearInterval(stream.keepAlive)
    }, every)
    stream.keepAlive.unref?.()
  }

  /** Ends a stream and forgets it. */
  #end(streamId: string): void {
    const stream = this.#streams.get(streamId)
    if (stream === undefined) return
    clearInterval(stream.keepAlive)
    this.#streams.delete(streamId)
    stream.sink.end()
  }

  /** Forgets a stream its client went away from, if it is still the one registered. */
  #drop(streamId: string, sink: Sink): void {
    const stream = this.#streams.get(streamId)
    if (stream?.sink !== sink) return
    clearInterval(stream.keepAlive)
    this.#streams.delete(streamId)
  }

  #register(streamId: string, stream: OpenStream): void {
    this.#streams.set(streamId, stream)
  }

  /** A JSON-RPC error answer, told to `onerror` as the SDK's transport tells it. */
  #refuse(status: number, code: number, message: string, report = true): Response {
    if (report) this.onerror?.(new Error(message))
    return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status })
  }

  #headers(): Record<string, string> {
    return this.sessionId === undefined ? { ...SSE_HEADERS } : { ...SSE_HEADERS, 'mcp-session-id': this.sessionId }
  }

  /** The session header's check: this session, initialized. */
  #checkSession(request: Request): Response | undefined {
    if (!this.#initialized) return this.#refuse(400, -32000, 'Bad Request: Server not initialized')
    const id = request.headers.get('mcp-session-id')
    if (!id) return this.#refuse(400, -32000, 'Bad Request: Mcp-Session-Id header is required')
    if (id !== this.sessionId) return this.#refuse(404, -32001, 'Session not found')
    return undefined
  }

  /** `MCP-Protocol-Version`, when sent, must be one served (without it: the negotiated one). */
  #checkVersion(request: Request): Response | undefined {
    const version = request.headers.get('mcp-protocol-version')
    if (version === null || this.#versions.includes(version)) return undefined
    return this.#refuse(
      400,
      -32000,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.#versions.join(', ')})`,
    )
  }

  async #post(request: Request, options?: { parsedBody?: unknown; authInfo?: AuthInfo }): Promise<Response> {
    try {
      const accept = request.headers.get('accept')
      if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
        return this.#refuse(406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream')
      }
      if (!isJsonContentType(request.headers.get('content-type'))) {
        return this.#refuse(415, -32000, 'Unsupported Media Type: Content-Type must be application/json')
      }
      let raw = options?.parsedBody
      if (raw === undefined) {
        const max = this.#options.maxRequestBodySize
        try {
          const body = await readRequestBody(request, max)
          if (body.tooLarge) return this.#refuse(413, -32000, `Payload Too Large: Request body must not exceed ${max} bytes`)
          raw = JSON.parse(body.text)
        } catch {
          return this.#refuse(400, -32700, 'Parse error: Invalid JSON')
        }
      }
      if (Array.isArray(raw) && raw.length > MAX_BATCH) {
        return this.#refuse(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH} messages`)
      }
      let messages: JSONRPCMessage[]
      try {
        messages = (Array.isArray(raw) ? raw : [raw]).map((message) => parseJSONRPCMessage(message))
      } catch {
        return this.#refuse(400, -32700, 'Parse error: Invalid JSON-RPC message')
      }
      if (this.#closed) return this.#refuse(404, -32001, 'Session not found', false)
      const initialize = messages.find((message) => isInitializeRequest(message))
      if (initialize !== undefined) {
        if (this.#initialized) return this.#refuse(400, -32600, 'Invalid Request: Server already initialized')
        if (messages.length > 1) return this.#refuse(400, -32600, 'Invalid Request: Only one initialization request is allowed')
        this.sessionId = this.#options.sessionId
        this.#initialized = true
        await this.#options.onsessioninitialized?.(this.sessionId)
      } else {
        const refused = this.#checkSession(request) ?? this.#checkVersion(request)
        if (refused) return refused
      }
      if (this.#closed) return this.#refuse(404, -32001, 'Session not found', false)
      const extra = { authInfo: options?.authInfo, request }
      const requests = messages.filter(isRequest)
      if (requests.length === 0) {
        for (const message of messages) this.#deliver(message, extra)
        return new Response(null, { status: 202 })
      }
      const version =
        (initialize?.params as { protocolVersion?: string } | undefined)?.protocolVersion ??
        request.headers.get('mcp-protocol-version') ??
        DEFAULT_NEGOTIATED_PROTOCOL_VERSION
      const streamId = globalThis.crypto.randomUUID()
      const sink: WebSink = new WebSink(() => this.#drop(streamId, sink))
      this.#register(streamId, { sink })
      for (const message of requests) this.#requests.set(message.id, streamId)
      await this.#prime(sink, streamId, version)
      const resumable = this.supportsEmptySSEData(version)
      for (const message of messages) {
        const closers =
          resumable && isRequest(message)
            ? { closeSSEStream: () => this.closeSSEStream(message.id), closeStandaloneSSEStream: () => this.closeStandaloneSSEStream() }
            : {}
        this.#deliver(message, { ...extra, ...closers })
      }
      if (this.#streams.get(streamId)?.sink === sink) this.#keepAlive(streamId)
      return new Response(sink.body, { status: 200, headers: this.#headers() })
    } catch (error) {
      // A failure of our own after the POST was read (its session or event store unreachable): a plain 503 (post-failure.ts).
      this.onerror?.(error as Error)
      return postFailed()
    }
  }

  async #get(request: Request): Promise<Response> {
    if (!request.headers.get('accept')?.includes('text/event-stream')) {
      return this.#refuse(406, -32000, 'Not Acceptable: Client must accept text/event-stream')
    }
    const refused = this.#checkSession(request) ?? this.#checkVersion(request)
    if (refused) return refused
    const lastEventId = request.headers.get('last-event-id')
    if (lastEventId) return this.#resume(lastEventId)
    if (this.#streams.has(STANDALONE_STREAM)) return this.#refuse(409, -32000, 'Conflict: Only one SSE stream is allowed per session')
    const sink: WebSink = new WebSink(() => this.#drop(STANDALONE_STREAM, sink))
    this.#register(STANDALONE_STREAM, { sink })
    this.#keepAlive(STANDALONE_STREAM)
    return new Response(sink.body, { headers: this.#headers() })
  }

  /**
   * A GET with `Last-Event-ID`: the stored events after it, then, while
   * the stream's requests still run here (or it is the GET stream), the
   * stream itself, taken over from the connection the client lost.
   */
  async #resume(lastEventId: string): Promise<Response> {
    try {
      const known = await this.#store.getStreamIdForEventId?.(lastEventId)
      if (this.#store.getStreamIdForEventId !== undefined) {
        if (!known) return this.#refuse(400, -32000, 'Invalid event ID format')
        if (this.#streams.has(known)) return this.#refuse(409, -32000, 'Conflict: Stream already has an active connection')
      }
      // The stream replayed, known once the store has replayed it.
      const replaying: { streamId?: string } = {}
      let cancelled = false
      const sink: WebSink = new WebSink(() => {
        cancelled = true
        if (replaying.streamId !== undefined) this.#drop(replaying.streamId, sink)
      })
      const replayed = new Set<string>()
      const streamId = await this.#store.replayEventsAfter(lastEventId, {
        send: async (eventId, message) => {
          replayed.add(eventId)
          if (!sink.write(sse(eventId, message))) sink.end()
        },
      })
      replaying.streamId = streamId
      if (this.#closed || cancelled) {
        sink.end()
        return this.#refuse(404, -32001, 'Session not found', false)
      }
      this.#end(streamId)
      if (streamId === STANDALONE_STREAM || this.runs(streamId)) {
        this.#register(streamId, { sink, replayed })
        this.#keepAlive(streamId)
      } else sink.end()
      return new Response(sink.body, { headers: this.#headers() })
    } catch (error) {
      this.onerror?.(error as Error)
      return Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Error replaying events' }, id: null }, { status: 500 })
    }
  }

  async #delete(request: Request): Promise<Response> {
    const refused = this.#checkSession(request) ?? this.#checkVersion(request)
    if (refused) return refused
    try {
      await this.#options.onsessionclosed?.(this.sessionId!)
      return new Response(null, { status: 200 })
    } finally {
      await this.close()
    }
  }
}

/** One SSE event of a message. */
const sse = (eventId: string, message: JSONRPCMessage): string => `event: message\nid: ${eventId}\ndata: ${JSON.stringify(message)}\n\n`
