import { Client } from '@modelcontextprotocol/client'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { grpc, grpcImplementation } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { counterSpec } from './counter-spec.ts'
import { makeAjv, specFromProto } from '../helpers/spec-from-proto.ts'
import { COUNTER_PROTO, counterService, startGrpcServer } from './grpc-server.ts'
import { progressBeforeResult, recordWire, streamPair } from './stream-transport.ts'
import { text } from '../helpers/result.ts'

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1)

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** A grpc-js server with the CounterService; `cancelled` as in {@link counterService}. */
async function counterServer() {
  const counter = counterService()
  const server = await startGrpcServer([counter])
  cleanups.push(() => server.stop())
  return { server, cancelled: counter.cancelled }
}

describe('server-streaming tools, in process', () => {
  it('an array, an iterable and an async iterable are collected into {"messages":[...]}', async () => {
    const sources = {
      array: () => [{ n: 1 }, { n: 2, big: 3 }],
      iterable: () => new Set([{ n: 1 }, { n: 2, big: 3 }]),
      asyncIterable: async function* () {
        yield { n: 1 }
        yield { n: 2, big: 3 }
      },
    }
    for (const [kind, source] of Object.entries(sources)) {
      const server = createProtoServer(counterSpec()).implement('CounterService', { Count: source })
      const result = await server.call('Count', { to: 2 })
      expect(result, kind).toEqual({
        content: [{ type: 'text', text: '{"messages":[{"n":1},{"n":2,"big":"3"}]}' }],
        isError: false,
        structuredContent: { messages: [{ n: 1 }, { n: 2, big: '3' }] },
      })
    }
  })

  it('the tool says so: outputSchema {"messages":[...]}; in the topeka profile there is no tool', async () => {
    const count = counterSpec().tools.find((tool) => tool.name === 'Count')!
    expect(count.outputSchema).toMatchObject({ type: 'object', properties: { messages: { type: 'array' } }, required: ['messages'] })
    const topeka = createProtoServer(specFromProto(COUNTER_PROTO, { profile: 'topeka' }))
    expect(topeka.listTools().map((tool) => tool.name)).not.toContain('Count')
    topeka.implement('CounterService', { Count: () => [{ n: 1 }] })
    await expect(topeka.call('Count', {})).rejects.toMatchObject({ code: -32602 })
  })

  it('each message is reported through context.progress, in order', async () => {
    const server = createProtoServer(counterSpec()).implement('CounterService', {
      Count: (r: { to: number }) => range(r.to).map((n) => ({ n })),
    })
    const seen: Array<[number, string | undefined]> = []
    await server.call(
      'Count',
      { to: 3 },
      {
        progress: async (p, m) => {
          seen.push([p, m])
        },
      },
    )
    expect(seen).toEqual([
      [1, '{"n":1}'],
      [2, '{"n":2}'],
      [3, '{"n":3}'],
    ])
  })

  it('the cap ends the stream (closing the iterator) with the messages so far and a note; exactly the cap is not cut', async () => {
    let closed = false
    const server = createProtoServer(counterSpec())
    server.forward('CounterService', grpcImplementation({}, { streamCap: 3 }))
    // A plain implementation keeps the default cap of 1000.
    server.implement('CounterService', {
      Count: async function* (r: { to: number }) {
        try {
          for (const n of range(r.to)) yield { n }
        } finally {
          closed = true
        }
      },
    })
    const big = await server.call('Count', { to: 5000 })
    expect(JSON.parse(text(big)).messages).toHaveLength(1000)
    expect(text(big, 1)).toBe(
      'stream cut at 1000 messages (the stream cap): the remaining messages were not collected and the stream was cancelled',
    )
    expect(closed).toBe(true)
    const exact = await server.call('Count', { to: 1000 })
    expect(exact.content).toHaveLength(1)
  })

  it('a cancel ends the call while the stream is quiet; the generator is closed once it wakes', async () => {
    let wake!: () => void
    let closed = false
    const server = createProtoServer(counterSpec()).implement('CounterService', {
      Count: async function* () {
        try {
          yield { n: 1 }
          await new Promise<void>((resolve) => {
            wake = resolve
          })
          yield { n: 2 }
        } finally {
          closed = true
        }
      },
    })
    const abort = new AbortController()
    const result = await server.call(
      'Count',
      { to: 2 },
      {
        signal: abort.signal,
        progress: async () => {
          setImmediate(() => abort.abort())
        },
      },
    )
    expect(result).toEqual({
      content: [{ type: 'text', text: 'rpc error: code = Canceled desc = the request was cancelled' }],
      isError: true,
    })
    expect(closed).toBe(false)
    wake()
    await vi.waitFor(() => expect(closed).toBe(true))
  })

  it('a stream that fails midway is a status error; a non-stream return is an encoding error; a bad message names its position', async () => {
    const server = createProtoServer(counterSpec()).implement('CounterService', {
      Count: async function* (r: { label: string }) {
        if (r.label === 'object') return
        yield { n: 1 }
        if (r.label === 'bad') yield { n: 'x' }
        throw Object.assign(new Error('lost count'), { code: 'DataLoss' })
      },
    })
    expect(await server.call('Count', {})).toEqual({
      content: [{ type: 'text', text: 'rpc error: code = DataLoss desc = lost count' }],
      isError: true,
    })
    expect(text(await server.call('Count', { label: 'bad' }))).toMatch(/^encoding response: message 2 of the stream: n: /)
    const notStream = createProtoServer(counterSpec()).implement('CounterService', { Count: () => ({ n: 1 }) })
    expect(text(await notStream.call('Count', {}))).toBe(
      'encoding response: a server-streaming method must return an array, an iterable or an async iterable of responses',
    )
  })
})

describe('server-streaming tools over gRPC', () => {
  it('collects a real server stream, 64-bit values as strings', async () => {
    const { server: grpcServer } = await counterServer()
    const backend = grpc(grpcServer.address)
    cleanups.push(() => backend.close())
    const server = createProtoServer(counterSpec()).forward('CounterService', backend)
    const result = await server.call('Count', { to: 3, label: 'x' })
    expect(result.structuredContent).toEqual({
      messages: range(3).map((n) => ({ n, label: 'x', big: String(2n ** 60n + BigInt(n)) })),
    })
    // The tool's outputSchema describes the collected result (64-bit as strings included).
    const validate = makeAjv().compile(server.listTools().find((tool) => tool.name === 'Count')!.outputSchema!)
    expect(validate(result.structuredContent), JSON.stringify(validate.errors)).toBe(true)
    expect(validate({ messages: [{ n: 'one' }] })).toBe(false)
    expect(text(await server.call('Once', { to: 9 }))).toBe('{"n":9}')
  })

  it('a stream ending in a status error gives that status', async () => {
    const { server: grpcServer } = await counterServer()
    const backend = grpc(grpcServer.address)
    cleanups.push(() => backend.close())
    const server = createProtoServer(counterSpec()).forward('CounterService', backend)
    expect(text(await server.call('Count', { to: 2, label: 'fail' }))).toBe('rpc error: code = Aborted desc = aborted after 2')
  })

  it('the cap cancels the gRPC stream', async () => {
    const { server: grpcServer, cancelled } = await counterServer()
    const backend = grpc(grpcServer.address, { streamCap: 5 })
    cleanups.push(() => backend.close())
    const server = createProtoServer(counterSpec()).forward('CounterService', backend)
    const result = await server.call('Count', { to: 100000 })
    expect(result.structuredContent).toEqual({ messages: range(5).map((n) => ({ n, big: String(2n ** 60n + BigInt(n)) })) })
    expect(text(result, 1)).toMatch(/^stream cut at 5 messages/)
    expect(await cancelled).toBeLessThan(100000)
  })

  it('a real MCP client with a progress token receives one notifications/progress per message', async () => {
    const { server: grpcServer } = await counterServer()
    const backend = grpc(grpcServer.address)
    cleanups.push(() => backend.close())
    const server = createProtoServer(counterSpec()).forward('CounterService', backend)
    const { stdin, stdout, transport } = streamPair()
    const serving = server.serveStdio({ stdin, stdout })
    const client = new Client({ name: 'progress-test', version: '1.0.0' })
    await client.connect(transport)
    const wire = recordWire(transport)
    const progress: number[] = []
    const result = await client.callTool(
      { name: 'Count', arguments: { to: 4, label: 'p' } },
      {
        onprogress: (p) => {
          progress.push(p.progress)
        },
      },
    )
    const messages = range(4).map((n) => ({ n, label: 'p', big: String(2n ** 60n + BigInt(n)) }))
    expect(result.structuredContent).toEqual({ messages })
    // Every notification is on the wire, in order, before the result (the client may run the last handler too late).
    expect(progressBeforeResult(wire)).toEqual(messages.map((m, i) => [i + 1, JSON.stringify(m)]))
    expect(progress).toEqual(range(progress.length))
    // Without a progress token, no notification is sent.
    const quiet = recordWire(transport)
    await client.callTool({ name: 'Count', arguments: { to: 2 } })
    expect(progressBeforeResult(quiet)).toEqual([])
    await client.close()
    await serving
  })
})
