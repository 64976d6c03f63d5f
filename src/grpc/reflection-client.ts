/**
 * A gRPC server reflection client: asks a running server for its services
 * and the serialized `FileDescriptorProto`s declaring them, with every
 * dependency and every file extending their messages, over
 * `grpc.reflection.v1` (falling back to `v1alpha`).
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
      oneofs: {
        messageRequest: {
          oneof: ['fileByFilename', 'fileContainingSymbol', 'fileContainingExtension', 'allExtensionNumbersOfType', 'listServices'],
        },
      },
      fields: {
        host: { type: 'string', id: 1 },
        fileByFilename: { type: 'string', id: 3 },
        fileContainingSymbol: { type: 'string', id: 4 },
        fileContainingExtension: { type: 'ExtensionRequest', id: 5 },
        allExtensionNumbersOfType: { type: 'string', id: 6 },
        listServices: { type: 'string', id: 7 },
      },
    },
    ExtensionRequest: { fields: { containingType: { type: 'string', id: 1 }, extensionNumber: { type: 'int32', id: 2 } } },
    ServerReflectionResponse: {
      fields: {
        fileDescriptorResponse: { type: 'FileDescriptorResponse', id: 4 },
        allExtensionNumbersResponse: { type: 'ExtensionNumberResponse', id: 5 },
        listServicesResponse: { type: 'ListServiceResponse', id: 6 },
        errorResponse: { type: 'ErrorResponse', id: 7 },
      },
    },
    FileDescriptorResponse: { fields: { fileDescriptorProto: { rule: 'repeated', type: 'bytes', id: 1 } } },
    ExtensionNumberResponse: { fields: { extensionNumber: { rule: 'repeated', type: 'int32', id: 2 } } },
    ListServiceResponse: { fields: { service: { rule: 'repeated', type: 'ServiceResponse', id: 1 } } },
    ServiceResponse: { fields: { name: { type: 'string', id: 1 } } },
    ErrorResponse: { fields: { errorCode: { type: 'int32', id: 1 }, errorMessage: { type: 'string', id: 2 } } },
  },
})
const REQUEST = REFLECTION_ROOT.lookupType('ServerReflectionRequest')
const RESPONSE = REFLECTION_ROOT.lookupType('ServerReflectionResponse')
// What a client needs of a FileDescriptorProto to follow its imports (`dependency`) and its
// extensible messages (`extension_range`) to the files extending them (and the extensions it declares).
const HEADS = protobuf.Root.fromJSON({
  nested: {
    FileHead: {
      fields: {
        name: { type: 'string', id: 1 },
        package: { type: 'string', id: 2 },
        dependency: { rule: 'repeated', type: 'string', id: 3 },
        messageType: { rule: 'repeated', type: 'MessageHead', id: 4 },
        extension: { rule: 'repeated', type: 'ExtensionHead', id: 7 },
      },
    },
    MessageHead: {
      fields: {
        name: { type: 'string', id: 1 },
        nestedType: { rule: 'repeated', type: 'MessageHead', id: 3 },
        extensionRange: { rule: 'repeated', type: 'bytes', id: 5 },
        extension: { rule: 'repeated', type: 'ExtensionHead', id: 6 },
      },
    },
    ExtensionHead: { fields: { extendee: { type: 'string', id: 2 }, number: { type: 'int32', id: 3 } } },
  },
})
const FILE_HEAD = HEADS.lookupType('FileHead')

interface ExtensionHead {
  extendee?: string
  number?: number
}
interface MessageHead {
  name?: string
  nestedType?: MessageHead[]
  extensionRange?: Uint8Array[]
  extension?: ExtensionHead[]
}
interface FileHead {
  name: string
  package?: string
  dependency: string[]
  messageType?: MessageHead[]
  extension?: ExtensionHead[]
}

interface Request {
  fileByFilename?: string
  fileContainingSymbol?: string
  fileContainingExtension?: { containingType: string; extensionNumber: number }
  allExtensionNumbersOfType?: string
  listServices?: string
}
interface Response {
  fileDescriptorResponse?: { fileDescriptorProto?: Uint8Array[] }
  allExtensionNumbersResponse?: { extensionNumber?: number[] }
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
 * for each service, then `file_by_filename` for every import still missing,
 * then, for each message with extension ranges, the files declaring its
 * extensions (`all_extension_numbers_of_type`, `file_containing_extension`;
 * a server that answers those with an error gives no more files).
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
  const extensible = new Set<string>()
  const declared = new Set<string>()
  const take = (response: Response): void => {
    for (const bytes of response.fileDescriptorResponse?.fileDescriptorProto ?? []) {
      const head = FILE_HEAD.decode(bytes) as unknown as FileHead
      if (files.has(head.name)) continue
      files.set(head.name, bytes)
      for (const dep of head.dependency) if (!needed.has(dep)) needed.set(dep, head.name)
      noteExtensions(head, extensible, declared)
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
  const asked = new Set<string>()
  for (;;) {
    const missing = [...needed].find(([name]) => !files.has(name))
    if (missing !== undefined) {
      const [name, importer] = missing
      const answer = await stream.ask({ fileByFilename: name })
      failOn(answer, target, `asking for "${name}" (imported by "${importer}")`)
      take(answer)
      if (!files.has(name))
        throw reflectionError('REFLECTION_FAILED', `the gRPC server at ${target} did not send "${name}" (imported by "${importer}")`)
      continue
    }
    // Every import is here: the files extending a message not asked about yet (which may import more).
    const type = [...extensible].find((name) => !asked.has(name))
    if (type === undefined) break
    asked.add(type)
    await askExtensions(stream, type, declared, take)
  }
  return { services: described, files: [...files.values()], undescribed }
}

/**
 * Notes the messages of `file` that have extension ranges (by full name,
 * descriptor.proto's option messages left out: custom options come with the
 * files using them) and the extensions it declares (`extendee#number`).
 */
function noteExtensions(file: FileHead, extensible: Set<string>, declared: Set<string>): void {
  const pkg = file.package ?? ''
  const note = (extensions: ExtensionHead[] | undefined): void => {
    for (const e of extensions ?? []) declared.add(`${(e.extendee ?? '').replace(/^\./, '')}#${e.number ?? 0}`)
  }
  const visit = (messages: MessageHead[] | undefined, scope: string): void => {
    for (const m of messages ?? []) {
      const name = scope === '' ? (m.name ?? '') : `${scope}.${m.name ?? ''}`
      if ((m.extensionRange?.length ?? 0) > 0 && !name.startsWith('google.protobuf.')) extensible.add(name)
      note(m.extension)
      visit(m.nestedType, name)
    }
  }
  note(file.extension)
  visit(file.messageType, pkg)
}

/**
 * Takes the files declaring the extensions of `type` not in `declared`
 * (which `take` adds to as their files come), as the server sends them
 * (each with its imports). `@grpc/reflection` keys extensions by the
 * extendee as the file writes it (`.pkg.Type`), so a name without its
 * leading dot is asked again with it.
 */
async function askExtensions(
  stream: ReflectionStream,
  type: string,
  declared: ReadonlySet<string>,
  take: (response: Response) => void,
): Promise<void> {
  let containingType = type
  let numbers = await stream.ask({ allExtensionNumbersOfType: containingType })
  if (numbers.errorResponse !== undefined) numbers = await stream.ask({ allExtensionNumbersOfType: (containingType = `.${type}`) })
  if (numbers.errorResponse !== undefined) return
  for (const extensionNumber of numbers.allExtensionNumbersResponse?.extensionNumber ?? []) {
    // A file already taken may declare it (one file often declares several).
    if (declared.has(`${type}#${extensionNumber}`)) continue
    take(await stream.ask({ fileContainingExtension: { containingType, extensionNumber } }))
  }
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
