/**
 * The in-memory `Cluster`: one process's sessions, events and announcements,
 * which is what every HTTP transport has without a `cluster` option. Several
 * instances may share one {@link MemoryFleet} in a process (a fleet in
 * miniature, for tests); alone, it is exactly a single server's state.
 */
import type { JSONRPCMessage } from '@modelcontextprotocol/server'
import { toBase64url } from '../base/base64url.ts'
import type {
  Cluster,
  ClusterEventStore,
  ClusterListeners,
  ClusterMessage,
  EventLimits,
  FleetEvent,
  SessionRecord,
  StreamRequest,
  StreamTail,
} from './cluster.ts'
import { DEFAULT_MAX_EVENT_BYTES } from '../../contract/defaults.ts'
import { EventBudget, MemoryEventStore } from './event-store.ts'
import { MemoryTaskStore } from './task-store.ts'

/** A new instance id: 12 base64url characters. */
export function newInstanceId(): string {
  return toBase64url(globalThis.crypto.getRandomValues(new Uint8Array(9)))
}

interface Held {
  record: SessionRecord
  expires: number
  events?: MemoryEventStore
  /** Per stream: who opened it and the requests it answers. */
  streams: Map<string, { owner: string; requests: StreamRequest[] }>
}

/** Options of {@link memoryFleet}. */
export interface MemoryFleetOptions {
  /** Bytes of SSE events all sessions keep together; the oldest of any session go first. @default 67108864 (64 MiB) */
  maxEventBytes?: number
}

/** The state instances of one process share: sessions, their events, and the attached instances' listeners. */
export class MemoryFleet {
  readonly sessions = new Map<string, Held>()
  readonly budget: EventBudget
  /** Listeners by instance id. */
  readonly instances = new Map<string, Set<ClusterListeners>>()
  #tasks: MemoryTaskStore | undefined

  /** The fleet's tasks, made on first use (a fleet that runs none holds no store and no sweep). */
  get tasks(): MemoryTaskStore {
    return (this.#tasks ??= new MemoryTaskStore())
  }

  constructor(options: MemoryFleetOptions = {}) {
    this.budget = new EventBudget(options.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES)
  }

  /** The live session `id`, dropping it when it expired. */
  live(id: string, now = Date.now()): Held | undefined {
    const held = this.sessions.get(id)
    if (held === undefined || held.expires > now) return held
    this.end(id)
    return undefined
  }

  /** Ends session `id` and tells every instance. */
  end(id: string): void {
    const held = this.sessions.get(id)
    if (held === undefined) return
    this.sessions.delete(id)
    held.events?.clear()
    for (const set of this.instances.values()) for (const listeners of set) listeners.ended(id)
  }

  /** Ends every expired session. */
  sweep(): void {
    const now = Date.now()
    for (const id of [...this.sessions.keys()]) this.live(id, now)
  }
}

/** Creates the state several in-process instances share (`memoryCluster({ fleet })`). */
export function memoryFleet(options: MemoryFleetOptions = {}): MemoryFleet {
  return new MemoryFleet(options)
}

/** Options of {@link memoryCluster}. */
export interface MemoryClusterOptions extends MemoryFleetOptions {
  /** Shared with other instances of this process. @default a fleet of this instance alone */
  fleet?: MemoryFleet
}

/** One session's event store over the fleet's memory: nothing is kept for a session that is not (or no longer) recorded. */
function memoryEvents(fleet: MemoryFleet, sessionId: string, instanceId: string, limits: EventLimits): ClusterEventStore {
  let unkept = 0
  const storeOf = (held: Held): MemoryEventStore =>
    (held.events ??= new MemoryEventStore({ maxEvents: limits.maxEvents, maxBytes: limits.maxBytes, budget: fleet.budget }))
  return {
    async append(streamId, message, requests) {
      const held = fleet.sessions.get(sessionId)
      if (held === undefined) return `unkept-${++unkept}`
      if (!held.streams.has(streamId)) held.streams.set(streamId, { owner: instanceId, requests: requests ?? [] })
      return storeOf(held).storeEvent(streamId, message as JSONRPCMessage)
    },
    async tail(eventId): Promise<StreamTail | undefined> {
      const held = fleet.sessions.get(sessionId)
      const found = held?.events?.tail(eventId)
      if (held === undefined || found === undefined) return undefined
      const stream = held.streams.get(found.streamId)
      return {
        streamId: found.streamId,
        owner: stream?.owner ?? instanceId,
        requests: stream?.requests ?? [],
        events: found.events as unknown as Array<{ id: string; message: ClusterMessage }>,
      }
    },
    async clear() {
      const held = fleet.sessions.get(sessionId)
      held?.events?.clear()
      held?.streams.clear()
    },
  }
}

/**
 * The in-memory cluster: sessions, events and announcements in this
 * process. Without `fleet`, exactly one server's own state (the default of
 * `serveHttp()` and `nodeHandler()`).
 */
export function memoryCluster(options: MemoryClusterOptions = {}): Cluster {
  const fleet = options.fleet ?? new MemoryFleet(options)
  const instanceId = newInstanceId()
  const mine = new Set<ClusterListeners>()
  let sweeper: ReturnType<typeof setInterval> | undefined
  const others = (): ClusterListeners[] => [...fleet.instances].filter(([id]) => id !== instanceId).flatMap(([, set]) => [...set])
  return {
    instanceId,
    async attach(listeners) {
      mine.add(listeners)
      fleet.instances.set(instanceId, mine)
      if (sweeper === undefined) {
        sweeper = setInterval(() => fleet.sweep(), 1000)
        sweeper.unref?.()
      }
      return async () => {
        mine.delete(listeners)
        if (mine.size > 0) return
        fleet.instances.delete(instanceId)
        clearInterval(sweeper)
        sweeper = undefined
      }
    },
    async publish(event: FleetEvent) {
      for (const listeners of others()) listeners.event(event)
    },
    async createSession(record, idleMs) {
      fleet.sessions.set(record.id, { record, expires: Date.now() + idleMs, streams: new Map() })
    },
    async touchSession(id, idleMs) {
      const held = fleet.live(id)
      if (held === undefined) return undefined
      // Never shortened: another instance may have slid it further.
      held.expires = Math.max(held.expires, Date.now() + idleMs)
      return held.record
    },
    async endSession(id) {
      fleet.end(id)
    },
    events(sessionId, limits) {
      return memoryEvents(fleet, sessionId, instanceId, limits)
    },
    async sendResponse(target, sessionId, message) {
      for (const listeners of fleet.instances.get(target) ?? []) listeners.response(sessionId, message)
    },
    async isAlive(id) {
      return fleet.instances.has(id)
    },
    tasks: () => fleet.tasks,
  }
}
