/**
 * A small MCP client over Streamable HTTP for the `/__mcp/` page: JSON-RPC
 * requests as POSTs (answered as JSON or an SSE stream), the session of the
 * initialize era, and the GET stream that carries server notifications such
 * as `notifications/tools/list_changed`.
 */

const PROTOCOL_VERSION = '2025-11-25'

/** An error answered by the server: a JSON-RPC error or an HTTP failure. */
export class McpError extends Error {
  /**
   * @param {string} message
   * @param {number | undefined} code JSON-RPC error code, when there is one
   * @param {unknown} data
   * @param {number | undefined} status HTTP status
   */
  constructor(message, code, data, status) {
    super(message)
    this.name = 'McpError'
    this.code = code
    this.data = data
    this.status = status
  }
}

/**
 * Yields the events of a `text/event-stream` response body as
 * `{ id, event, data }`, in order, until the stream ends.
 * @param {ReadableStream<Uint8Array>} body
 */
async function* readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader()
  let buffer = ''
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      buffer += value.replace(/\r\n?/g, '\n')
      let end
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const event = { id: undefined, event: 'message', data: [] }
        for (const line of block.split('\n')) {
          const colon = line.indexOf(':')
          if (colon === 0) continue
          const field = colon === -1 ? line : line.slice(0, colon)
          const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (field === 'data') event.data.push(text)
          else if (field === 'id') event.id = text
          else if (field === 'event') event.event = text
        }
        if (event.data.length > 0) yield { id: event.id, event: event.event, data: event.data.join('\n') }
      }
    }
  } finally {
    // The caller may stop early (its answer arrived): release the connection.
    reader.cancel().catch(() => {})
  }
}

/** One connection to an MCP endpoint. */
export class McpClient {
  /**
   * @param {string | URL} endpoint the MCP endpoint, e.g. `/mcp`
   * @param {{ onNotification?: (message: any) => void, onStatus?: (status: string, detail?: string) => void }} handlers
   */
  constructor(endpoint, handlers = {}) {
    this.endpoint = new URL(endpoint, location.href)
    this.handlers = handlers
    this.nextId = 1
    /** @type {string | undefined} */
    this.sessionId = undefined
    /** @type {string | undefined} */
    this.protocolVersion = undefined
    /** @type {any} */
    this.serverInfo = undefined
    this.closed = false
    this.listening = undefined
  }

  headers(extra = {}) {
    const headers = { accept: 'application/json, text/event-stream', ...extra }
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion
    return headers
  }

  /** Dispatches a message the server sent that is not the answer being waited for. */
  deliver(message) {
    if (message && message.method && message.id === undefined) this.handlers.onNotification?.(message)
  }

  /**
   * Sends one JSON-RPC message; resolves with the response's `result` (or
   * `undefined` for a notification). Rejects with an {@link McpError}.
   */
  async send(method, params, notification = false) {
    const id = notification ? undefined : this.nextId++
    const message = { jsonrpc: '2.0', method, ...(id === undefined ? {} : { id }), ...(params === undefined ? {} : { params }) }
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/json' }),
      body: JSON.stringify(message),
    })
    const session = response.headers.get('mcp-session-id')
    if (session) this.sessionId = session
    const type = response.headers.get('content-type') ?? ''
    if (type.includes('text/event-stream') && response.body) {
      for await (const event of readEvents(response.body)) {
        // An empty event only primes resumption (its id); no message.
        if (event.data === '') continue
        const reply = JSON.parse(event.data)
        if (reply.id === id && (reply.result !== undefined || reply.error !== undefined)) return this.settle(reply)
        this.deliver(reply)
      }
      throw new McpError(`the server closed the stream without answering ${method}`)
    }
    const text = type.includes('application/json') ? await response.text() : ''
    if (text !== '') {
      const reply = JSON.parse(text)
      if (reply.id === id || reply.error) return this.settle(reply, response.status)
    }
    if (!response.ok) throw new McpError(`${method}: HTTP ${response.status} ${response.statusText}`, undefined, undefined, response.status)
    return undefined
  }

  settle(reply, status) {
    if (reply.error) throw new McpError(reply.error.message, reply.error.code, reply.error.data, status)
    return reply.result
  }

  /** Initializes a session and opens the notification stream. */
  async connect() {
    this.sessionId = undefined
    this.protocolVersion = undefined
    const result = await this.send('initialize', {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'unplugin-proto-mcp page', version: '1.0.0' },
    })
    this.protocolVersion = result.protocolVersion
    this.serverInfo = result.serverInfo
    await this.send('notifications/initialized', undefined, true)
    this.handlers.onStatus?.('connected')
    this.listening = this.listen()
    return result
  }

  /**
   * Keeps the GET stream of server notifications open, resuming with
   * `Last-Event-ID` when it drops and starting a new session when the
   * server no longer knows this one.
   */
  async listen() {
    let lastEventId
    let failures = 0
    while (!this.closed) {
      try {
        const response = await fetch(this.endpoint, {
          method: 'GET',
          headers: this.headers(
            lastEventId ? { accept: 'text/event-stream', 'last-event-id': lastEventId } : { accept: 'text/event-stream' },
          ),
        })
        if (response.status === 404 && this.sessionId) {
          // The session expired or the server restarted: a new one, and a fresh listing.
          this.handlers.onStatus?.('reconnecting', 'session ended')
          await this.connect()
          this.handlers.onNotification?.({ method: 'notifications/tools/list_changed' })
          return
        }
        if (!response.ok || !response.body) {
          this.handlers.onStatus?.('connected', `no notification stream (HTTP ${response.status}): the list updates on reload`)
          return
        }
        failures = 0
        this.handlers.onStatus?.('live')
        for await (const event of readEvents(response.body)) {
          if (event.id) lastEventId = event.id
          if (event.data !== '') this.deliver(JSON.parse(event.data))
        }
      } catch (error) {
        if (this.closed) return
        this.handlers.onStatus?.('reconnecting', error instanceof Error ? error.message : String(error))
      }
      failures++
      await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** failures, 5000)))
    }
  }

  /** `tools/list`, following every page. */
  async listTools() {
    const tools = []
    let cursor
    do {
      const result = await this.send('tools/list', cursor ? { cursor } : {})
      tools.push(...result.tools)
      cursor = result.nextCursor
    } while (cursor)
    return tools
  }

  /** `tools/call`: resolves with the `CallToolResult`. */
  callTool(name, args) {
    return this.send('tools/call', { name, arguments: args })
  }
}
