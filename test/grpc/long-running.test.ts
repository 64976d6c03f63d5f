/**
 * Long-running RPCs and server-streaming RPCs as tasks, against a real
 * grpc-js backend (test/grpc/exports-server.ts) through `grpc(target)`: an
 * RPC returning `google.longrunning.Operation` is a tool whose output is
 * the response type `operation_info` names; its operation is followed with
 * `GetOperation` on the same backend, to its response or its
 * `google.rpc.Status` error, and a cancelled task cancels it
 * (`CancelOperation`). A stream runs as a task too, its messages reported
 * as the task's status.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { DetailedTaskV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2'
import { grpc } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { EXPORTS_PROTO, startExportsBackend, UNREGISTERED_TYPE, type ExportsBackend } from './exports-server.ts'

const TASKS = { capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

let backend: ExportsBackend
let http: HttpHandle
let proto: ReturnType<typeof createProtoServer>

beforeAll(async () => {
  backend = await startExportsBackend()
  proto = createProtoServer(specFromProto(EXPORTS_PROTO)).forward('ExportService', grpc(backend.server.address))
  http = await Server.builder('exports')
    .include(proto)
    .tasks({ pollIntervalMs: 20 })
    .logging({ logger: false })
    .build()
    .serveHttp({ port: 0 })
})

afterAll(async () => {
  await http?.close()
  await backend?.server.stop()
})

const call = (args: Record<string, unknown>, name = 'ExportTable') =>
  modernRequest(http.url, 'tools/call', { name, arguments: args }, TASKS)
async function settled(taskId: string): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const task = (await modernRequest(http.url, 'tasks/get', { taskId }, TASKS)).body.result!
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task
    await sleep(20)
  }
  throw new Error(`task ${taskId} never settled`)
}
const calls = (method: string) => backend.received.filter((r) => r.method === method)

describe('an RPC returning google.longrunning.Operation', () => {
  it('is a tool whose output schema is the response type operation_info names, not the Operation', () => {
    const tool = proto.listTools().find((t) => t.name === 'ExportTable')!
    expect(tool.outputSchema).toMatchObject({ type: 'object', properties: { uri: { type: 'string' }, rows: expect.anything() } })
    expect(JSON.stringify(tool.outputSchema)).not.toContain('metadata')
    expect(JSON.stringify(tool.outputSchema)).not.toContain('"done"')
  })

  it('as a task: its metadata is the status message while it runs, the decoded response its result', async () => {
    const created = (await call({ table: 'orders', steps: 3 })).body.result!
    expect(created).toMatchObject({ resultType: 'task', status: 'working' })
    const seen: string[] = []
    let task: any
    for (let i = 0; i < 300; i++) {
      task = (await modernRequest(http.url, 'tasks/get', { taskId: created.taskId }, TASKS)).body.result!
      if (task.statusMessage && !seen.includes(task.statusMessage)) seen.push(task.statusMessage)
      if (task.status === 'completed') break
      await sleep(10)
    }
    expect(task.status).toBe('completed')
    expect(DetailedTaskV2Schema.safeParse(task).success).toBe(true)
    // Completed: the last progress (`{"percent":66,...}`) is no longer its status message.
    expect(task.statusMessage).toBeUndefined()
    expect(task.result.structuredContent).toEqual({ uri: 'gs://exports/orders.csv', rows: '9007199254740993' })
    expect(task.result.isError).toBe(false)
    expect(seen).toContainEqual(expect.stringMatching(/^(?=.*"stage":"copying")(?=.*"percent":)/s))
    // Followed on the same backend, by the name the RPC gave.
    expect(calls('GetOperation').map((c) => c.request.name)).toContain('operations/export-1')
  })

  it('an operation ending in a google.rpc.Status: the task completes with a tool error carrying the status and its details', async () => {
    const created = (await call({ table: 'locked', steps: 2, fail: true })).body.result!
    const task = await settled(created.taskId)
    expect(task.status).toBe('completed')
    expect(task.result.isError).toBe(true)
    expect(task.result.content[0].text).toBe('rpc error: code = FailedPrecondition desc = table locked is locked')
    expect(JSON.parse(task.result.content[1].text)).toEqual({
      details: [{ '@type': 'type.googleapis.com/google.rpc.Status', code: 9, message: 'inner detail' }],
    })
  })

  it('an operation failing with google.rpc.ErrorInfo and RetryInfo details: the real error, the details decoded (google/rpc/error_details.proto)', async () => {
    const created = (await call({ table: 'quota', steps: 1, fail: true })).body.result!
    const task = await settled(created.taskId)
    expect(task.result.isError).toBe(true)
    expect(task.result.content[0].text).toBe('rpc error: code = FailedPrecondition desc = table quota is locked')
    expect(JSON.parse(task.result.content[1].text)).toEqual({
      details: [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'QUOTA_EXCEEDED',
          domain: 'exports.example.com',
          metadata: { table: 'quota' },
        },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3.500s' },
      ],
    })
  })

  it('an operation failing with a detail of an unregistered type keeps its code and message, the detail as {"@type", "value"}', async () => {
    const created = (await call({ table: 'unregistered', steps: 1, fail: true })).body.result!
    const task = await settled(created.taskId)
    expect(task.result.content[0].text).toBe('rpc error: code = FailedPrecondition desc = table unregistered is locked')
    expect(JSON.parse(task.result.content[1].text)).toEqual({
      details: [{ '@type': `type.googleapis.com/${UNREGISTERED_TYPE}`, value: 'CCo=' }],
    })
  })

  it('tasks/cancel cancels the operation: the backend sees CancelOperation with its name', async () => {
    const before = calls('CancelOperation').length
    const created = (await call({ table: 'huge', steps: 100_000 })).body.result!
    await sleep(100)
    const ack = await modernRequest(http.url, 'tasks/cancel', { taskId: created.taskId }, TASKS)
    expect(ack.body.result).toMatchObject({ resultType: 'complete' })
    for (let i = 0; i < 100 && calls('CancelOperation').length === before; i++) await sleep(10)
    const cancelled = calls('CancelOperation').slice(before)
    expect(cancelled).toHaveLength(1)
    const started = calls('ExportTable').find((c) => c.request.table === 'huge')
    expect(started).toBeDefined()
    expect(cancelled[0]!.request.name).toMatch(/^operations\/export-\d+$/)
    expect((await modernRequest(http.url, 'tasks/get', { taskId: created.taskId }, TASKS)).body.result!.status).toBe('cancelled')
  })

  it('without a task (initialize era): the call polls the operation to its end and answers with the response, metadata as progress', async () => {
    const client = new ClientV1({ name: 'lro', version: '0' })
    await client.connect(new HttpV1(new URL(http.url)))
    try {
      const progress: unknown[] = []
      const result = await client.callTool({ name: 'ExportTable', arguments: { table: 'users', steps: 2 } }, undefined, {
        onprogress: (p) => void progress.push(p),
      })
      expect(result.structuredContent).toEqual({ uri: 'gs://exports/users.csv', rows: '9007199254740993' })
      expect(progress.length).toBeGreaterThan(0)
      expect(JSON.parse((progress[0] as { message: string }).message)).toMatchObject({ stage: 'copying' })
    } finally {
      await client.close()
    }
  })

  it('in process, with implement(): the Operations service implemented beside it', async () => {
    let reads = 0
    const local = createProtoServer(specFromProto(EXPORTS_PROTO))
      .implement('ExportService', { ExportTable: () => ({ name: 'operations/local', done: false }) })
      .implement('google.longrunning.Operations', {
        GetOperation: ({ name }: { name: string }) =>
          ++reads < 2
            ? { name, done: false }
            : {
                name,
                done: true,
                response: { '@type': 'type.googleapis.com/exports.v1.ExportTableResponse', uri: 'file:///local', rows: '2' },
              },
      })
    const result = await local.call('ExportTable', { table: 't' }, { pollIntervalMs: 5 })
    expect(result.structuredContent).toEqual({ uri: 'file:///local', rows: '2' })
    expect(reads).toBe(2)
    const unbound = await createProtoServer(specFromProto(EXPORTS_PROTO))
      .implement('ExportService', { ExportTable: () => ({ name: 'operations/x', done: false }) })
      .call('ExportTable', {})
    expect(unbound.content[0].text).toContain('google.longrunning.Operations/GetOperation is not bound')
  })
})

describe('a server-streaming RPC as a task', () => {
  it('its messages are the task’s status while it runs, the collected messages its result', async () => {
    const created = (await call({ count: 5, delayMs: 40 }, 'StreamRows')).body.result!
    expect(created.resultType).toBe('task')
    const seen = new Set<string>()
    let task: any
    for (let i = 0; i < 300; i++) {
      task = (await modernRequest(http.url, 'tasks/get', { taskId: created.taskId }, TASKS)).body.result!
      if (task.statusMessage) seen.add(task.statusMessage)
      if (task.status === 'completed') break
      await sleep(10)
    }
    expect(task.result.structuredContent).toEqual({ messages: [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { n: 5 }] })
    expect([...seen]).toContainEqual(expect.stringMatching(/^\{"n":\d\}$/))
  })
})
