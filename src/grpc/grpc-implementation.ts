/**
 * Existing grpc-js service implementations mounted in process, with no
 * network (docs/calls.md, "Backends"): the `(call, callback)` handlers given to
 * `grpc.Server.addService` see the objects @grpc/proto-loader would give them.
 */
import { EventEmitter } from 'node:events'
import type { Metadata } from '@grpc/grpc-js'
import type { Type } from 'protobufjs'
import { DEFAULT_FORWARDED_HEADERS, type Backend, type BackendMethod, type BackendService } from '../runtime/backend.ts'
import { checkOptions, integerRule, stringsRule, type OptionRule } from '../runtime/check-options.ts'
import { fromJson, toJson } from '../runtime/protojson.ts'
import { statusError } from '../runtime/status.ts'
import type { CallContext, RpcHandler } from '../runtime/types.ts'
import { metadataOf, statusErrorOf } from './metadata.ts'
import { lowerCamel } from '../contract/implementation-keys.ts'

/** @grpc/proto-loader's usual options: how `call.request` looks to the handlers. */
export const PROTO_LOADER_FORM = { longs: String, enums: String, defaults: true, oneofs: true } as const

/** A unary grpc-js handler: `(call, callback)`; `callback(error)` or `callback(null, response)`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- grpc-js's call object differs per call kind; handlers read it as they need
export type GrpcUnaryHandler = (call: any, callback: (error: unknown, value?: unknown, trailer?: unknown, flags?: number) => void) => void
/** A server-streaming grpc-js handler: `(call)`, writing with `call.write(message)` and ending with `call.end()`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- grpc-js's call object differs per call kind; handlers read it as they need
export type GrpcStreamHandler = (call: any) => void

/** Options of {@link grpcImplementation}. */
export interface GrpcImplementationOptions {
  /** MCP request headers given to handlers as `call.metadata`. @default ['authorization', 'traceparent'] */
  forwardHeaders?: readonly string[]
  /** The most messages a server-streaming call collects before it is cut. @default 1000 */
  streamCap?: number
  /** The most bytes of JSON a server-streaming call collects before it is cut (docs/calls.md, "Streaming"). @default 4194304 (4 MiB) */
  streamByteCap?: number
}

/**
 * The call object a handler receives: `request`, `metadata`, `cancelled`
 * and its `'cancelled'` event, as on a grpc-js `ServerUnaryCall`.
 */
export class InProcessCall extends EventEmitter {
  cancelled = false
  readonly request: unknown
  readonly metadata: Metadata
  readonly #path: string

  constructor(request: unknown, metadata: Metadata, path: string, signal: AbortSignal | undefined) {
    super()
    this.request = request
    this.metadata = metadata
    this.#path = path
    const cancel = (): void => {
      if (this.cancelled) return
      this.cancelled = true
      this.emit('cancelled', 'cancelled')
    }
    if (signal?.aborted) this.cancelled = true
    else signal?.addEventListener('abort', cancel, { once: true })
  }

  /** Marks the call cancelled (the MCP request was cancelled, or the stream cap reached). */
  cancel(): void {
    if (this.cancelled) return
    this.cancelled = true
    this.emit('cancelled', 'cancelled')
  }

  /** The method path, as grpc-js gives it. */
  getPath(): string {
    return this.#path
  }

  /** The peer: there is no network. */
  getPeer(): string {
    return 'in-process'
  }

  /** No deadline applies in process. */
  getDeadline(): number {
    return Infinity
  }

  /** Response headers have nowhere to go in process; accepted and ignored. */
  sendMetadata(_metadata: Metadata): void {}
}

/** The response of a handler in proto-loader form, as canonical protobuf JSON (proto-loader serialises with `fromObject`). */
function responseJson(type: Type, value: unknown): unknown {
  try {
    return toJson(type, type.fromObject((value ?? {}) as Record<string, unknown>))
  } catch (error) {
    throw statusError('Internal', `cannot serialize the response: ${(error as Error).message}`)
  }
}

type Fields = Record<string, unknown>

/**
 * Adds the virtual oneof member naming a set proto3 `optional` field
 * (`_vibeUint32: 'vibeUint32'`): proto-loader's protobufjs 7 gives it with
 * `oneofs: true`, protobufjs 8's `toObject` no longer does.
 */
function markOptionals(type: Type, message: Fields, object: Fields): void {
  for (const field of type.fieldsArray) {
    const value = message[field.name]
    if (value == null) continue
    const oneof = field.partOf as { name: string; isProto3Optional?: boolean } | null
    if (oneof?.isProto3Optional && Object.hasOwn(message, field.name)) object[oneof.name] = field.name
    const sub = field.resolvedType as Type | null
    if (sub === null || !('fieldsArray' in sub)) continue
    const target = object[field.name] as Fields | Fields[] | undefined
    if (target == null) continue
    if (field.map)
      for (const key of Object.keys(value as Fields))
        markOptionals(sub, (value as Record<string, Fields>)[key]!, (target as Record<string, Fields>)[key]!)
    else if (field.repeated) (value as Fields[]).forEach((item, i) => markOptionals(sub, item, (target as Fields[])[i]!))
    else markOptionals(sub, value as Fields, target as Fields)
  }
}

function requestObject(type: Type, request: unknown): unknown {
  const message = fromJson(type, request) as unknown as Fields
  const object = type.toObject(message as never, PROTO_LOADER_FORM) as Fields
  markOptionals(type, message, object)
  return object
}

/** `error` with `trailer` as its metadata when it has none: grpc-js sends such a trailer as the status trailers. */
function withTrailer(error: unknown, trailer: unknown): unknown {
  if (!trailer || error === null || typeof error !== 'object' || 'metadata' in error) return error
  const { code, details, message } = error as { code?: unknown; details?: unknown; message?: unknown }
  return { code, details: details ?? message, metadata: trailer }
}

/** A server-streaming call: `write`/`end`/`'error'` feed the messages the tool collects. */
class InProcessStream extends InProcessCall {
  readonly #queue: unknown[] = []
  #ended = false
  #failure: unknown
  #wake: (() => void) | undefined
  readonly #type: Type

  constructor(request: unknown, metadata: Metadata, path: string, signal: AbortSignal | undefined, type: Type) {
    super(request, metadata, path, signal)
    this.#type = type
    // A handler reports a failure by emitting 'error' (or destroy(error)), as on a grpc-js ServerWritableStream.
    this.on('error', (error: unknown) => this.#finish(error ?? statusError('Unknown', 'stream failed')))
    // A cancelled call ends the stream even if the handler never calls end().
    this.on('cancelled', () => this.#finish(statusError('Canceled', 'the request was cancelled')))
    if (this.cancelled) this.#finish(statusError('Canceled', 'the request was cancelled'))
  }

  #finish(failure?: unknown): void {
    if (this.#ended) return
    this.#ended = true
    this.#failure = failure
    this.#wake?.()
  }

  write(message: unknown): boolean {
    if (!this.#ended && !this.cancelled) this.#queue.push(message)
    this.#wake?.()
    return true
  }

  end(metadata?: Metadata): void {
    void metadata
    this.#finish()
  }

  destroy(error?: unknown): void {
    this.#finish(error)
  }

  async *messages(): AsyncGenerator<unknown> {
    try {
      for (;;) {
        if (this.#queue.length > 0) {
          yield responseJson(this.#type, this.#queue.shift())
          continue
        }
        if (this.#ended) break
        await new Promise<void>((resolve) => {
          this.#wake = resolve
        })
        this.#wake = undefined
      }
      if (this.#failure !== undefined) throw statusErrorOf(this.#failure, this.#type.root)
    } finally {
      // Left early (the cap, or an encoding failure): the handler sees a cancelled call.
      if (!this.#ended) this.cancel()
    }
  }
}

const IMPLEMENTATION_RULES: Record<keyof GrpcImplementationOptions, OptionRule> = {
  forwardHeaders: stringsRule,
  streamCap: integerRule(1),
  streamByteCap: integerRule(1),
}

/** A handler of `handlers` as it is called: with the call (and the callback, unary). */
type GrpcHandler = (this: unknown, ...args: unknown[]) => unknown

/**
 * A backend that runs grpc-js service handlers in process: what
 * `grpc.Server.addService(definition, handlers)` takes, keyed by RPC name or
 * lowerCamel. `call.request` has proto-loader's form (`longs: String`,
 * `enums: String`, `defaults: true`, `oneofs: true`, bytes as `Buffer`),
 * `call.metadata` the forwarded headers; `callback({ code, details })` is
 * that status, and a returned response goes through `fromObject` as
 * proto-loader's serializer does.
 */
export function grpcImplementation(handlers: object, options: GrpcImplementationOptions = {}): Backend {
  checkOptions('grpcImplementation()', options, IMPLEMENTATION_RULES)
  if (handlers === null || typeof handlers !== 'object') {
    throw new TypeError('grpcImplementation(): the handlers must be an object of (call, callback) functions')
  }
  const allow = options.forwardHeaders ?? DEFAULT_FORWARDED_HEADERS
  const handlerOf = (name: string): GrpcHandler | undefined => {
    const value = (handlers as Record<string, unknown>)[name] ?? (handlers as Record<string, unknown>)[lowerCamel(name)]
    return typeof value === 'function' ? (value as GrpcHandler) : undefined
  }

  const unary =
    (method: BackendMethod, handler: GrpcHandler): RpcHandler =>
    (request: unknown, context: CallContext) =>
      new Promise<unknown>((resolve, reject) => {
        const root = method.responseType.root
        const call = new InProcessCall(requestObject(method.requestType, request), metadataOf(context, allow), method.path, context.signal)
        let answered = false
        const callback = (error: unknown, value?: unknown, trailer?: unknown): void => {
          if (answered) return
          answered = true
          if (error) reject(statusErrorOf(withTrailer(error, trailer), root))
          else {
            try {
              resolve(responseJson(method.responseType, value))
            } catch (failure) {
              reject(failure)
            }
          }
        }
        // A handler that never answers a cancelled call must not hold the tool call open.
        call.on('cancelled', () => callback(statusError('Canceled', 'the request was cancelled')))
        try {
          handler.call(handlers, call, callback)
        } catch (error) {
          callback(error)
        }
      })

  const streaming =
    (method: BackendMethod, handler: GrpcHandler): RpcHandler =>
    (request: unknown, context: CallContext) => {
      const call = new InProcessStream(
        requestObject(method.requestType, request),
        metadataOf(context, allow),
        method.path,
        context.signal,
        method.responseType,
      )
      try {
        handler.call(handlers, call)
      } catch (error) {
        call.destroy(error)
      }
      return call.messages()
    }

  return {
    streamCap: options.streamCap,
    streamByteCap: options.streamByteCap,
    bind(service: BackendService) {
      const bound: Record<string, RpcHandler> = {}
      for (const method of service.methods) {
        const handler = handlerOf(method.name)
        if (handler) bound[method.name] = method.serverStreaming ? streaming(method, handler) : unary(method, handler)
      }
      return bound
    },
  }
}
