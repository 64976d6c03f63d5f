/**
 * The session event store's bounds, unit by unit: events per session, bytes
 * per session, bytes over every session (the shared budget drops the oldest
 * event of any session first), and an event too large to keep.
 */
import { describe, expect, it } from 'vitest'
import type { JSONRPCMessage } from '@modelcontextprotocol/server'
import { EventBudget, MemoryEventStore } from '../../src/server/cluster/event-store.ts'

/** A result message of about `bytes` bytes once serialised. */
const message = (bytes: number, id = 1): JSONRPCMessage =>
  ({ jsonrpc: '2.0', id, result: { text: 'x'.repeat(Math.max(0, bytes - 40)) } }) as JSONRPCMessage

describe('MemoryEventStore', () => {
  it('keeps at most maxEvents, oldest dropped first', async () => {
    const store = new MemoryEventStore({ maxEvents: 3 })
    for (let i = 0; i < 5; i++) await store.storeEvent('s', message(50, i))
    expect(store.size).toBe(3)
    expect(await store.getStreamIdForEventId('1')).toBeUndefined()
    expect(await store.getStreamIdForEventId('5')).toBe('s')
  })

  it('keeps at most maxBytes, and does not keep an event larger than that', async () => {
    const store = new MemoryEventStore({ maxBytes: 1000 })
    for (let i = 0; i < 10; i++) await store.storeEvent('s', message(300, i))
    expect(store.bytes).toBeLessThanOrEqual(1000)
    expect(store.size).toBe(3)
    const big = await store.storeEvent('s', message(2000))
    expect(await store.getStreamIdForEventId(big)).toBeUndefined()
    expect(store.size).toBe(3)
  })

  it('shares a byte budget with other sessions: the oldest event of any session goes first; clear() gives its bytes back', async () => {
    const budget = new EventBudget(1000)
    const a = new MemoryEventStore({ budget })
    const b = new MemoryEventStore({ budget })
    await a.storeEvent('a', message(400))
    await b.storeEvent('b', message(400))
    await b.storeEvent('b', message(400))
    expect(budget.bytes).toBeLessThanOrEqual(1000)
    expect(a.size).toBe(0)
    expect(b.size).toBe(2)
    b.clear()
    expect(budget.bytes).toBe(0)
    await a.storeEvent('a', message(400))
    expect(a.size).toBe(1)
  })

  it('replays what came after an event of the same stream', async () => {
    const store = new MemoryEventStore()
    const first = await store.storeEvent('s', message(50, 1))
    await store.storeEvent('other', message(50, 2))
    await store.storeEvent('s', message(50, 3))
    const sent: unknown[] = []
    expect(
      await store.replayEventsAfter(first, {
        send: async (_id, m) => {
          sent.push((m as { id: number }).id)
        },
      }),
    ).toBe('s')
    expect(sent).toEqual([3])
  })
})
