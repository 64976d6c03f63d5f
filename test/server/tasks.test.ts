/**
 * The Tasks extension (SEP-2663) end to end: the official requester
 * (`@modelcontextprotocol/ext-tasks` over an SDK v2 `Client`) runs a tool
 * as a task over HTTP and over stdio, answering the question the task asks;
 * on the wire, the task's shapes (checked against ext-tasks' own schemas),
 * when a call becomes one and when not, cancellation, ownership, failures,
 * the limits of the store and TTL expiry, with the heap measured after gc.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client'
import { CreateTaskResultV2Schema, DetailedTaskV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2'
import { MemoryTaskStore, Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { modernRequest, type ModernRequestOptions } from '../helpers/modern-wire.ts'
import { httpDispatch, transportDispatch } from '../helpers/raw-dispatch.ts'
import { bundleServerFixture } from '../helpers/bundle-server.ts'
import { exportTool } from '../../fixtures/scripts/server/task-tools.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const info = { name: 'tasks-test', version: '0.0.0' }
const ok = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const wait = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms)
    signal?.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true })
  })

let aborted = 0
const closers = new Closer()

/** A server of task tools, with `tasks` options; served over HTTP. */
async function serve(tasks: Parameters<ReturnType<typeof Server.builder>['tasks']>[0] = {}): Promise<HttpHandle> {
  const server = Server.builder('tasks')
    .logging({ logger: false })
    .tasks({ pollIntervalMs: 50, ...tasks })
    .tool(exportTool.tool, exportTool.handler)
    .tool(
      { name: 'Slow', inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } }, execution: { taskSupport: 'optional' } },
      async (args: { ms?: number }, ctx) => {
        try {
          await wait(args.ms ?? 60_000, ctx.signal)
        } catch (error) {
          aborted++
          throw error
        }
        return ok('slow done')
      },
    )
    .tool({ name: 'Quick', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }, () => ok('quick'))
    .tool({ name: 'MustTask', inputSchema: { type: 'object' }, execution: { taskSupport: 'required' } }, async () => {
      await wait(20)
      return ok('done as required')
    })
    .tool({ name: 'Boom', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }, async () => {
      await wait(20)
      throw Object.assign(new Error('the backend broke'), { code: -32603, data: { where: 'boom' } })
    })
    .tool(
      { name: 'Huge', inputSchema: { type: 'object', properties: { kb: { type: 'integer' } } }, execution: { taskSupport: 'optional' } },
      async (args: { kb: number }) => {
        await wait(5)
        return ok('x'.repeat(args.kb * 1024))
      },
    )
    .build()
  const http = await server.serveHttp({ port: 0 })
  closers.push(() => http.close())
  return http
}

let http: HttpHandle
const call = (name: string, args: Record<string, unknown> = {}, options: ModernRequestOptions = { capabilities: TASKS }) =>
  modernRequest(http.url, 'tools/call', { name, arguments: args }, options)
const get = (taskId: string, options: ModernRequestOptions = { capabilities: TASKS }) =>
  modernRequest(http.url, 'tasks/get', { taskId }, options)
async function until(taskId: string, done: (task: any) => boolean): Promise<any> {
  for (let i = 0; i < 200; i++) {
    const task = (await get(taskId)).body.result!
    if (done(task)) return task
    await sleep(20)
  }
  throw new Error(`task ${taskId} never got there`)
}

beforeAll(async () => {
  http = await serve()
})

afterAll(() => closers.close())

describe('the official requester (ext-tasks over an SDK v2 client)', () => {
  it('over HTTP: the tool runs as a task, the client answers its question, the result is the tool’s', async () => {
    const client = new ClientV2(info, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} }, ...TASKS },
    })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    expect(client.getServerCapabilities()?.extensions).toEqual({ 'io.modelcontextprotocol/tasks': {} })
    const asked: unknown[] = []
    const session = createTaskSessionFromClient(client, {
      endpointId: 'http-test',
      rawDispatch: httpDispatch(http.url),
      v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: info, clientCapabilities: { elicitation: { form: {} } } },
      onInputRequest: async (request, context) => {
        asked.push({ kind: request.kind, scope: context.scope, delivery: context.delivery })
        return { action: 'accept', content: { format: 'csv' } } as never
      },
    })
    closers.push(() => session.close())
    const execution = await session.callTool('Export', { table: 'orders' })
    expect(execution.kind).toBe('task')
    const { outcome } = await execution.settle()
    expect(text(resultFromTaskOutcome(outcome))).toBe('exported orders as csv')
    expect(asked).toEqual([{ kind: 'elicitation', scope: 'task', delivery: 'task-update' }])
  })

  it('a plain SDK v2 Client.callTool that declares the extension cannot take the task result (ext-tasks’ session can)', async () => {
    const client = new ClientV2(info, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} }, ...TASKS },
    })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    await expect(client.callTool({ name: 'Export', arguments: { table: 'plain' } })).rejects.toThrow(
      "Unsupported result type 'task' for tools/call",
    )
  })

  it('over stdio: the same task, the raw requests on the client’s own transport', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tasks-stdio-'))
    closers.push(async () => rmSync(dir, { recursive: true, force: true }))
    const script = join(dir, 'tasks-server.mjs')
    await bundleServerFixture('tasks-server', script)
    const client = new ClientV2(info, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      capabilities: { elicitation: { form: {} }, ...TASKS },
    })
    const transport = new StdioV2({ command: process.execPath, args: [script], stderr: 'pipe' })
    await client.connect(transport)
    closers.push(() => client.close())
    const session = createTaskSessionFromClient(client, {
      endpointId: 'stdio-test',
      rawDispatch: transportDispatch(transport),
      v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: info, clientCapabilities: { elicitation: { form: {} } } },
      onInputRequest: async () => ({ action: 'accept', content: { format: 'json' } }) as never,
    })
    closers.push(() => session.close())
    const execution = await session.callTool('Export', { table: 'users' })
    expect(execution.kind).toBe('task')
    expect(text(resultFromTaskOutcome((await execution.settle()).outcome))).toBe('exported users as json')
  })
})

describe('on the wire', () => {
  it('a CreateTaskResult, stored before the answer, and tasks/get through input_required to completed (ext-tasks’ schemas)', async () => {
    const created = await call('Export', { table: 't1' }, { capabilities: { ...TASKS, elicitation: {} } })
    const task = created.body.result!
    expect(task).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 3_600_000, pollIntervalMs: 50 })
    expect(task).not.toHaveProperty('requestState')
    expect(task).not.toHaveProperty('result')
    expect(CreateTaskResultV2Schema.safeParse(task).success).toBe(true)
    const at = (await get(task.taskId)).body.result!
    expect(DetailedTaskV2Schema.safeParse(at).success).toBe(true)
    const waiting = await until(task.taskId, (t) => t.status === 'input_required')
    expect(DetailedTaskV2Schema.safeParse(waiting).success).toBe(true)
    expect(Object.values(waiting.inputRequests)).toEqual([
      { method: 'elicitation/create', params: expect.objectContaining({ mode: 'form', message: 'Format of t1?' }) },
    ])
    const key = Object.keys(waiting.inputRequests)[0]!
    // An answer of the wrong shape, or to a key never asked, is ignored: the task still waits.
    for (const inputResponses of [{ [key]: { nope: 1 } }, { other: { action: 'accept', content: {} } }]) {
      const ack = await modernRequest(http.url, 'tasks/update', { taskId: task.taskId, inputResponses }, { capabilities: TASKS })
      expect(ack.body.result).toMatchObject({ resultType: 'complete' })
      expect((await get(task.taskId)).body.result!.status).toBe('input_required')
    }
    const ack = await modernRequest(
      http.url,
      'tasks/update',
      { taskId: task.taskId, inputResponses: { [key]: { action: 'accept', content: { format: 'json' } } } },
      { capabilities: TASKS },
    )
    expect(Object.keys(ack.body.result!).sort()).toEqual(['_meta', 'resultType'])
    const done = await until(task.taskId, (t) => t.status === 'completed')
    expect(DetailedTaskV2Schema.safeParse(done).success).toBe(true)
    // The progress the handler reported was the status message while it ran; done, the task says no stale progress.
    expect(done.statusMessage).toBeUndefined()
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'exported t1 as json' }], resultType: 'complete' })
  })

  it('a call done at once answers directly; a client without the extension gets the result of an optional tool', async () => {
    expect(text((await call('Quick')).body.result)).toBe('quick')
    const plain = await call('Slow', { ms: 30 }, { capabilities: {} })
    expect(plain.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'slow done' }] })
  })

  it('a required-task tool: -32021 with HTTP 400 to a client without the extension; run to its end in the initialize era', async () => {
    const refused = await call('MustTask', {}, { capabilities: {} })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } },
    })
    const v1 = new ClientV1(info, { capabilities: {} })
    await v1.connect(new HttpV1(new URL(http.url)))
    closers.push(() => v1.close())
    expect(v1.getServerCapabilities()).not.toHaveProperty('extensions')
    expect(text(await v1.callTool({ name: 'MustTask', arguments: {} }))).toBe('done as required')
    await expect(
      v1.request(
        { method: 'tasks/get', params: { taskId: 'x' } } as never,
        (await import('@modelcontextprotocol/sdk/types.js')).ResultSchema,
      ),
    ).rejects.toMatchObject({
      code: -32601,
    })
  })

  it('tasks/get, tasks/update and tasks/cancel: -32021 without the extension, -32602 for a task unknown or another caller’s', async () => {
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const refused = await modernRequest(http.url, method, { taskId: 'x', inputResponses: {} }, { capabilities: {} })
      expect(refused.body.error?.code, method).toBe(-32021)
    }
    expect((await get('no-such-task')).body.error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' })
    // Long enough to be still working after the four requests below, on a loaded machine too.
    const mine = (await call('Slow', { ms: 3_000 }, { capabilities: TASKS, headers: { authorization: 'Bearer alice' } })).body.result!
    const theirs = { capabilities: TASKS, headers: { authorization: 'Bearer bob' } }
    expect((await get(mine.taskId, theirs)).body.error).toMatchObject({ code: -32602, message: 'Failed to retrieve task: Task not found' })
    expect((await modernRequest(http.url, 'tasks/cancel', { taskId: mine.taskId }, theirs)).body.error?.code).toBe(-32602)
    expect((await get(mine.taskId, { capabilities: TASKS, headers: { authorization: 'Bearer alice' } })).body.result!.status).toBe(
      'working',
    )
  })

  it('tasks/cancel: an empty ack, the task cancelled at once and its handler’s signal aborted; again on a terminal task, the same ack', async () => {
    aborted = 0
    const task = (await call('Slow')).body.result!
    const ack = await modernRequest(http.url, 'tasks/cancel', { taskId: task.taskId }, { capabilities: TASKS })
    expect(ack.body.result).toMatchObject({ resultType: 'complete' })
    expect(ack.body.result).not.toHaveProperty('status')
    expect((await get(task.taskId)).body.result).toMatchObject({ status: 'cancelled', statusMessage: 'cancelled by the client' })
    for (let i = 0; i < 50 && aborted === 0; i++) await sleep(10)
    expect(aborted).toBe(1)
    expect((await modernRequest(http.url, 'tasks/cancel', { taskId: task.taskId }, { capabilities: TASKS })).body.result).toMatchObject({
      resultType: 'complete',
    })
    expect((await get(task.taskId)).body.result!.status).toBe('cancelled')
  })

  it('a JSON-RPC error of the handler fails the task with it; a tool error completes it', async () => {
    const task = (await call('Boom')).body.result!
    const failed = await until(task.taskId, (t) => t.status === 'failed')
    expect(failed.error).toEqual({ code: -32603, message: 'the backend broke', data: { where: 'boom' } })
    expect(failed).not.toHaveProperty('result')
    expect(DetailedTaskV2Schema.safeParse(failed).success).toBe(true)
  })
})

it('a task whose tool fails is logged as a failed call, as a tools/call answered at once is', async () => {
  const warnings: string[] = []
  const server = Server.builder('tasks-log')
    .logging({ logger: { warn: (line) => warnings.push(line) } })
    .tasks({ pollIntervalMs: 20, startAfterMs: 0 })
    .tool({ name: 'Fails', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }, async () => {
      await wait(30)
      return { content: [{ type: 'text' as const, text: 'the backend said no' }], isError: true }
    })
    .build()
  const served = await server.serveHttp({ port: 0 })
  closers.push(() => served.close())
  const created = (await modernRequest(served.url, 'tools/call', { name: 'Fails', arguments: {} }, { capabilities: TASKS })).body.result!
  expect(created.resultType).toBe('task')
  let task: any
  for (let i = 0; i < 200 && task?.status !== 'completed'; i++) {
    await sleep(20)
    task = (await modernRequest(served.url, 'tasks/get', { taskId: created.taskId }, { capabilities: TASKS })).body.result
  }
  expect(task.result).toMatchObject({ isError: true })
  expect(warnings.filter((line) => line.includes('call to tool "Fails"'))).toEqual([
    'tasks-log: call to tool "Fails" failed: the backend said no',
  ])
})

/** Opens a 2026-07-28 subscriptions/listen stream on `url`; `next()` reads its messages one by one. */
async function listen(
  url: string,
  notifications: Record<string, unknown>,
  options: { capabilities?: Record<string, unknown>; authorization?: string } = {},
) {
  const abort = new AbortController()
  const response = await fetch(url, {
    method: 'POST',
    signal: abort.signal,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'subscriptions/listen',
      ...(options.authorization ? { authorization: options.authorization } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 'sub-1',
      method: 'subscriptions/listen',
      params: {
        notifications,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': info,
          'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? TASKS,
        },
      },
    }),
  })
  closers.push(async () => abort.abort())
  let reader: ReadableStreamDefaultReader<string> | undefined
  let buffer = ''
  const next = async (): Promise<any> => {
    reader ??= response.body!.pipeThrough(new TextDecoderStream()).getReader()
    for (;;) {
      const end = buffer.indexOf('\n\n')
      if (end >= 0) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = frame.split('\n').find((line) => line.startsWith('data: '))
        if (data) return JSON.parse(data.slice(6))
        continue
      }
      const { value, done } = await reader.read()
      if (done) throw new Error('the stream ended')
      buffer += value
    }
  }
  return { response, next, close: () => abort.abort() }
}

describe('task status notifications (subscriptions/listen with taskIds, HTTP)', () => {
  it('the acknowledgment names the caller’s own tasks; each change of one is a notifications/tasks with the task as tasks/get shows it', async () => {
    const task = (await call('Export', { table: 'watched' }, { capabilities: { ...TASKS, elicitation: {} } })).body.result!
    const stream = await listen(http.url, { taskIds: [task.taskId, 'not-a-task'], toolsListChanged: true })
    expect(stream.response.headers.get('content-type')).toContain('text/event-stream')
    const ack = await stream.next()
    expect(ack).toMatchObject({
      method: 'notifications/subscriptions/acknowledged',
      params: {
        notifications: { taskIds: [task.taskId], toolsListChanged: true },
        _meta: { 'io.modelcontextprotocol/subscriptionId': 'sub-1' },
      },
    })
    let note = await stream.next()
    while (note.params.status !== 'input_required') note = await stream.next()
    expect(note).toMatchObject({ method: 'notifications/tasks', params: { taskId: task.taskId, status: 'input_required' } })
    expect(note.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('sub-1')
    const { _meta: _tag, ...view } = note.params
    expect(DetailedTaskV2Schema.safeParse(view).success).toBe(true)
    const key = Object.keys(note.params.inputRequests)[0]!
    await modernRequest(
      http.url,
      'tasks/update',
      { taskId: task.taskId, inputResponses: { [key]: { action: 'accept', content: { format: 'csv' } } } },
      { capabilities: TASKS },
    )
    while (note.params.status !== 'completed') note = await stream.next()
    expect(note.params.result).toMatchObject({ content: [{ type: 'text', text: 'exported watched as csv' }] })
    stream.close()
  })

  it('a change between the read for the acknowledgment and the watch still reaches the stream', async () => {
    // The listen's read of the task returns its state, then holds until the task has changed: the change falls in the gap.
    // The task's input_required waits for that read, so a loaded machine cannot let it land before the listen reads.
    let stall = false
    let listenRead!: () => void
    const readByListen = new Promise<void>((resolve) => (listenRead = resolve))
    let gated = true
    class Stalled extends MemoryTaskStore {
      override async get(taskId: string) {
        const read = await super.get(taskId)
        if (!stall || read === undefined) return read
        stall = false
        listenRead()
        for (let i = 0; i < 200 && (await super.get(taskId))?.status === read.status; i++) await sleep(10)
        return read
      }
      override async update(taskId: string, change: Parameters<MemoryTaskStore['update']>[1]) {
        const current = gated ? await super.get(taskId) : undefined
        if (current !== undefined && change(structuredClone(current))?.status === 'input_required') {
          gated = false
          await readByListen
        }
        return super.update(taskId, change)
      }
    }
    const stalled = await serve({ store: new Stalled() })
    const started = await modernRequest(
      stalled.url,
      'tools/call',
      { name: 'Export', arguments: { table: 'gap' } },
      { capabilities: { ...TASKS, elicitation: {} } },
    )
    const task = started.body.result!
    const before = (await modernRequest(stalled.url, 'tasks/get', { taskId: task.taskId }, { capabilities: TASKS })).body.result!
    expect(before.status).toBe('working')
    stall = true
    const stream = await listen(stalled.url, { taskIds: [task.taskId] })
    expect((await stream.next()).params.notifications).toEqual({ taskIds: [task.taskId] })
    const note = await stream.next()
    expect(note).toMatchObject({ method: 'notifications/tasks', params: { taskId: task.taskId, status: 'input_required' } })
    stream.close()
  })

  it('without the extension: -32021, HTTP 400; another caller’s task is not acknowledged', async () => {
    const refused = await listen(http.url, { taskIds: ['x'] }, { capabilities: {} })
    expect(refused.response.status).toBe(400)
    expect((await refused.response.json()).error).toMatchObject({ code: -32021 })
    const mine = (await call('Slow', { ms: 300 }, { capabilities: TASKS, headers: { authorization: 'Bearer carol' } })).body.result!
    const theirs = await listen(http.url, { taskIds: [mine.taskId] }, { authorization: 'Bearer dave' })
    expect((await theirs.next()).params.notifications).toEqual({ taskIds: [] })
    theirs.close()
  })
})

describe('one caller among many (issue 36)', () => {
  it('maxTasksPerPrincipal: a caller past its running tasks is refused (-32603), another caller is not; once one ends, it may start again', async () => {
    const quota = await serve({ maxTasksPerPrincipal: 2 })
    const as = (who: string, ms: number) =>
      modernRequest(
        quota.url,
        'tools/call',
        { name: 'Slow', arguments: { ms } },
        { capabilities: TASKS, headers: { authorization: `Bearer ${who}` } },
      )
    const first = await Promise.all([as('erin', 300), as('erin', 300)])
    expect(first.map((r) => r.body.result?.resultType)).toEqual(['task', 'task'])
    const third = await as('erin', 300)
    expect(third.body.error).toMatchObject({ code: -32603, message: expect.stringContaining('this caller has 2 running') })
    expect((await as('frank', 300)).body.result?.resultType).toBe('task')
    await sleep(400)
    expect((await as('erin', 300)).body.result?.resultType).toBe('task')
  })

  it('subscriptions/listen: more taskIds than maxListenTaskIds is refused (-32602, HTTP 400); the ones asked for are read together', async () => {
    let reading = 0
    let most = 0
    class Counted extends MemoryTaskStore {
      override async get(taskId: string) {
        reading++
        most = Math.max(most, reading)
        await sleep(1)
        reading--
        return super.get(taskId)
      }
    }
    const bounded = await serve({ store: new Counted(), maxListenTaskIds: 50 })
    const many = await listen(bounded.url, { taskIds: Array.from({ length: 20_000 }, (_, i) => `t-${i}`) })
    expect(many.response.status).toBe(400)
    expect((await many.response.json()).error).toMatchObject({
      code: -32602,
      message: 'subscriptions/listen: 20000 taskIds, more than the 50 one subscription may watch (maxListenTaskIds)',
    })
    expect(most).toBe(0)
    const mine = (await modernRequest(bounded.url, 'tools/call', { name: 'Slow', arguments: { ms: 300 } }, { capabilities: TASKS })).body
      .result!
    const fifty = await listen(bounded.url, { taskIds: [mine.taskId, ...Array.from({ length: 49 }, (_, i) => `t-${i}`)] })
    expect((await fifty.next()).params.notifications).toEqual({ taskIds: [mine.taskId] })
    fifty.close()
    expect(most).toBeGreaterThan(10)
  })
})

describe('the store’s limits and TTL', () => {
  it('tasks past maxTasks are refused (-32603) while they run; finished ones make room; a result larger than the store fails its task, saying so', async () => {
    const small = await serve({ maxTasks: 2 })
    const at = (url: string, name: string, args = {}) =>
      modernRequest(url, 'tools/call', { name, arguments: args }, { capabilities: TASKS })
    const one = (await at(small.url, 'Slow', { ms: 300 })).body.result!
    const two = (await at(small.url, 'Slow', { ms: 300 })).body.result!
    expect([one.resultType, two.resultType]).toEqual(['task', 'task'])
    const third = await at(small.url, 'Slow', { ms: 300 })
    expect(third.body.error).toMatchObject({ code: -32603, message: 'too many tasks: all 2 the store keeps are in use; retry later' })
    // Finished tasks make room for new ones (the oldest dropped first): results nobody fetched never lock callers out.
    await sleep(350)
    const fourth = (await at(small.url, 'Slow', { ms: 50 })).body.result!
    expect(fourth.resultType).toBe('task')
    expect((await modernRequest(small.url, 'tasks/get', { taskId: one.taskId }, { capabilities: TASKS })).body.error?.code).toBe(-32602)
    expect((await modernRequest(small.url, 'tasks/get', { taskId: two.taskId }, { capabilities: TASKS })).body.result?.status).toBe(
      'completed',
    )
    const tight = await serve({ maxBytes: 64 * 1024 })
    const huge = (await at(tight.url, 'Huge', { kb: 100 })).body.result!
    let task: any
    for (let i = 0; i < 100 && task?.status !== 'failed'; i++) {
      await sleep(20)
      task = (await modernRequest(tight.url, 'tasks/get', { taskId: huge.taskId }, { capabilities: TASKS })).body.result
    }
    expect(task).toMatchObject({ status: 'failed', statusMessage: 'the result does not fit the task store', error: { code: -32603 } })
    expect(task.error.message).toMatch(/^task \S+ does not fit: \d+ bytes/)
  })

  it('a task past its ttlMs is gone: tasks/get answers it as unknown', async () => {
    const TTL = 600
    const short = await serve({ ttlMs: TTL })
    // 100 ms: a call done before the task would start (a loaded machine's late timer) answers directly, with no ttlMs.
    const task = (await modernRequest(short.url, 'tools/call', { name: 'Slow', arguments: { ms: 100 } }, { capabilities: TASKS })).body
      .result!
    expect(task.ttlMs).toBe(TTL)
    let status = 'working'
    for (let i = 0; i < 100 && status === 'working'; i++) {
      await sleep(10)
      status = (await modernRequest(short.url, 'tasks/get', { taskId: task.taskId }, { capabilities: TASKS })).body.result!.status
    }
    expect(status).toBe('completed')
    await sleep(TTL)
    expect((await modernRequest(short.url, 'tasks/get', { taskId: task.taskId }, { capabilities: TASKS })).body.error?.code).toBe(-32602)
  })

  it('heap after gc: tasks holding large results stay within maxBytes, and their memory is freed when their TTL passes', async () => {
    setFlagsFromString('--expose-gc')
    const gc = runInNewContext('gc') as () => void
    const heap = (): number => {
      gc()
      gc()
      return process.memoryUsage().heapUsed
    }
    const MiB = 1024 * 1024
    const store = new MemoryTaskStore({ maxTasks: 1000, maxBytes: 4 * MiB, sweepMs: 50 })
    const TTL = 6000
    const bounded = await serve({ store, ttlMs: TTL })
    closers.push(() => store.close())
    /** Starts `n` tasks whose results are 256 KiB each; resolves with their ids. */
    const start = async (n: number): Promise<string[]> => {
      const ids: string[] = []
      for (let i = 0; i < n; i++) {
        const task = (await modernRequest(bounded.url, 'tools/call', { name: 'Huge', arguments: { kb: 256 } }, { capabilities: TASKS }))
          .body.result
        if (task?.taskId) ids.push(task.taskId)
      }
      return ids
    }
    // A first round warms every path up (and expires); the baseline is taken after it.
    await start(3)
    await sleep(TTL + 300)
    const before = heap()
    const began = Date.now()
    // 24 results of 256 KiB: 6 MiB asked for, 4 MiB allowed.
    const ids = await start(24)
    await sleep(200)
    const states = await Promise.all(
      ids.map(async (taskId) => (await modernRequest(bounded.url, 'tasks/get', { taskId }, { capabilities: TASKS })).body.result?.status),
    )
    expect(Date.now() - began).toBeLessThan(TTL)
    expect(states.filter((s) => s === 'completed').length).toBeGreaterThan(5)
    expect(states.filter((s) => s === 'failed').length).toBeGreaterThan(5)
    expect(store.bytes).toBeLessThanOrEqual(4 * MiB)
    const full = heap()
    process.stdout.write(
      `[tasks] heap: ${((full - before) / MiB).toFixed(1)} MiB over the baseline with ${store.size} tasks holding ${(store.bytes / MiB).toFixed(1)} MiB\n`,
    )
    // The JSON text kept (one byte a character in V8 for ASCII) plus what serving left behind.
    expect(full - before).toBeLessThan(10 * MiB)
    await sleep(TTL + 300)
    const after = heap()
    process.stdout.write(`[tasks] heap after the TTL: ${((after - before) / MiB).toFixed(1)} MiB over the baseline, ${store.size} tasks\n`)
    expect(store.size).toBe(0)
    expect(store.bytes).toBe(0)
    expect(after - before).toBeLessThan(2 * MiB)
  })
})
