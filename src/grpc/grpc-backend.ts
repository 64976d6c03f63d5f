/**
 * The gRPC backend (docs/calls.md, "Backends"): each call is encoded to protobuf binary
 * and sent over a grpc-js channel to the method's path, with forwarded
 * headers, a deadline and cancellation; the reply is decoded back.
 */
import { Client, connectivityState, credentials as grpcCredentials, Metadata } from '@grpc/grpc-js'
import type { Channel, ChannelCredentials, ChannelOptions, ClientReadableStream } from '@grpc/grpc-js'
import type { Type } from 'protobufjs'
import {
  DEFAULT_DEADLINE_MS,
  DEFAULT_FORWARDED_HEADERS,
  DEFAULT_RECONNECT_WAIT_MS,
  DEFAULT_STREAM_BYTE_CAP,
  DEFAULT_STREAM_CAP,
  principalMetadata,
  type Backend,
  type BackendMethod,
  type BackendService,
} from '../runtime/backend.ts'
import { checkOptions, integerRule, stringsRule, type OptionRule } from '../runtime/check-options.ts'
import { fromJson } from '../runtime/protojson.ts'
import { messageToJson } from '../runtime/rpc-details.ts'
import { statusError } from '../runtime/status.ts'
import { clientSpan, type ClientSpan } from '../runtime/otel.ts'
import type { CallContext, RpcHandler } from '../runtime/types.ts'
import { addSafely, metadataOf, statusErrorOf } from './metadata.ts'
import { isRecord } from '../contract/is-record.ts'

/** Options of {@link grpc}. */
export interface GrpcOptions {
  /** Channel credentials for a target given as an address. @default grpc.credentials.createInsecure() */
  credentials?: ChannelCredentials
  /** grpc-js channel options for a target given as an address, over the quick-reconnect defaults. @default {} */
  channelOptions?: ChannelOptions
  /** MCP request headers forwarded as gRPC metadata (case-insensitive names). @default ['authorization', 'traceparent'] */
  forwardHeaders?: readonly string[]
  /** Metadata added to every call (after the forwarded headers). @default none */
  metadata?: Readonly<Record<string, string>>
  /**
   * Metadata of the caller the `auth` option verified (docs/serving.md, "Authorization"):
   * metadata key → claim of its token (`sub`, `client_id`, `scope`, `iss`
   * or any claim), e.g. `{ 'x-user': 'sub', 'x-scopes': 'scope' }`. Calls
   * without a verified caller carry none. @default none
   */
  principalMetadata?: Readonly<Record<string, string>>
  /**
   * Metadata made per call, after all the rest (a key it sets replaces
   * theirs): the backend's own credentials, e.g. a service account's
   * token or one from an RFC 8693 exchange of `context.authInfo.token`.
   * A throw fails the call with that error. @default none
   */
  callMetadata?: (context: CallContext) => Record<string, string> | Promise<Record<string, string>>
  /** Milliseconds a call may take before it ends with `DeadlineExceeded`. @default 30000 */
  deadlineMs?: number
  /**
   * Milliseconds a call waits for a channel in reconnect backoff to come back
   * before it is sent anyway (failing fast with `Unavailable` if the backend is
   * still down), capped by the deadline. @default 1000
   */
  reconnectWaitMs?: number
  /** The most messages a server-streaming call collects before it is cut. @default 1000 */
  streamCap?: number
  /** The most bytes of JSON a server-streaming call collects before it is cut (docs/calls.md, "Streaming"). @default 4194304 (4 MiB) */
  streamByteCap?: number
}

/** A gRPC backend for `Server.forward`; `close()` closes the channel it opened (not one it was given). */
export interface GrpcBackend extends Backend {
  close(): void
}

// Quick reconnects: grpc-js's defaults (1 s growing to 120 s) would answer
// Unavailable for minutes after a backend restart. The longest backoff (with
// its 20% jitter) stays under the default reconnectWaitMs, so a call waiting
// on a channel in backoff sees the next attempt.
const RECONNECT_OPTIONS: ChannelOptions = {
  'grpc.initial_reconnect_backoff_ms': 100,
  'grpc.max_reconnect_backoff_ms': 500,
}

const identity = (bytes: Buffer): Buffer => bytes

const isClient = (value: unknown): value is Client =>
  value !== null && typeof value === 'object' && typeof (value as Client).makeUnaryRequest === 'function'
const isChannel = (value: unknown): value is Channel =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as Channel).createCall === 'function' &&
  typeof (value as Channel).getConnectivityState === 'function'

function clientOf(target: string | Channel | Client, options: GrpcOptions): { client: Client; owned: boolean } {
  if (isClient(target)) return { client: target, owned: false }
  const creds = options.credentials ?? grpcCredentials.createInsecure()
  if (isChannel(target)) return { client: new Client('channel', creds, { channelOverride: target }), owned: false }
  if (typeof target !== 'string' || target === '') {
    throw new TypeError('grpc(): the target must be an address ("127.0.0.1:50051"), a grpc-js Channel or a grpc-js Client')
  }
  return { client: new Client(target, creds, { ...RECONNECT_OPTIONS, ...options.channelOptions }), owned: true }
}

/** Protobuf binary of a request in canonical protobuf JSON. */
function encodeRequest(type: Type, request: unknown): Buffer {
  return Buffer.from(type.encode(fromJson(type, request)).finish())
}

/** Canonical protobuf JSON of a binary response; undecodable bytes are an `Internal` status (as grpc-go says it). */
function decodeResponse(type: Type, bytes: Buffer): unknown {
  try {
    return messageToJson(type, type.decode(bytes))
  } catch (error) {
    throw statusError('Internal', `grpc: failed to unmarshal the received message: ${(error as Error).message}`)
  }
}

/**
 * Resolves when the channel may carry a call: at once unless it is in
 * reconnect backoff, then when it reconnects or after `waitMs`.
 */
function channelSettled(client: Client, waitMs: number): Promise<void> {
  const channel = client.getChannel()
  if (waitMs <= 0 || channel.getConnectivityState(false) !== connectivityState.TRANSIENT_FAILURE) return Promise.resolve()
  return new Promise((resolve) => client.waitForReady(Date.now() + waitMs, () => resolve()))
}

/** Waits for the channel to settle; throws `Canceled` if the MCP request was cancelled meanwhile. */
async function whenSettled(client: Client, waitMs: number, signal: AbortSignal | undefined): Promise<void> {
  await channelSettled(client, waitMs)
  if (signal?.aborted) throw statusError('Canceled', 'the request was cancelled')
}

/** The options of `grpc()`, with their defaults (the docs show them: test/option-docs.test.ts). */
export const GRPC_RULES: Record<keyof GrpcOptions, OptionRule> = {
  credentials: { accepts: 'grpc-js ChannelCredentials', test: isRecord },
  channelOptions: { accepts: 'an object of grpc-js channel options', test: isRecord },
  forwardHeaders: { ...stringsRule, default: DEFAULT_FORWARDED_HEADERS },
  metadata: {
    accepts: 'an object of string values',
    test: (v) => isRecord(v) && Object.values(v as object).every((x) => typeof x === 'string'),
  },
  principalMetadata: {
    accepts: 'an object of metadata keys to claim names',
    test: (v) => isRecord(v) && Object.values(v as object).every((x) => typeof x === 'string' && x !== ''),
  },
  callMetadata: { accepts: 'a function (context) => metadata', test: (v) => typeof v === 'function' },
  deadlineMs: { ...integerRule(1), default: DEFAULT_DEADLINE_MS },
  reconnectWaitMs: { ...integerRule(0), default: DEFAULT_RECONNECT_WAIT_MS },
  streamCap: { ...integerRule(1), default: DEFAULT_STREAM_CAP },
  streamByteCap: { ...integerRule(1), default: DEFAULT_STREAM_BYTE_CAP },
}

/**
 * A backend forwarding calls to a gRPC server: `target` is an address
 * (`'127.0.0.1:50051'`, any grpc-js target string), a grpc-js `Channel`, or a
 * grpc-js `Client` (any generated client: its channel and interceptors are used).
 */
export function grpc(target: string | Channel | Client, options: GrpcOptions = {}): GrpcBackend {
  checkOptions('grpc()', options, GRPC_RULES)
  const deadlineMs = options.deadlineMs ?? DEFAULT_DEADLINE_MS
  const waitMs = options.reconnectWaitMs ?? DEFAULT_RECONNECT_WAIT_MS
  if (!(deadlineMs > 0)) throw new TypeError(`grpc(): deadlineMs must be a positive number of milliseconds, got ${String(deadlineMs)}`)
  if (!(waitMs >= 0)) throw new TypeError(`grpc(): reconnectWaitMs must be zero or more milliseconds, got ${String(waitMs)}`)
  const allow = options.forwardHeaders ?? DEFAULT_FORWARDED_HEADERS
  const extra = Object.entries(options.metadata ?? {})
  try {
    for (const [key, value] of extra) new Metadata().add(key, value)
  } catch (cause) {
    throw new TypeError(`grpc(): bad metadata option: ${(cause as Error).message}`, { cause })
  }
  const { client, owned } = clientOf(target, options)

  const principal = options.principalMetadata
  const hook = options.callMetadata
  const metadataFor = async (context: CallContext): Promise<Metadata> => {
    const metadata = metadataOf(context, allow)
    for (const [key, value] of extra) metadata.add(key, value)
    if (principal) for (const [key, value] of principalMetadata(context, principal)) addSafely(metadata, key, value)
    if (hook) for (const [key, value] of Object.entries(await hook(context))) metadata.set(key.toLowerCase(), value)
    return metadata
  }

  const unary =
    (method: BackendMethod): RpcHandler =>
    async (request: unknown, context: CallContext) => {
      const deadline = Date.now() + deadlineMs
      const bytes = encodeRequest(method.requestType, request)
      const metadata = await metadataFor(context)
      await whenSettled(client, Math.min(waitMs, deadlineMs), context.signal)
      const root = method.responseType.root
      const span = traced(metadata, method.path)
      return new Promise<unknown>((resolve, reject) => {
        const signal = context.signal
        const onAbort = (): void => call.cancel()
        const call = client.makeUnaryRequest(method.path, identity, identity, bytes, metadata, { deadline }, (error, reply) => {
          signal?.removeEventListener('abort', onAbort)
          span?.end(error ? (error.code ?? 2) : 0, error)
          if (error) reject(statusErrorOf(error, root))
          else {
            try {
              resolve(decodeResponse(method.responseType, reply!))
            } catch (failure) {
              reject(failure)
            }
          }
        })
        signal?.addEventListener('abort', onAbort, { once: true })
        if (signal?.aborted) call.cancel()
      })
    }

  const streaming =
    (method: BackendMethod): RpcHandler =>
    async (request: unknown, context: CallContext) => {
      const deadline = Date.now() + deadlineMs
      const bytes = encodeRequest(method.requestType, request)
      const metadata = await metadataFor(context)
      await whenSettled(client, Math.min(waitMs, deadlineMs), context.signal)
      const span = traced(metadata, method.path)
      const call = client.makeServerStreamRequest(method.path, identity, identity, bytes, metadata, { deadline })
      if (span) call.on('status', (status: { code: number; details?: string }) => span.end(status.code, new Error(status.details)))
      return responses(call, method.responseType, context.signal)
    }

  return {
    streamCap: options.streamCap,
    streamByteCap: options.streamByteCap,
    bind(service: BackendService) {
      const handlers: Record<string, RpcHandler> = {}
      for (const method of service.methods) handlers[method.name] = method.serverStreaming ? streaming(method) : unary(method)
      return handlers
    },
    close() {
      if (owned) client.close()
    },
    ready: () => channelReady(client),
  }
}

/** The gRPC health service's check (`grpc.health.v1.Health/Check`, the empty request: the whole server). */
const HEALTH_CHECK = '/grpc.health.v1.Health/Check'
const HEALTH_WAIT_MS = 1000

/**
 * Whether the backend takes calls: its channel is READY, else its health
 * service answers SERVING (status 1: the reply's field 1, `08 01`); a
 * server without the health service (UNIMPLEMENTED) answered, so it is up.
 */
function channelReady(client: Client): Promise<boolean> {
  if (client.getChannel().getConnectivityState(true) === connectivityState.READY) return Promise.resolve(true)
  return new Promise((resolve) => {
    const deadline = Date.now() + HEALTH_WAIT_MS
    client.makeUnaryRequest(HEALTH_CHECK, identity, identity, Buffer.alloc(0), new Metadata(), { deadline }, (error, reply) => {
      if (error) return resolve(error.code === 12)
      resolve(reply !== undefined && reply.length >= 2 && reply[0] === 0x08 && reply[1] === 0x01)
    })
  })
}

/**
 * The CLIENT span of a forwarded call (with an OpenTelemetry SDK): the
 * backend receives its `traceparent` (and `tracestate`) in place of the
 * ones the MCP request carried, so its spans are children of this call.
 */
function traced(metadata: Metadata, path: string): ClientSpan | undefined {
  const span = clientSpan(path)
  if (span === undefined) return undefined
  metadata.set('traceparent', span.traceparent)
  if (span.tracestate === undefined) metadata.remove('tracestate')
  else metadata.set('tracestate', span.tracestate)
  return span
}

/** The decoded messages of a server stream; leaving early (the cap) or cancelling the MCP request cancels the call. */
async function* responses(call: ClientReadableStream<Buffer>, type: Type, signal: AbortSignal | undefined): AsyncGenerator<unknown> {
  const onAbort = (): void => call.cancel()
  signal?.addEventListener('abort', onAbort, { once: true })
  if (signal?.aborted) call.cancel()
  try {
    for await (const chunk of call as AsyncIterable<Buffer>) yield decodeResponse(type, chunk)
  } catch (error) {
    throw isStatus(error) ? error : statusErrorOf(error, type.root)
  } finally {
    signal?.removeEventListener('abort', onAbort)
    call.cancel()
  }
}

const isStatus = (error: unknown): boolean => (error as { name?: unknown } | null)?.name === 'StatusError'
