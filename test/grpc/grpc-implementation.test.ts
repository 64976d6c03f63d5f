import { fileURLToPath } from 'node:url'
import * as grpcJs from '@grpc/grpc-js'
import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { grpc, grpcImplementation } from '../../src/entries/grpc.ts'
import { encodeStatus, rpcType } from '../../src/grpc/status-details.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { counterSpec } from './counter-spec.ts'
import { serviceDefinition, startGrpcServer, vibeService } from './grpc-server.ts'
import { text } from '../helpers/result.ts'

const spec = specFromProto(EXAMPLE_PROTO)

const DETAILS_REQUEST = {
  vibe: 'details',
  vibeScalar: {
    vibeDouble: 'NaN',
    vibeFloat: 1.5,
    vibeInt32: -3,
    vibeInt64: '9007199254740993',
    vibeUint32: 0,
    vibeUint64: '18446744073709551615',
    vibeSint64: '-5',
    vibeFixed64: '7',
    vibeBool: true,
    vibeBytes: 'aGk=',
    vibeEnum: ['VIBE_GOOD', 'VIBE_UNSET'],
  },
}

describe('grpc-js implementations in process', () => {
  it('the Topeka handlers of a grpc.Server answer the same as over the network', async () => {
    const vibe = vibeService()
    const server = createProtoServer(spec).forward('VibeService', grpcImplementation(vibe.impl))
    expect(text(await server.call('SetVibe', { vibe: 'radical' }))).toBe('{"previousVibe":"chill","vibe":"radical"}')
    expect(vibe.received[0]!.request).toEqual({ vibe: 'radical' })
    expect(text(await server.call('SetVibeObjects', { vibeObject: [{ vibe: 'a' }, {}] }))).toBe('{"vibeObject":[{},{"vibe":"a"}]}')
  })

  it('call.request is what @grpc/proto-loader deserialises from the same bytes', async () => {
    let request: unknown
    const server = createProtoServer(spec).forward(
      'VibeService',
      grpcImplementation({
        setVibeDetails: (call: grpcJs.ServerUnaryCall<unknown, unknown>, callback: grpcJs.sendUnaryData<unknown>) => {
          request = call.request
          callback(null, {})
        },
      }),
    )
    expect((await server.call('SetVibeDetails', DETAILS_REQUEST)).isError).toBe(false)
    // The oracle: proto-loader's own deserializer over the binary of the same request.
    const root = protobuf.loadSync(EXAMPLE_PROTO)
    const type = root.lookupType('examples.v1.SetVibeDetailsRequest')
    const bytes = Buffer.from(
      type
        .encode(
          type.fromObject({
            vibe: 'details',
            vibeScalar: {
              vibeDouble: NaN,
              vibeFloat: 1.5,
              vibeInt32: -3,
              vibeInt64: '9007199254740993',
              vibeUint32: 0,
              vibeUint64: '18446744073709551615',
              vibeSint64: '-5',
              vibeFixed64: '7',
              vibeBool: true,
              vibeBytes: Buffer.from('hi'),
              vibeEnum: [1, 0],
            },
          }),
        )
        .finish(),
    )
    const expected = serviceDefinition(EXAMPLE_PROTO, 'examples.v1.VibeService').SetVibeDetails!.requestDeserialize(bytes)
    expect(request).toEqual(expected)
    expect(request).toMatchObject({
      vibeScalar: {
        vibeInt64: '9007199254740993',
        vibeEnum: ['VIBE_GOOD', 'VIBE_UNSET'],
        vibeBytes: Buffer.from('hi'),
        vibeUint32: 0,
        _vibeUint32: 'vibeUint32',
      },
    })
  })

  it('call.metadata is a grpc-js Metadata of the allowed headers', async () => {
    let metadata: grpcJs.Metadata | undefined
    const server = createProtoServer(spec).forward(
      'VibeService',
      grpcImplementation({
        GetVibe: (call: grpcJs.ServerUnaryCall<unknown, unknown>, callback: grpcJs.sendUnaryData<unknown>) => {
          metadata = call.metadata
          callback(null, { vibe: 'ok' })
        },
      }),
    )
    await server.call('GetVibe', {}, { headers: { authorization: 'Bearer t', traceparent: 'tp', cookie: 'c=1' } })
    expect(metadata).toBeInstanceOf(grpcJs.Metadata)
    expect(metadata!.getMap()).toEqual({ authorization: 'Bearer t', traceparent: 'tp' })
  })

  it('callback({ code, details }) is that status; a thrown error is Unknown; trailers carry details', async () => {
    const errorInfo = rpcType('ErrorInfo')
    const trailer = new grpcJs.Metadata()
    trailer.set(
      'grpc-status-details-bin',
      Buffer.from(
        encodeStatus(5, 'vibe not found', [
          {
            typeUrl: 'type.googleapis.com/google.rpc.ErrorInfo',
            value: errorInfo.encode(errorInfo.fromObject({ reason: 'GONE' })).finish(),
          },
        ]),
      ),
    )
    const server = createProtoServer(spec).forward(
      'VibeService',
      grpcImplementation({
        SetVibe: (_call: unknown, callback: grpcJs.sendUnaryData<unknown>) =>
          callback({ code: grpcJs.status.NOT_FOUND, details: 'vibe not found', metadata: trailer }),
        GetVibe: () => {
          throw new Error('handler bug')
        },
        SetVibeArray: (_call: unknown, callback: grpcJs.sendUnaryData<unknown>) =>
          callback({ code: grpcJs.status.INVALID_ARGUMENT, details: 'bad array' }),
      }),
    )
    const notFound = await server.call('SetVibe', { vibe: 'x' })
    expect(notFound.content).toEqual([
      { type: 'text', text: 'rpc error: code = NotFound desc = vibe not found' },
      { type: 'text', text: '{"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"GONE"}]}' },
    ])
    expect(text(await server.call('GetVibe', {}))).toBe('rpc error: code = Unknown desc = handler bug')
    expect(text(await server.call('SetVibeArray', {}))).toBe('rpc error: code = InvalidArgument desc = bad array')
    expect(text(await server.call('SetVibeObjects', {}))).toBe(
      'rpc error: code = Unimplemented desc = method SetVibeObjects not implemented',
    )
  })

  it('responses go through fromObject as proto-loader serialises them (Buffer bytes, enum names, Long strings)', async () => {
    const server = createProtoServer(spec).forward(
      'VibeService',
      grpcImplementation({
        SetVibeArray: (_call: unknown, callback: grpcJs.sendUnaryData<unknown>) =>
          callback(null, { vibeArray: { vibeByteses: [Buffer.from('yo')], vibeInt64s: ['-42'], vibeDoubles: [0.25] } }),
      }),
    )
    expect(text(await server.call('SetVibeArray', {}))).toBe(
      '{"vibeArray":{"vibeDoubles":[0.25],"vibeInt64s":["-42"],"vibeByteses":["eW8="]}}',
    )
  })

  it('an MCP cancel marks the call cancelled and emits "cancelled"', async () => {
    let call: grpcJs.ServerUnaryCall<unknown, unknown> | undefined
    const server = createProtoServer(spec).forward(
      'VibeService',
      grpcImplementation({
        GetVibe: (c: grpcJs.ServerUnaryCall<unknown, unknown>) => {
          call = c
        },
      }),
    )
    const abort = new AbortController()
    void server.call('GetVibe', {}, { signal: abort.signal })
    await expect.poll(() => call).toBeDefined()
    const event = new Promise((resolve) => call!.on('cancelled', resolve))
    expect(call!.cancelled).toBe(false)
    abort.abort()
    await event
    expect(call!.cancelled).toBe(true)
  })

  it('server-streaming handlers write and end; the cap cancels them; an error event is the status', async () => {
    const cancelledAt: number[] = []
    const handlers = {
      Count: (call: grpcJs.ServerWritableStream<any, any>) => {
        let n = 0
        call.on('cancelled', () => cancelledAt.push(n))
        const next = (): void => {
          if (call.cancelled) return
          if (n === call.request.to) {
            if (call.request.label === 'fail') call.emit('error', { code: grpcJs.status.RESOURCE_EXHAUSTED, details: 'too many' })
            else call.end()
            return
          }
          call.write({ n: ++n, big: '1' })
          setImmediate(next)
        }
        next()
      },
    }
    const server = createProtoServer(counterSpec()).forward('CounterService', grpcImplementation(handlers, { streamCap: 3 }))
    expect(text(await server.call('Count', { to: 2 }))).toBe('{"messages":[{"n":1,"big":"1"},{"n":2,"big":"1"}]}')
    const cut = await server.call('Count', { to: 50 })
    expect(cut.structuredContent).toEqual({ messages: [1, 2, 3].map((n) => ({ n, big: '1' })) })
    expect(text(cut, 1)).toMatch(/^stream cut at 3 messages/)
    expect(cancelledAt).toHaveLength(1)
    expect(cancelledAt[0]).toBeLessThan(50)
    expect(text(await server.call('Count', { to: 1, label: 'fail' }))).toBe('rpc error: code = ResourceExhausted desc = too many')
  })
})

describe('grpc-js server-streaming implementations and cancellation', () => {
  it('an MCP cancel ends a stream whose handler has gone quiet (the tool call does not hang)', async () => {
    let observed = false
    const handlers = {
      Count: (call: grpcJs.ServerWritableStream<any, any>) => {
        call.on('cancelled', () => {
          observed = true
        })
        call.write({ n: 1 })
        // Never ends: only the cancel can finish this call.
      },
    }
    const server = createProtoServer(counterSpec()).forward('CounterService', grpcImplementation(handlers))
    const abort = new AbortController()
    // Cancelled once the tool has collected the first message and waits for the next.
    const result = await server.call(
      'Count',
      { to: 5 },
      {
        signal: abort.signal,
        progress: async () => {
          setImmediate(() => abort.abort())
        },
      },
    )
    expect(result).toMatchObject({ isError: true })
    expect(text(result)).toBe('rpc error: code = Canceled desc = the request was cancelled')
    expect(observed).toBe(true)
  })
})

describe('grpc-js implementations in process: the request form (differential)', () => {
  const SHAPES = fileURLToPath(new URL('../../fixtures/protos/grpc/shapes.proto', import.meta.url))
  const CASES: unknown[] = [
    {},
    { name: 'circle', radius: 2.5, color: 'COLOR_UNSET', visible: false },
    { corner: { x: '0', y: -1 }, named: { a: { x: '-9007199254740993' }, b: {} }, colors: { '-5': 'COLOR_BLUE', 7: 'COLOR_RED' } },
    { label: 'l', path: [{ x: '1' }, { y: 2 }, {}], blob: 'AAEC/w==', at: '2024-05-06T07:08:09.5Z', id: '18446744073709551615' },
  ]

  it('each request reaches an in-process handler exactly as a grpc-js server with proto-loader receives it', async () => {
    const spec = specFromProto(SHAPES)
    const definition = serviceDefinition(SHAPES, 'shapes.v1.ShapeService')
    const seen = { network: [] as unknown[], inProcess: [] as unknown[] }
    const handlers = (into: unknown[]) => ({
      Draw: (call: grpcJs.ServerUnaryCall<unknown, unknown>, callback: grpcJs.sendUnaryData<unknown>) => {
        into.push(call.request)
        callback(null, call.request)
      },
    })
    const grpcServer = await startGrpcServer([{ definition, impl: handlers(seen.network) }])
    const backend = grpc(grpcServer.address)
    try {
      const overNetwork = createProtoServer(spec).forward('ShapeService', backend)
      const inProcess = createProtoServer(spec).forward('ShapeService', grpcImplementation(handlers(seen.inProcess)))
      for (const args of CASES) {
        const [a, b] = [await overNetwork.call('Draw', args), await inProcess.call('Draw', args)]
        expect(a.isError, JSON.stringify(a)).toBe(false)
        expect(b).toEqual(a)
      }
    } finally {
      backend.close()
      await grpcServer.stop()
    }
    expect(seen.inProcess).toEqual(seen.network)
    expect(seen.network[1]).toMatchObject({ kind: 'radius', _color: 'color', _visible: 'visible' })
  })
})
