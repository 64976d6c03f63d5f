/**
 * The `Cluster` interface: what the instances of one server behind a load
 * balancer share (docs/cluster.md). Engine-neutral and async: the
 * in-memory default (memory-cluster.ts) is one process's state, the
 * Postgres adapter (`unplugin-proto-mcp/postgres`) a fleet's; a Redis
 * adapter implements the same members. Only plain JSON crosses it.
 */
import type { TaskStore } from './task-store.ts'

/** A JSON value: what a cluster stores and carries. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** A JSON-RPC message as JSON (a request, a notification or a response). */
export type ClusterMessage = { [key: string]: JsonValue }

/**
 * A change every instance announces to its own clients: the SDK's
 * `ServerEvent` (list changes, a resource update), which `createMcpHandler`'s
 * `subscriptions/listen` streams receive.
 */
export type FleetEvent =
  | { kind: 'tools_list_changed' }
  | { kind: 'prompts_list_changed' }
  | { kind: 'resources_list_changed' }
  | { kind: 'resource_updated'; uri: string }

/** An initialize-era session as the fleet keeps it: enough for any instance to rebuild it. */
export interface SessionRecord {
  /** The `Mcp-Session-Id`. */
  id: string
  /** The client's `initialize` request (JSON-RPC), replayed to rebuild the session. */
  initialize: ClusterMessage
  /** The protocol version the client asked for in it. */
  protocolVersion: string
  /**
   * Who opened the session (server/base/principal.ts): a request of anyone else
   * is answered as for an unknown session. Opaque, small JSON: the
   * authorization issue's verified principal goes here.
   */
  principal: JsonValue
}

/** The caps of one session's event store. */
export interface EventLimits {
  /** Events kept; the oldest go first. */
  maxEvents: number
  /** Bytes of events kept (their JSON text); the oldest go first. An event larger than this is not kept. */
  maxBytes: number
}

/** One stored SSE event. */
export interface StoredEvent {
  id: string
  message: ClusterMessage
}

/** A request whose response travels on a stream (recorded with the stream's first event). */
export interface StreamRequest {
  id: string | number
  method: string
}

/** What a stream holds after one of its events: for resuming it on any instance. */
export interface StreamTail {
  streamId: string
  /** The instance that opened the stream (its requests run there). */
  owner: string
  /** The requests answered on the stream (empty for a GET stream). */
  requests: StreamRequest[]
  /** The stream's events after the one asked for, oldest first (priming events, `{}`, included). */
  events: StoredEvent[]
}

/**
 * The event store of one session (Last-Event-ID resumption): the SDK's
 * `EventStore` contract, shared by the instances, capped by {@link EventLimits}.
 * Event ids are unique in the fleet and ordered within a stream. An
 * engine may store an event after `append` returned its id (the event is
 * sent meanwhile): then `tail` of that id, on any instance, waits for it
 * while the instance that appended it lives.
 */
export interface ClusterEventStore {
  /**
   * Stores an event of stream `streamId` and returns its id; `requests`
   * (with a stream's first event) names the requests the stream answers.
   */
  append(streamId: string, message: ClusterMessage, requests?: StreamRequest[]): Promise<string>
  /** The stream of `eventId` and its events after it; `undefined` when the event is unknown, too old, or of another session. */
  tail(eventId: string): Promise<StreamTail | undefined>
  /** Drops every event of the session. */
  clear(): Promise<void>
}

/** Listeners a serving transport registers with its cluster. */
export interface ClusterListeners {
  /** A change announced by another instance (never this one's own). */
  event(event: FleetEvent): void
  /** Session `id` ended on some instance (`DELETE`, idle expiry, eviction). */
  ended(id: string): void
  /** A client's response to a request this instance sent, received by another instance for session `sessionId`. */
  response(sessionId: string, message: ClusterMessage): void
  /**
   * The connection to the fleet was lost and is back: events may have been
   * missed. The transport announces one change of each kind to its clients
   * and re-checks its sessions.
   */
  reconnected(): void
  /** An error of the cluster's own work (a lost connection, a failed sweep): reported, never thrown. */
  error(error: Error): void
}

/**
 * What the instances of a server share. Every method may be called on any
 * instance at any time; the engine makes them safe together.
 */
export interface Cluster {
  /** This instance's id in the fleet: short, unique per process, no `:`. */
  readonly instanceId: string
  /**
   * Starts serving one transport (connects, creates tables, starts the
   * sweeper) and registers its listeners; resolves once the bus listens.
   * A cluster may serve several transports of one process; each `attach`
   * is ended by the `detach` it returns, and the last one closes the connection.
   */
  attach(listeners: ClusterListeners): Promise<() => Promise<void>>
  /** Tells every other instance of `event`. */
  publish(event: FleetEvent): Promise<void>

  /** Records a new session, expiring `idleMs` from now unless touched. */
  createSession(record: SessionRecord, idleMs: number): Promise<void>
  /** The session if it lives, its expiry slid to `idleMs` from now (never earlier than it was); `undefined` when unknown or expired. */
  touchSession(id: string, idleMs: number): Promise<SessionRecord | undefined>
  /** Ends a session everywhere: its record and events go, and every instance hears `ended(id)` (resolved once it was announced: this instance's listeners heard it too). */
  endSession(id: string): Promise<void>
  /** The event store of session `id`. */
  events(sessionId: string, limits: EventLimits): ClusterEventStore

  /** Hands a client's response to `instanceId`, the instance awaiting it (its listeners' `response`). */
  sendResponse(instanceId: string, sessionId: string, message: ClusterMessage): Promise<void>
  /** Whether instance `instanceId` still serves (a killed one stops being alive at once or within its heartbeat). */
  isAlive(instanceId: string): Promise<boolean>

  /**
   * The fleet's task store (the Tasks extension, docs/serving.md, "Tasks"): a
   * task started on one instance is read, answered and cancelled through
   * any other, its `watch` hears changes made anywhere, and `due` lists the
   * tasks whose runner's lease ran out. Used once a transport attached.
   */
  tasks(): TaskStore
}
