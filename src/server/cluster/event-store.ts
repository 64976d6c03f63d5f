/**
 * A bounded in-memory event store for one HTTP session: SSE events are kept
 * so a client that lost its stream can resume with `Last-Event-ID` and get
 * what it missed (a call's result included) without the call running again.
 * Bounded three ways: events per session, bytes per session, and bytes over
 * every session of a server (a shared {@link EventBudget}); the oldest go first.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server'

import { DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_EVENTS, DEFAULT_MAX_SESSION_EVENT_BYTES } from '../../contract/defaults.ts'

interface Held {
  store: MemoryEventStore
  id: string
  bytes: number
}

/** The byte budget shared by the event stores of one server: the oldest event of any session goes first. */
export class EventBudget {
  readonly #max: number
  // Insertion order is age order, across every store.
  readonly #events = new Map<number, Held>()
  #next = 0
  #bytes = 0

  constructor(max = DEFAULT_MAX_EVENT_BYTES) {
    this.#max = max
  }

  /** Bytes held now, over every store. */
  get bytes(): number {
    return this.#bytes
  }

  /** Records an event; drops the oldest events of any store while over the budget. Returns its key. */
  add(store: MemoryEventStore, id: string, bytes: number): number {
    const key = ++this.#next
    this.#events.set(key, { store, id, bytes })
    this.#bytes += bytes
    for (const [oldest, held] of this.#events) {
      if (this.#bytes <= this.#max) break
      this.#events.delete(oldest)
      this.#bytes -= held.bytes
      held.store.forget(held.id)
    }
    return key
  }

  /** Forgets an event a store dropped itself. */
  remove(key: number): void {
    const held = this.#events.get(key)
    if (held === undefined) return
    this.#events.delete(key)
    this.#bytes -= held.bytes
  }
}

/** Limits of one {@link MemoryEventStore}. */
export interface EventStoreLimits {
  /** @default DEFAULT_MAX_EVENTS */
  maxEvents?: number
  /** @default DEFAULT_MAX_SESSION_EVENT_BYTES */
  maxBytes?: number
  /** Shared with the server's other sessions. @default a budget of its own with DEFAULT_MAX_EVENT_BYTES */
  budget?: EventBudget
}

interface Stored {
  streamId: string
  message: JSONRPCMessage
  bytes: number
  key: number
}

/** An `EventStore` keeping the last events of a session within its limits, oldest dropped first. */
export class MemoryEventStore implements EventStore {
  readonly #events = new Map<string, Stored>()
  readonly #maxEvents: number
  readonly #maxBytes: number
  readonly #budget: EventBudget
  #bytes = 0
  #next = 0

  constructor(limits: EventStoreLimits | number = {}) {
    const given = typeof limits === 'number' ? { maxEvents: limits } : limits
    this.#maxEvents = given.maxEvents ?? DEFAULT_MAX_EVENTS
    this.#maxBytes = given.maxBytes ?? DEFAULT_MAX_SESSION_EVENT_BYTES
    this.#budget = given.budget ?? new EventBudget()
  }

  /** Events held now. */
  get size(): number {
    return this.#events.size
  }

  /** Bytes of the events held now. */
  get bytes(): number {
    return this.#bytes
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${++this.#next}`
    const bytes = JSON.stringify(message).length
    // An event larger than the whole allowance is sent, but cannot be kept for a resume.
    if (bytes > this.#maxBytes) return id
    this.#bytes += bytes
    this.#events.set(id, { streamId, message, bytes, key: 0 })
    // Maps iterate in insertion order: the first key is the oldest event.
    while (this.#events.size > this.#maxEvents || this.#bytes > this.#maxBytes) this.#drop(this.#events.keys().next().value!)
    const stored = this.#events.get(id)
    if (stored !== undefined) stored.key = this.#budget.add(this, id, bytes)
    return id
  }

  /** Drops event `id` because the shared budget let it go. */
  forget(id: string): void {
    const stored = this.#events.get(id)
    if (stored === undefined) return
    this.#events.delete(id)
    this.#bytes -= stored.bytes
  }

  /** Drops every event (the session ended), returning their bytes to the budget. */
  clear(): void {
    for (const id of [...this.#events.keys()]) this.#drop(id)
  }

  #drop(id: string): void {
    const stored = this.#events.get(id)
    if (stored === undefined) return
    this.#events.delete(id)
    this.#bytes -= stored.bytes
    this.#budget.remove(stored.key)
  }

  /** The stream of event `eventId` and its events after it (oldest first), or `undefined` when the event is unknown or dropped. */
  tail(eventId: string): { streamId: string; events: Array<{ id: string; message: JSONRPCMessage }> } | undefined {
    const last = this.#events.get(eventId)
    if (last === undefined) return undefined
    const events: Array<{ id: string; message: JSONRPCMessage }> = []
    let after = false
    for (const [id, event] of this.#events) {
      if (after && event.streamId === last.streamId) events.push({ id, message: event.message })
      else if (id === eventId) after = true
    }
    return { streamId: last.streamId, events }
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const last = this.#events.get(lastEventId)
    if (last === undefined) throw new Error(`event "${lastEventId}" is unknown or too old to resume from`)
    let after = false
    for (const [id, event] of this.#events) {
      if (id === lastEventId) {
        after = true
        continue
      }
      // Priming events carry no message (`{}`): nothing to replay.
      if (after && event.streamId === last.streamId && 'jsonrpc' in event.message) await send(id, event.message)
    }
    return last.streamId
  }
}
