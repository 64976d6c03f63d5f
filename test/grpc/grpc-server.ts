/**
 * A real grpc-js server on 127.0.0.1 for the gRPC backend tests: services
 * loaded with @grpc/proto-loader from the same protos the MCP side uses.
 */
import { fileURLToPath } from 'node:url'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'

/** The counter proto (a server-streaming RPC). */
export const COUNTER_PROTO = fileURLToPath(new URL('../../fixtures/protos/grpc/counter.proto', import.meta.url))

const LOADER_OPTIONS = { longs: String, enums: String, defaults: true, oneofs: true }

/** The grpc-js service definition of `service` (full name) in `file`. */
export function serviceDefinition(file: string, service: string): grpc.ServiceDefinition {
  return protoLoader.loadSync(file, LOADER_OPTIONS)[service] as grpc.ServiceDefinition
}

/** One call a handler saw. */
export interface ReceivedCall {
  method: string
  request: any
  metadata: grpc.Metadata
}

/** A service as grpc-js takes it. */
export interface ServedService {
  definition: grpc.ServiceDefinition
  impl: grpc.UntypedServiceImplementation
}

/** A running grpc-js server that can be stopped and started again on the same port. */
export interface GrpcTestServer {
  readonly port: number
  readonly address: string
  stop(): Promise<void>
  start(): Promise<void>
}

/** Starts a grpc-js server with `services` on 127.0.0.1 (`port` 0: a free one). */
export async function startGrpcServer(
  services: Array<{ definition: grpc.ServiceDefinition; impl: grpc.UntypedServiceImplementation }>,
  port = 0,
): Promise<GrpcTestServer> {
  let server: grpc.Server | undefined
  let bound = port
  const start = async (): Promise<void> => {
    const next = new grpc.Server()
    for (const { definition, impl } of services) next.addService(definition, impl)
    bound = await new Promise<number>((resolve, reject) =>
      next.bindAsync(`127.0.0.1:${bound}`, grpc.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))),
    )
    server = next
  }
  await start()
  return {
    get port() {
      return bound
    },
    get address() {
      return `127.0.0.1:${bound}`
    },
    start,
    stop: async () => {
      server?.forceShutdown()
      server = undefined
    },
  }
}

/**
 * The Topeka VibeService as a grpc-js implementation: the vibe starts as
 * `chill`; every call is recorded. `overrides` replace single handlers.
 */
export function vibeService(overrides: grpc.UntypedServiceImplementation = {}): {
  definition: grpc.ServiceDefinition
  impl: grpc.UntypedServiceImplementation
  received: ReceivedCall[]
} {
  const received: ReceivedCall[] = []
  let current = 'chill'
  const record = (method: string, call: grpc.ServerUnaryCall<any, any>): void => {
    received.push({ method, request: call.request, metadata: call.metadata })
  }
  const impl: grpc.UntypedServiceImplementation = {
    SetVibe: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      record('SetVibe', call)
      const previousVibe = current
      current = call.request.vibe
      callback(null, { previousVibe, vibe: current })
    },
    GetVibe: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      record('GetVibe', call)
      callback(null, { vibe: current })
    },
    SetVibeDetails: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      record('SetVibeDetails', call)
      const s = call.request.vibeScalar
      const previousVibe = current
      current = `${call.request.vibe}:${s.vibeBool}:${s.vibeDouble}:${s.vibeInt32}`
      callback(null, { previousVibe, vibe: current })
    },
    SetVibeArray: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      record('SetVibeArray', call)
      callback(null, { vibeArray: call.request.vibeArray })
    },
    SetVibeObjects: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => {
      record('SetVibeObjects', call)
      callback(null, { vibeObject: [...call.request.vibeObject].reverse() })
    },
    ...overrides,
  }
  return { definition: serviceDefinition(EXAMPLE_PROTO, 'examples.v1.VibeService'), impl, received }
}

/**
 * The CounterService of counter.proto as grpc-js handlers: `Count` streams
 * 1..`to` (`label: 'fail'` ends in Aborted); `cancelled` resolves with how
 * many messages a Count call had written when it was cancelled.
 */
export function counterService(): {
  definition: grpc.ServiceDefinition
  impl: grpc.UntypedServiceImplementation
  cancelled: Promise<number>
} {
  let onCancel!: (written: number) => void
  const cancelled = new Promise<number>((resolve) => {
    onCancel = resolve
  })
  const impl: grpc.UntypedServiceImplementation = {
    Count: (call: grpc.ServerWritableStream<any, any>) => {
      const { to, label } = call.request
      let n = 0
      call.on('cancelled', () => onCancel(n))
      const next = (): void => {
        if (call.cancelled) return
        if (n === to) {
          if (label === 'fail') call.emit('error', { code: grpc.status.ABORTED, details: `aborted after ${n}` })
          else call.end()
          return
        }
        n++
        call.write({ n, label, big: String(2n ** 60n + BigInt(n)) })
        setImmediate(next)
      }
      next()
    },
    Once: (call: grpc.ServerUnaryCall<any, any>, callback: grpc.sendUnaryData<any>) => callback(null, { n: call.request.to }),
  }
  return { definition: serviceDefinition(COUNTER_PROTO, 'streams.v1.CounterService'), impl, cancelled }
}

/**
 * A unary method `path` (`/pkg.Service/Method`) of raw bytes both ways, for
 * servers that decode requests with a root of their own: each request's
 * bytes go to `seen`, and its answer is the request's own bytes.
 */
export function echoBytesService(path: string, seen: (request: Buffer) => void): ServedService {
  const same = (bytes: Buffer): Buffer => bytes
  const method = path.slice(path.lastIndexOf('/') + 1)
  const definition: grpc.ServiceDefinition = {
    [method]: {
      path,
      requestStream: false,
      responseStream: false,
      requestSerialize: same,
      requestDeserialize: same,
      responseSerialize: same,
      responseDeserialize: same,
    },
  }
  const impl: grpc.UntypedServiceImplementation = {
    [method]: (call: grpc.ServerUnaryCall<Buffer, Buffer>, callback: grpc.sendUnaryData<Buffer>) => {
      seen(call.request)
      callback(null, call.request)
    },
  }
  return { definition, impl }
}
