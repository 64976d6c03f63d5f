import * as grpcJs from '@grpc/grpc-js'
import { Client } from '@modelcontextprotocol/client'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { afterEach, describe, expect, it } from 'vitest'
import { grpc, type GrpcBackend } from '../../src/entries/grpc.ts'
import { encodeStatus, rpcType } from '../../src/grpc/status-details.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { startGrpcServer, vibeService, type GrpcTestServer } from './grpc-server.ts'
import { streamPair } from './stream-transport.ts'
import { text } from '../helpers/result.ts'

const spec = specFromProto(EXAMPLE_PROTO)
/** The package's shipped protos (google/rpc/error_details.proto among them). */
const PROTOS = fileURLToPath(new URL('../../protos', import.meta.url))

const cleanups: Array<() => unknown> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

async function forwarded(overrides: grpcJs.UntypedServiceImplementation = {}, options: Parameters<typeof grpc>[1] = {}) {
  const vibe = vibeService(overrides)
  const grpcServer = await startGrpcServer([vibe])
  const backend = grpc(grpcServer.address, options)
  cleanups.push(
    () => grpcServer.stop(),
    () => backend.close(),
  )
  const server = createProtoServer(spec).forward('VibeService', backend)
  return { server, received: vibe.received, grpcServer, backend }
}

describe('the gRPC backend against a real grpc-js server (Topeka cases)', () => {
  it('SetVibe returns the previous and new vibe; the backend received exactly the request', async () => {
    const { server, received } = await forwarded()
    const result = await server.call('SetVibe', { vibe: 'radical' })
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"previousVibe":"chill","vibe":"radical"}' }],
      isError: false,
      structuredContent: { previousVibe: 'chill', vibe: 'radical' },
    })
    expect(received.map((c) => [c.method, c.request])).toEqual([['SetVibe', { vibe: 'radical' }]])
  })

  it('GetVibe', async () => {
    const { server } = await forwarded()
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"chill"}')
    await server.call('SetVibe', { vibe: 'mellow' })
    expect(text(await server.call('GetVibe'))).toBe('{"vibe":"mellow"}')
  })

  it('SetVibeDetails carries bool, double and int32 in binary', async () => {
    const { server, received } = await forwarded()
    const result = await server.call('SetVibeDetails', {
      vibe: 'details',
      vibeScalar: { vibeBool: true, vibeDouble: 2.5, vibeInt32: -7, vibeInt64: '9007199254740993' },
    })
    expect(text(result)).toBe('{"previousVibe":"chill","vibe":"details:true:2.5:-7"}')
    const scalar = received[0]!.request.vibeScalar
    expect([scalar.vibeBool, scalar.vibeDouble, scalar.vibeInt32, scalar.vibeInt64]).toEqual([true, 2.5, -7, '9007199254740993'])
  })

  it('SetVibeArray round-trips every repeated scalar kind', async () => {
    const { server, received } = await forwarded()
    const vibeArray = {
      vibeDoubles: [1.5, -2],
      vibeFloats: [0.5],
      vibeInt32s: [1, -2],
      vibeInt64s: ['-9007199254740993'],
      vibeUint32s: [4294967295],
      vibeUint64s: ['18446744073709551615'],
      vibeSint32s: [-3],
      vibeSint64s: ['-4'],
      vibeFixed32s: [5],
      vibeFixed64s: ['6'],
      vibeSfixed32s: [-7],
      vibeSfixed64s: ['-8'],
      vibeBools: [true, false],
      vibeByteses: ['aGk='],
    }
    const result = await server.call('SetVibeArray', { vibeArray })
    expect(JSON.parse(text(result))).toEqual({ vibeArray })
    expect(received[0]!.request.vibeArray.vibeByteses.map((b: Buffer) => b.toString())).toEqual(['hi'])
  })

  it('SetVibeObjects', async () => {
    const { server } = await forwarded()
    const result = await server.call('SetVibeObjects', { vibeObject: [{ vibe: 'a' }, { vibe: 'b' }] })
    expect(text(result)).toBe('{"vibeObject":[{"vibe":"b"},{"vibe":"a"}]}')
  })
})

describe('statuses', () => {
  it('NotFound keeps its code, message and details (the details as a second text item)', async () => {
    const errorInfo = rpcType('ErrorInfo')
    const badRequest = rpcType('BadRequest')
    const details = encodeStatus(5, 'vibe not found', [
      {
        typeUrl: 'type.googleapis.com/google.rpc.ErrorInfo',
        value: errorInfo.encode(errorInfo.fromObject({ reason: 'NO_VIBE', domain: 'vibes.example', metadata: { vibe: 'lost' } })).finish(),
      },
      {
        typeUrl: 'type.googleapis.com/google.rpc.BadRequest',
        value: badRequest.encode(badRequest.fromObject({ field_violations: [{ field: 'vibe', description: 'unknown vibe' }] })).finish(),
      },
      { typeUrl: 'type.googleapis.com/examples.v1.GetVibeResponse', value: new Uint8Array([10, 3, 0x61, 0x62, 0x63]) },
      { typeUrl: 'type.example/acme.Unknown', value: new Uint8Array([1, 2, 3]) },
    ])
    const { server } = await forwarded({
      GetVibe: (_call: unknown, callback: grpcJs.sendUnaryData<unknown>) => {
        const metadata = new grpcJs.Metadata()
        metadata.set('grpc-status-details-bin', Buffer.from(details))
        callback({ code: grpcJs.status.NOT_FOUND, details: 'vibe not found', metadata })
      },
    })
    const result = await server.call('GetVibe', {})
    expect(result.isError).toBe(true)
    expect(result.content).toEqual([
      { type: 'text', text: 'rpc error: code = NotFound desc = vibe not found' },
      { type: 'text', text: expect.any(String) },
    ])
    expect(JSON.parse(result.content[1]!.text)).toEqual({
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'NO_VIBE', domain: 'vibes.example', metadata: { vibe: 'lost' } },
        { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'vibe', description: 'unknown vibe' }] },
        { '@type': 'type.googleapis.com/examples.v1.GetVibeResponse', vibe: 'abc' },
        { '@type': 'type.example/acme.Unknown', value: 'AQID' },
      ],
    })
  })

  it('the standard details of google/rpc/error_details.proto (as a server built from the shipped file encodes them) decode', async () => {
    const shipped = new protobuf.Root()
    shipped.resolvePath = (_origin, target) => (target.startsWith('google/protobuf/') ? target : `${PROTOS}/${target}`)
    shipped.loadSync('google/rpc/error_details.proto')
    const pack = (name: string, value: Record<string, unknown>) => {
      const type = shipped.lookupType(`google.rpc.${name}`)
      return { typeUrl: `type.googleapis.com/google.rpc.${name}`, value: type.encode(type.fromObject(value)).finish() }
    }
    const details = encodeStatus(8, 'slow down', [
      pack('ErrorInfo', { reason: 'RATE', domain: 'vibes.example' }),
      pack('RetryInfo', { retryDelay: { seconds: 2, nanos: 0 } }),
      pack('BadRequest', { fieldViolations: [{ field: 'vibe', description: 'too long', reason: 'MAX_LEN' }] }),
      pack('QuotaFailure', {
        violations: [{ subject: 'user:1', quotaDimensions: { region: 'eu' }, quotaValue: 10, futureQuotaValue: 20 }],
      }),
    ])
    const { server } = await forwarded({
      GetVibe: (_call: unknown, callback: grpcJs.sendUnaryData<unknown>) => {
        const metadata = new grpcJs.Metadata()
        metadata.set('grpc-status-details-bin', Buffer.from(details))
        callback({ code: grpcJs.status.RESOURCE_EXHAUSTED, details: 'slow down', metadata })
      },
    })
    const result = await server.call('GetVibe', {})
    expect(result.content[0]!.text).toBe('rpc error: code = ResourceExhausted desc = slow down')
    expect(JSON.parse(result.content[1]!.text)).toEqual({
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'RATE', domain: 'vibes.example' },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' },
        {
          '@type': 'type.googleapis.com/google.rpc.BadRequest',
          fieldViolations: [{ field: 'vibe', description: 'too long', reason: 'MAX_LEN' }],
        },
        {
          '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
          violations: [{ subject: 'user:1', quotaDimensions: { region: 'eu' }, quotaValue: '10', futureQuotaValue: '20' }],
        },
      ],
    })
  })

  it('a status without details is one text item with the code name', async () => {
    const { server } = await forwarded({
      SetVibe: (_call: unknown, callback: grpcJs.sendUnaryData<unknown>) =>
        callback({ code: grpcJs.status.PERMISSION_DENIED, details: 'no "vibes"\nfor you' }),
    })
    expect(await server.call('SetVibe', { vibe: 'x' })).toEqual({
      content: [{ type: 'text', text: 'rpc error: code = PermissionDenied desc = no "vibes"\nfor you' }],
      isError: true,
    })
  })

  it('a handler slower than the deadline gives DeadlineExceeded', async () => {
    let release: (() => void) | undefined
    const { server } = await forwarded(
      {
        GetVibe: (_call: unknown, callback: grpcJs.sendUnaryData<unknown>) => {
          release = () => callback(null, { vibe: 'late' })
        },
      },
      { deadlineMs: 200 },
    )
    const started = Date.now()
    const result = await server.call('GetVibe', {})
    expect(text(result)).toMatch(/^rpc error: code = DeadlineExceeded desc = /)
    expect(Date.now() - started).toBeGreaterThanOrEqual(190)
    release?.()
  })

  it('a stopped backend gives Unavailable; restarted on the same port, the next call succeeds', async () => {
    const { server, grpcServer } = await forwarded()
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"chill"}')
    await grpcServer.stop()
    const down = await server.call('GetVibe', {})
    expect(text(down)).toMatch(/^rpc error: code = Unavailable desc = /)
    expect(text(await server.call('GetVibe', {}))).toMatch(/^rpc error: code = Unavailable desc = /)
    await grpcServer.start()
    expect(await server.call('SetVibe', { vibe: 'back' })).toMatchObject({ isError: false })
  })

  it('a bad target, option or backend is a clear error at forward time', () => {
    expect(() => grpc('')).toThrow('grpc(): the target must be an address')
    expect(() => grpc('127.0.0.1:1', { metadata: { 'bad key': 'x' } })).toThrow(/^grpc\(\): bad metadata option: /)
    expect(() => grpc('127.0.0.1:1', { deadlineMs: 0 })).toThrow('grpc(): option "deadlineMs" must be an integer of at least 1, got 0')
    const server = createProtoServer(spec)
    expect(() => server.forward('VibeService', {} as never)).toThrow('the backend of "VibeService" must have a bind() method')
    const unused = grpc('127.0.0.1:1')
    cleanups.push(() => unused.close())
    expect(() => server.forward('NopeService', unused)).toThrow('unknown service "NopeService"')
    expect(() => server.forward('VibeService', { bind: () => ({}), streamCap: 0 })).toThrow('must be a positive integer, got 0')
  })
})

describe('headers, cancellation', () => {
  it('forwards the authorization header of a real HTTP request as metadata, and nothing not allowed', async () => {
    const { server, received } = await forwarded()
    const handle = await server.serveHttp({ port: 0 })
    cleanups.push(() => handle.close())
    const client = new Client({ name: 'grpc-test', version: '1.0.0' })
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client')
    await client.connect(
      new StreamableHTTPClientTransport(new URL(handle.url), {
        requestInit: {
          headers: {
            authorization: 'Bearer vibes-token',
            'x-secret': 'not forwarded',
            traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          },
        },
      }),
    )
    cleanups.push(() => client.close())
    const result = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'authorized' } })
    expect(result.isError).toBe(false)
    const metadata = received[0]!.metadata
    expect(metadata.get('authorization')).toEqual(['Bearer vibes-token'])
    expect(metadata.get('traceparent')).toEqual(['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'])
    expect(metadata.get('x-secret')).toEqual([])
  })

  it('the allow-list is configurable', async () => {
    const { server, received } = await forwarded({}, { forwardHeaders: ['X-Tenant'], metadata: { 'x-gateway': 'proto-mcp' } })
    await server.call('GetVibe', {}, { headers: { 'x-tenant': 'acme', authorization: 'Bearer no' } })
    expect(received[0]!.metadata.get('x-tenant')).toEqual(['acme'])
    expect(received[0]!.metadata.get('x-gateway')).toEqual(['proto-mcp'])
    expect(received[0]!.metadata.get('authorization')).toEqual([])
  })

  it('cancelling the MCP request (a real client over stdio framing) cancels the gRPC call', async () => {
    let observed: Promise<boolean> | undefined
    let started!: () => void
    const running = new Promise<void>((resolve) => {
      started = resolve
    })
    const { server } = await forwarded(
      {
        GetVibe: (call: grpcJs.ServerUnaryCall<unknown, unknown>) => {
          observed = new Promise((resolve) => call.on('cancelled', () => resolve(call.cancelled)))
          started()
        },
      },
      { deadlineMs: 600_000 },
    ) // far past the test's timeout: only the MCP cancel can end the call
    const { stdin, stdout, transport } = streamPair()
    const serving = server.serveStdio({ stdin, stdout })
    const client = new Client({ name: 'grpc-cancel', version: '1.0.0' })
    await client.connect(transport)
    const abort = new AbortController()
    const call = client.callTool({ name: 'GetVibe', arguments: {} }, { signal: abort.signal })
    await running
    abort.abort()
    await expect(call).rejects.toThrow()
    expect(await observed).toBe(true)
    await client.close()
    await serving
  })
})

describe('targets', () => {
  it('accepts a grpc-js Channel and a grpc-js Client', async () => {
    const vibe = vibeService()
    const grpcServer: GrpcTestServer = await startGrpcServer([vibe])
    const channel = new grpcJs.Channel(grpcServer.address, grpcJs.credentials.createInsecure(), {})
    const client = new grpcJs.Client(grpcServer.address, grpcJs.credentials.createInsecure())
    const backends: GrpcBackend[] = [grpc(channel), grpc(client)]
    cleanups.push(
      () => grpcServer.stop(),
      () => channel.close(),
      () => client.close(),
    )
    for (const backend of backends) {
      const server = createProtoServer(spec).forward('examples.v1.VibeService', backend)
      expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"chill"}')
    }
    expect(vibe.received).toHaveLength(2)
    // close() leaves a Channel or Client it was given open: they stay the caller's.
    for (const backend of backends) backend.close()
    expect(channel.getConnectivityState(false)).not.toBe(grpcJs.connectivityState.SHUTDOWN)
    expect(client.getChannel().getConnectivityState(false)).not.toBe(grpcJs.connectivityState.SHUTDOWN)
  })

  it('close() shuts the channel grpc() opened for an address', async () => {
    const { server, backend } = await forwarded()
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"chill"}')
    backend.close()
    expect(await server.call('GetVibe', {})).toMatchObject({ isError: true })
  })
})
