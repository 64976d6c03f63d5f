/**
 * A gRPC server reflection client: asks a running server for its services
 * and the serialized `FileDescriptorProto`s declaring them, with every
 * dependency, over `grpc.reflection.v1` (falling back to `v1alpha`).
 */
import { Client, credentials as grpcCredentials, Metadata, status } from '@grpc/grpc-js'
import type { ChannelCredentials, ChannelOptions, ClientDuplexStream, ServiceError } from '@grpc/grpc-js'
import protobuf from 'protobufjs'

/** Options of {@link fetchDescriptors}. */
export interface ReflectionOptions {
  /** Channel credentials. @default grpc.credentials.createInsecure() */
  credentials?: ChannelCredentials
  /** grpc-js channel options. @default {} */
  channelOptions?: ChannelOptions
  /** Metadata sent with the reflection call (e.g. an authorization header). @default none */
  metadata?: Readonly<Record<string, string>>
  /** Milliseconds the whole discovery may take. @default 10000 */
  deadlineMs?: number
}

/** What a server's reflection service answered. */
export interface ReflectedServices {
  /** Full names of the services the server lists, in its order (the reflection services left out). */
  services: string[]
  /** Serialized `FileDescriptorProto`s declaring them and every file they import, untouched, each file once. */
  files: Uint8Array[]
  /** Listed services whose file the server answered with an error for (left out of `services`). */
  undescribed: { service: string; reason: string }[]
  /** The reflection protocol the server spoke. */
  protocol: 'v1' | 'v1alpha'
}

/** Codes of the errors {@link fetchDescriptors} throws (on `error.code`; `error.name` is `ReflectionError`). */
export type ReflectionErrorCode = 'REFLECTION_UNREACHABLE' | 'REFLECTION_UNSUPPORTED' | 'REFLECTION_FAILED'

/** An error of {@link fetchDescriptors}: recognise it by `name` and `code`. */
export interface ReflectionError extends Error {
  name: 'ReflectionError'
  code: ReflectionErrorCode
}

const reflectionError = (code: ReflectionErrorCode, message: string, cause?: unknown): ReflectionError =>
  Object.assign(new Error(message, cause === undefined ? undefined : { cause }), { name: 'ReflectionError' as const, code })

/** Whether `error` is a {@link ReflectionError}. */
export function isReflectionError(error: unknown): error is ReflectionError {
  return error instanceof Error && error.name === 'ReflectionError'
}

/** The reflection services themselves, which no gateway forwards. */
export const REFLECTION_SERVICES: readonly string[] = ['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']

// The messages of grpc/reflection/v1/reflection.proto this client uses (v1alpha has the same wire form).
const REFLECTION_ROOT = protobuf.Root.fromJSON({
  nested: {
    ServerReflectionRequest: {
      oneofs: { messageRequest: { oneof: ['fileByFilename', 'fileContainingSymbol', 'listServices'] } },
      fields: {
        host: { type: 'string', id: 1 },
        fileByFilename: { type: 'string', id: 3 },
        fileContainingSymbol: { type: 'string', id: 4 },
        listServices: { type: 'string', id: 7 },
      },
    },
    ServerReflectionResponse: {
      fields: {
        fileDescriptorResponse: { type: 'FileDescriptorResponse', id: 4 },
        listServicesResponse: { type: 'ListServiceResponse', id: 6 },
        errorResponse: { type: 'ErrorResponse', id: 7 },
      },
    },
    FileDescriptorResponse: { fields: { fileDescriptorProto: { rule: 'repeated', type: 'bytes', id: 1 } } },
    ListServiceResponse: { fields: { service: { rule: 'repeated', type: 'ServiceResponse', id: 1 } } },
    ServiceResponse: { fields: { name: { type: 'string', id: 1 } } },
    ErrorResponse: { fields: { errorCode: { type: 'int32', id: 1 }, errorMessage: { type: 'string', id: 2 } } },
  },
})
const REQUEST = REFLECTION_ROOT.lookupType('ServerReflectionRequest')
const RESPONSE = REFLECTION_ROOT.lookupType('ServerReflectionResponse')
// FileDescriptorProto's `name` (1) and `dependency` (3), all a client needs to follow imports.
const FILE_HEAD = protobuf.Type.fromJSON('FileHead', {
  fields: { name: { type: 'string', id: 1 }, dependency: { rule: 'repeated', type: 'string', id: 3 } },
})

interface Request {
  fileByFilename?: string
  fileContainingSymbol?: string
  listServices?: string
}
interface Response {
  fileDescriptorResponse?: { fileDescriptorProto?: Uint8Array[] }
  listServicesResponse?: { service?: { name?: string }[] }
  errorResponse?: { errorCode?: number; errorMessage?: string }
}

/** One bidi reflection stream: requests answered in order. */
class ReflectionStream {
  private readonly call: ClientDuplexStream<Request, Response>
  private readonly waiting: { resolve: (r: Response) => void; reject: (e: unknown) => void }[] = []
  private failure: unknown

  constructor(client: Client, protocol: 'v1' | 'v1alpha', metadata: Metadata, deadline: number) {
    this.call = client.makeBidiStreamRequest<Request, Response>(
      `/grpc.reflection.${protocol}.ServerReflection/ServerReflectionInfo`,
      (request) => Buffer.from(REQUEST.encode(REQUEST.fromObject(request)).finish()),
      (bytes) => RESPONSE.toObject(RESPONSE.decode(bytes), { defaults: false }) as Response,
      metadata,
      { deadline },
    )
    this.call.on('data', (response: Response) => this.waiting.shift()?.resolve(response))
    this.call.on('error', (error) => {
      this.failure = error
      for (const w of this.waiting.splice(0)) w.reject(error)
    })
    this.call.on('end', () => {
      const error = reflectionError('REFLECTION_FAILED', 'the reflection stream ended before every answer came')
      for (const w of this.waiting.splice(0)) w.reject(error)
    })
  }

  ask(request: Request): Promise<Response> {
    if (this.failure !== undefined) return Promise.reject(this.failure)
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject })
      this.call.write(request)
    })
  }

  close(): void {
    this.call.end()
    this.call.cancel()
  }
}

/**
 * Asks the gRPC server at `target` (`127.0.0.1:50051`) for its services and
 * their file descriptors: `list_services`, then `file_containing_symbol`
 * for each service, then `file_by_filename` for every import still missing.
 * Throws a {@link ReflectionError}: `REFLECTION_UNREACHABLE` (no server
 * answers), `REFLECTION_UNSUPPORTED` (no reflection service, in either
 * version), `REFLECTION_FAILED` (an error answer, a missing file).
 */
export async function fetchDescriptors(target: string, options: ReflectionOptions = {}): Promise<ReflectedServices> {
  const deadlineMs = options.deadlineMs ?? 10_000
  const client = new Client(target, options.credentials ?? grpcCredentials.createInsecure(), options.channelOptions ?? {})
  const metadata = new Metadata()
  for (const [key, value] of Object.entries(options.metadata ?? {})) metadata.add(key, value)
  const deadline = Date.now() + deadlineMs
  try {
    for (const protocol of ['v1', 'v1alpha'] as const) {
      const stream = new ReflectionStream(client, protocol, metadata, deadline)
      try {
        return { ...(await discover(stream, target)), protocol }
      } catch (error) {
        const code = (error as Partial<ServiceError>).code
        if (code === status.UNIMPLEMENTED && protocol === 'v1') continue
        throw describe(error, target)
      } finally {
        stream.close()
      }
    }
    throw reflectionError('REFLECTION_UNSUPPORTED', `the gRPC server at ${target} does not offer server reflection`)
  } finally {
    client.close()
  }
}

/** The services and files of one reflection stream. */
async function discover(stream: ReflectionStream, target: string): Promise<Omit<ReflectedServices, 'protocol'>> {
  const listed = await stream.ask({ listServices: '*' })
  failOn(listed, target, 'listing services')
  const services = (listed.listServicesResponse?.service ?? [])
    .map((s) => s.name ?? '')
    .filter((n) => n !== '' && !REFLECTION_SERVICES.includes(n))
  const files = new Map<string, Uint8Array>()
  const needed = new Map<string, string>()
  const take = (response: Response): void => {
    for (const bytes of response.fileDescriptorResponse?.fileDescriptorProto ?? []) {
      const head = FILE_HEAD.decode(bytes) as unknown as { name: string; dependency: string[] }
      if (files.has(head.name)) continue
      files.set(head.name, bytes)
      for (const dep of head.dependency) if (!needed.has(dep)) needed.set(dep, head.name)
    }
  }
  const described: string[] = []
  const undescribed: { service: string; reason: string }[] = []
  for (const service of services) {
    const answer = await stream.ask({ fileContainingSymbol: service })
    // A service registered without descriptors (a health check added by hand) is listed all the same.
    if (answer.errorResponse !== undefined) {
      undescribed.push({ service, reason: `code ${answer.errorResponse.errorCode ?? 0}: ${answer.errorResponse.errorMessage ?? ''}` })
      continue
    }
    described.push(service)
    take(answer)
  }
  for (;;) {
    const missing = [...needed].find(([name]) => !files.has(name))
    if (missing === undefined) break
    const [name, importer] = missing
    const answer = await stream.ask({ fileByFilename: name })
    failOn(answer, target, `asking for "${name}" (imported by "${importer}")`)
    take(answer)
    if (!files.has(name))
      throw reflectionError('REFLECTION_FAILED', `the gRPC server at ${target} did not send "${name}" (imported by "${importer}")`)
  }
  return { services: described, files: [...files.values()], undescribed }
}

function failOn(response: Response, target: string, doing: string): void {
  const error = response.errorResponse
  if (error === undefined) return
  throw reflectionError(
    'REFLECTION_FAILED',
    `the reflection service of ${target} answered an error ${doing}: code ${error.errorCode ?? 0}: ${error.errorMessage ?? ''}`,
  )
}

/** A grpc-js error of the reflection call as a {@link ReflectionError} saying what went wrong. */
function describe(error: unknown, target: string): unknown {
  if (isReflectionError(error)) return error
  const e = error as Partial<ServiceError>
  const details = (e.details ?? e.message ?? String(error)).split('\n')[0]
  if (e.code === status.UNIMPLEMENTED) {
    return reflectionError(
      'REFLECTION_UNSUPPORTED',
      `the gRPC server at ${target} does not offer server reflection (grpc.reflection.v1 or v1alpha)`,
      error,
    )
  }
  if (e.code === status.UNAVAILABLE || e.code === status.DEADLINE_EXCEEDED) {
    return reflectionError('REFLECTION_UNREACHABLE', `cannot reach the gRPC server at ${target}: ${details}`, error)
  }
  return reflectionError('REFLECTION_FAILED', `gRPC server reflection at ${target} failed: ${details}`, error)
}
