/**
 * A bounded in-memory event store for one HTTP session: SSE events are kept
 * so a client that lost its stream can resume with `Last-Event-ID` and get
 * what it missed (a call's result included) without the call running again.
 */
import type { EventStore, JSONRPCMessage } from '@modelcontextprotocol/server'

/** Events a session keeps by default before the oldest are dropped. */
export const DEFAULT_MAX_EVENTS = 1000

/** An `EventStore` keeping the last `max` events of a session, oldest dropped first. */
export class MemoryEventStore implements EventStore {
  readonly #events = new Map<string, { streamId: string; message: JSONRPCMessage }>()
  readonly #max: number
  #next = 0

  constructor(max = DEFAULT_MAX_EVENTS) {
    this.#max = max
  }

  /** Events held now. */
  get size(): number {
    return this.#events.size
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${++this.#next}`
    this.#events.set(id, { streamId, message })
    // Maps iterate in insertion order: the first key is the oldest event.
    if (this.#events.size > this.#max) this.#events.delete(this.#events.keys().next().value!)
    return id
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.get(eventId)?.streamId
  }

  async replayEventsAfter(lastEventId: string, { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> }): Promise<string> {
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
