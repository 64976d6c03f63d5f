/**
 * Used requestState nonces (docs/serving.md, "requestState") are swept from the oldest,
 * only while expired: opening a state costs a few steps, not a walk of every
 * nonce used in the last ten minutes (the issue: `openState` walked the
 * whole map on every open). Counted through the Map iterator's `next`.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { ServerState } from '../../src/server/serving/server-state.ts'

const iteratorProto = Object.getPrototypeOf(new Map().entries()) as { next: () => IteratorResult<unknown> }
const next = iteratorProto.next
afterEach(() => {
  iteratorProto.next = next
  vi.useRealTimers()
})

it('opening a state after 10 000 others takes a few iterator steps; expired nonces still go, and a used one is refused', () => {
  const core = new ServerState({ name: 'nonces', version: '0', tools: [] })
  const now = Date.now()
  for (let i = 0; i < 10_000; i++) core.openState({ v: i, t: 'T', n: `n${i}`, e: now + 600_000 }, 'T')
  let steps = 0
  iteratorProto.next = function (this: unknown) {
    steps++
    return next.call(this)
  }
  expect(core.openState({ v: 'x', t: 'T', n: 'fresh', e: now + 600_000 }, 'T')).toBe('x')
  iteratorProto.next = next
  expect(steps).toBeLessThan(5)
  // A nonce used once is refused, however many came after it.
  expect(() => core.openState({ v: 0, t: 'T', n: 'n0', e: now + 600_000 }, 'T')).toThrow('Invalid or expired requestState')
  // Past their expiry, the oldest go at the next open.
  vi.useFakeTimers({ now: now + 600_001 })
  expect(core.openState({ v: 'y', t: 'T', n: 'later', e: now + 1_200_000 }, 'T')).toBe('y')
  expect(core.openState({ v: 'again', t: 'T', n: 'n5', e: now + 1_200_000 }, 'T')).toBe('again')
})
