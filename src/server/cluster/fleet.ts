/**
 * HTTP serving over a `Cluster` (docs/cluster.md): the event bus the
 * SDK's `createMcpHandler` takes, the SDK `EventStore` of a session over
 * the cluster's, the rebuilding of a session another instance opened, the
 * routing of a client's response to the instance awaiting it, and the
 * resumption of a stream whose request runs elsewhere. The HTTP handlers
 * (http/session-handler.ts, http/stateless-handler.ts) call these at a few
 * seams; without a `cluster` option they run them over a private in-memory
 * cluster (exactly one server's state).
 */
import { InMemoryServerEventBus, isJSONRPCRequest } from '@modelcontextprotocol/server'
import type { EventStore, JSONRPCMessage, ServerEvent, ServerEventBus } from '@modelcontextprotocol/server'
import type { Cluster, ClusterEventStore, ClusterMessage, FleetEvent, SessionRecord, StreamRequest, StreamTail } from './cluster.ts'
import type { Log } from '../base/logging.ts'
import type { ListKind } from '../base/list-kind.ts'

/** The stream id of a session's GET stream (the SDK's transport named it so: stored events keep it). */
export const STANDALONE_STREAM = '_GET_stream'

/** The event of a list change. */
export const LIST_EVENTS: Record<ListKind, FleetEvent> = {
  tools: { kind: 'tools_list_changed' },
  resources: { kind: 'resources_list_changed' },
  prompts: { kind: 'prompts_list_changed' },
}

/** The list a bus event says changed, if it is a list change. */
export function listKindOf(event: ServerEvent): ListKind | undefined {
  if (event.kind === 'tools_list_changed') return 'tools'
  if (event.kind === 'resources_list_changed') return 'resources'
  if (event.kind === 'prompts_list_changed') return 'prompts'
  return undefined
}

/**
 * The SDK's `ServerEventBus` over a cluster: what is published here reaches
 * this instance's listeners at once (its listen streams, its sessions) and
 * every other instance through the cluster; what other instances publish
 * reaches this instance's listeners through {@link deliver}, never back out.
 */
export class FleetBus implements ServerEventBus {
  readonly #local: InMemoryServerEventBus
  readonly #cluster: Cluster
  readonly #onerror: (error: Error) => void

  constructor(cluster: Cluster, onerror: (error: Error) => void) {
    this.#cluster = cluster
    this.#onerror = onerror
    this.#local = new InMemoryServerEventBus(onerror)
  }

  publish(event: ServerEvent): void {
    this.#local.publish(event)
    const shared: FleetEvent = event.kind === 'resource_updated' ? { kind: event.kind, uri: event.uri } : { kind: event.kind }
    this.#cluster.publish(shared).catch(this.#onerror)
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    return this.#local.subscribe(listener)
  }

  /** An event another instance published (or one this instance announces to its own clients only). */
  deliver(event: FleetEvent): void {
    this.#local.publish(event)
  }
}

/**
 * What a fleet reads of a session's streams (http/session-transport.ts
 * implements it): which stream answers which request, and whether the
 * session's GET stream is open here.
 */
export interface SessionStreams {
  /** Whether a request of `streamId` runs here (its responses are written here). */
  runs(streamId: string): boolean
  /** Whether the session's GET stream is open here. */
  holdsStandaloneStream(): boolean
  /** The ids of the requests `streamId` answers here. */
  requestsOf(streamId: string): Array<string | number>
}

/** In a fleet, what a session's transport rewrites on the way out and in (see {@link fleetRouting}). */
export interface MessageRouting {
  outgoing(message: JSONRPCMessage): JSONRPCMessage
  /** The message to deliver here, or `undefined` when it was handed to another instance. */
  incoming(message: JSONRPCMessage): JSONRPCMessage | undefined
}

/** Per session: what the SDK event store adapter needs to know beyond the cluster's store. */
export interface SessionEvents extends EventStore {
  /** Methods of the requests being handed to the transport, by id (for a stream's first event). */
  readonly methods: Map<string | number, string>
  /** While set, nothing is stored (a session being rebuilt replays its `initialize`). */
  muted: boolean
  /** The cluster's store. */
  readonly store: ClusterEventStore
}

/**
 * The SDK `EventStore` of one session over the cluster's store. In a fleet,
 * a stream's first event records the requests it answers (so another
 * instance can resume it, or fail them if this one dies), and a GET-stream
 * event is kept only by the instance holding that stream (every instance
 * announces every change: the others' copies would be duplicates).
 */
export function sessionEvents(
  store: ClusterEventStore,
  streams: () => SessionStreams,
  fleet: boolean,
  onerror: (error: Error) => void,
): SessionEvents {
  let unstored = 0
  // getStreamIdForEventId then replayEventsAfter: one read of the store for both.
  let last: { id: string; tail: Promise<StreamTail | undefined> } | undefined
  const tail = (id: string): Promise<StreamTail | undefined> => {
    if (last?.id !== id) last = { id, tail: store.tail(id) }
    const read = last.tail
    read
      .finally(() => {
        if (last?.tail === read) last = undefined
      })
      .catch(() => {})
    return read
  }
  const events: SessionEvents = {
    methods: new Map(),
    muted: false,
    store,
    async storeEvent(streamId, message) {
      if (events.muted || (fleet && streamId === STANDALONE_STREAM && !streams().holdsStandaloneStream())) return `unstored-${++unstored}`
      let requests: StreamRequest[] | undefined
      if (fleet && !('jsonrpc' in message) && streamId !== STANDALONE_STREAM) {
        requests = streams()
          .requestsOf(streamId)
          .map((id) => ({ id, method: events.methods.get(id) ?? '' }))
      }
      try {
        return await store.append(streamId, message as unknown as ClusterMessage, requests)
      } catch (error) {
        // The store unreachable: the event is still sent, it only cannot be resumed from.
        onerror(error as Error)
        return `unstored-${++unstored}`
      }
    },
    async getStreamIdForEventId(eventId) {
      return (await tail(eventId))?.streamId
    },
    async replayEventsAfter(lastEventId, { send }) {
      const found = await tail(lastEventId)
      if (found === undefined) throw new Error(`event "${lastEventId}" is unknown or too old to resume from`)
      // Priming events carry no message (`{}`): nothing to replay.
      for (const event of found.events) if ('jsonrpc' in event.message) await send(event.id, event.message as unknown as JSONRPCMessage)
      return found.streamId
    },
  }
  return events
}

/** Records the methods of the requests in a POST body before the transport sees them. */
export function noteMethods(events: SessionEvents, body: unknown): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    if (message !== null && typeof message === 'object' && 'method' in message && 'id' in message) {
      const { id, method } = message as { id: unknown; method: unknown }
      if ((typeof id === 'string' || typeof id === 'number') && typeof method === 'string') events.methods.set(id, method)
    }
  }
}

/** A fleet id of a request this instance sends: `<instance>:<n>`. */
const FLEET_ID = /^([^:]+):(\d+)$/

/**
 * In a fleet, gives the requests this session's SDK instance sends to the
 * client (elicitation, sampling) ids that name this instance, and hands a
 * response that names another instance to that one: the session
 * transport's {@link MessageRouting}.
 */
export function fleetRouting(cluster: Cluster, sessionId: string, onerror: (error: Error) => void): MessageRouting {
  const self = cluster.instanceId
  return {
    outgoing(message) {
      if (isJSONRPCRequest(message) && typeof message.id === 'number') return { ...message, id: `${self}:${message.id}` }
      if ('method' in message && message.method === 'notifications/cancelled' && typeof message.params?.requestId === 'number') {
        return { ...message, params: { ...message.params, requestId: `${self}:${message.params.requestId}` } }
      }
      return message
    },
    incoming(message) {
      const id = 'method' in message ? undefined : (message as { id?: unknown }).id
      const match = typeof id === 'string' ? FLEET_ID.exec(id) : null
      if (match === null) return message
      if (match[1] === self) return { ...message, id: Number(match[2]) } as JSONRPCMessage
      cluster.sendResponse(match[1]!, sessionId, message as unknown as ClusterMessage).catch(onerror)
      return undefined
    },
  }
}

/** What a session is rebuilt on: its transport's web path. */
interface RebuiltTransport {
  readonly sessionId?: string
  handleRequest(request: Request, options?: { parsedBody?: unknown }): Promise<Response>
}

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

/**
 * Rebuilds a session another instance opened on a fresh transport: its
 * `initialize` and `notifications/initialized` again (nothing stored, the
 * answers dropped), so the SDK instance knows the client as it was.
 */
export async function replayInitialize(transport: RebuiltTransport, record: SessionRecord, url: string): Promise<boolean> {
  const init = await transport.handleRequest(
    new Request(url, { method: 'POST', headers: HEADERS, body: JSON.stringify(record.initialize) }),
    {
      parsedBody: record.initialize,
    },
  )
  await init.text()
  if (!init.ok || transport.sessionId !== record.id) return false
  const note = { jsonrpc: '2.0', method: 'notifications/initialized' }
  const headers = { ...HEADERS, 'mcp-session-id': record.id, 'mcp-protocol-version': record.protocolVersion }
  const initialized = await transport.handleRequest(new Request(url, { method: 'POST', headers, body: JSON.stringify(note) }), {
    parsedBody: note,
  })
  await initialized.text()
  return initialized.ok
}

/** What a resumed stream's requests get when the instance running them is gone. */
function lostAnswer(request: StreamRequest): ClusterMessage {
  const text =
    'the server instance running this request stopped before it answered; it may or may not have taken effect: retry if it is safe to'
  if (request.method === 'tools/call')
    return { jsonrpc: '2.0', id: request.id, result: { content: [{ type: 'text', text }], isError: true } }
  return { jsonrpc: '2.0', id: request.id, error: { code: -32603, message: text } }
}

const encoder = new TextEncoder()
const sse = (id: string, message: ClusterMessage): Uint8Array =>
  encoder.encode('jsonrpc' in message ? `event: message\nid: ${id}\ndata: ${JSON.stringify(message)}\n\n` : `id: ${id}\ndata: \n\n`)

/** How a followed stream polls its store and its owner. */
export interface FollowOptions {
  cluster: Cluster
  store: ClusterEventStore
  /** Whether the session still lives here (ended: the stream closes). */
  open: () => boolean
  /** @default 50 */
  pollMs?: number
  /** How often the owner's liveness is checked while nothing arrives. @default 1000 */
  aliveMs?: number
}

const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' }

/**
 * Resumes, on this instance, a stream whose requests ran or run on another
 * (`tail`: what the store holds after the client's Last-Event-ID): replays
 * it, then follows the store until every request is answered; if the
 * instance running them is gone, answers them as lost (stored, so any
 * other resumption sees the same). A stream with nothing left to say is
 * `204`: a client does not come back for it.
 */
export function followStream(lastEventId: string, tail: StreamTail, headers: Record<string, string>, options: FollowOptions): Response {
  const { cluster, store, pollMs = 50, aliveMs = 1000 } = options
  const pending = new Set(tail.requests.map((r) => r.id))
  const answered = (events: readonly { message: ClusterMessage }[]): void => {
    for (const { message } of events) if (!('method' in message) && 'id' in message) pending.delete(message.id as string | number)
  }
  answered(tail.events)
  if (pending.size === 0 && !tail.events.some((e) => 'jsonrpc' in e.message)) return new Response(null, { status: 204, headers })
  let stopped = false
  const follow = async (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> => {
    let cursor = tail.events.at(-1)?.id ?? lastEventId
    let checked = Date.now()
    while (!stopped && pending.size > 0 && options.open()) {
      await new Promise((resolve) => setTimeout(resolve, pollMs))
      if (stopped) return
      const next = await store.tail(cursor)
      if (next !== undefined && next.events.length > 0) {
        for (const event of next.events) controller.enqueue(sse(event.id, event.message))
        answered(next.events)
        cursor = next.events.at(-1)!.id
        continue
      }
      if (Date.now() - checked < aliveMs) continue
      checked = Date.now()
      if (tail.owner !== cluster.instanceId && (await cluster.isAlive(tail.owner))) continue
      for (const request of tail.requests.filter((r) => pending.has(r.id))) {
        const answer = lostAnswer(request)
        controller.enqueue(sse(await store.append(tail.streamId, answer), answer))
      }
      pending.clear()
    }
  }
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const event of tail.events) controller.enqueue(sse(event.id, event.message))
      follow(controller)
        // The store unreachable: the client resumes again later.
        .catch(() => {})
        .finally(() => {
          if (stopped) return
          stopped = true
          try {
            controller.close()
          } catch {
            // Closed by the client meanwhile.
          }
        })
    },
    cancel() {
      stopped = true
    },
  })
  return new Response(body, { status: 200, headers: { ...SSE_HEADERS, ...headers } })
}

/**
 * In a fleet, a GET with `Last-Event-ID`: a followed stream when the
 * stream's requests run on another instance (or ran and are gone),
 * `'announce'` when it is the session's GET stream (the transport resumes
 * it), `undefined` when the transport answers alone (the requests run
 * here, or the event is unknown).
 */
export async function resumeElsewhere(
  request: Request,
  transport: SessionStreams & { readonly sessionId?: string },
  events: SessionEvents,
  cluster: Cluster,
  open: () => boolean,
): Promise<Response | 'announce' | undefined> {
  const lastEventId = request.headers.get('last-event-id')
  if (!lastEventId) return undefined
  const tail = await events.store.tail(lastEventId)
  if (tail === undefined) return undefined
  if (tail.streamId === STANDALONE_STREAM) return 'announce'
  if (transport.runs(tail.streamId)) return undefined
  const headers: Record<string, string> = transport.sessionId === undefined ? {} : { 'mcp-session-id': transport.sessionId }
  return followStream(lastEventId, tail, headers, { cluster, store: events.store, open })
}

/** A `fetchHandler()`'s link to its cluster: its bus, its messages, and what its `close()` ends. */
export interface FetchLinks {
  readonly bus: FleetBus
  readonly log: Log
  readonly onerror: (error: Error) => void
  /** Run by `close()`, before the cluster is left. */
  readonly closers: Array<() => unknown>
  ready(): Promise<void>
  close(): Promise<void>
}

/** Attaches a stateless handler to `cluster`: its listen streams hear every instance's changes. */
export function linkFetch(cluster: Cluster, log: Log, onerror: (error: Error) => void): FetchLinks {
  const bus = new FleetBus(cluster, onerror)
  const attached = cluster.attach({
    event: (event) => bus.deliver(event),
    ended: () => {},
    response: () => {},
    reconnected: () => {
      for (const event of Object.values(LIST_EVENTS)) bus.deliver(event)
    },
    error: onerror,
  })
  // Reported by ready().
  attached.catch(() => {})
  const closers: Array<() => unknown> = []
  return {
    bus,
    log,
    onerror,
    closers,
    ready: () => attached.then(() => {}),
    async close() {
      for (const close of closers.splice(0)) await close()
      await (
        await attached.catch(() => undefined)
      )?.()
    },
  }
}
