/**
 * Backends bound with `Server.forward`: something that answers a service's
 * RPCs (a gRPC channel, grpc-js handlers mounted in process). The runtime
 * knows only this interface, so it never loads `@grpc/grpc-js`.
 */
import type { Type } from 'protobufjs'
import { runtimeError } from './errors.ts'
import { OPERATIONS_SERVICE } from './operations-service.ts'
import { bindOperations, bindTool, resolveService, toolsOf, type ToolTable } from './tool-table.ts'
import type { CallContext, RpcHandler } from './types.ts'

import { DEFAULT_FORWARDED_HEADERS } from '../contract/defaults.ts'

export { DEFAULT_DEADLINE_MS, DEFAULT_FORWARDED_HEADERS } from '../contract/defaults.ts'

/** The most messages a server-streaming tool collects unless its backend says otherwise (docs/calls.md, "Streaming"). */
export const DEFAULT_STREAM_CAP = 1000

/** Default `reconnectWaitMs` of `grpc()`: how long a call waits for a channel in backoff. */
export const DEFAULT_RECONNECT_WAIT_MS = 1000

/**
 * The most bytes of JSON a server-streaming tool collects unless its
 * backend says otherwise (docs/calls.md, "Streaming"): 4 MiB, what one gRPC reply may
 * be by default and what an HTTP request may be here.
 */
export const DEFAULT_STREAM_BYTE_CAP = 4 * 1024 * 1024

/** Who a call is for, as the `auth` option verified it: a small serialisable value. */
export interface Principal {
  /** The token's issuer (`iss`). */
  readonly issuer: string
  /** The token's subject (`sub`); `''` for a token without one (a client-credentials token naming only its client). */
  readonly subject: string
  /** The OAuth client (`client_id`, else `azp`). */
  readonly clientId: string
  readonly scopes: readonly string[]
  /** Every claim of the verified token (a JWT's payload, or the introspection response). */
  readonly claims: Readonly<Record<string, unknown>>
}

/** One RPC of a service, as a backend sees it when it is bound. */
export interface BackendMethod {
  /** The RPC's name as written (`SetVibe`). */
  readonly name: string
  /** The gRPC method path: `/examples.v1.VibeService/SetVibe`. */
  readonly path: string
  /**
   * Reflected request and response messages (protobufjs), for binary
   * encoding; protobufjs loads with the first call, so a backend outside
   * unplugin-proto-mcp/grpc reads them in its handlers, not in `bind`.
   */
  readonly requestType: Type
  readonly responseType: Type
  /** Whether the server streams responses (the handler then returns an (async) iterable). */
  readonly serverStreaming: boolean
}

/** What a backend is told about the service it is bound to: only RPCs that are tools. */
export interface BackendService {
  /** Full name, no leading dot (`examples.v1.VibeService`). */
  readonly name: string
  readonly methods: readonly BackendMethod[]
}

/**
 * A backend for `Server.forward(service, backend)`. `bind` returns one
 * handler per RPC name; each receives the request in canonical protobuf JSON
 * and returns (or resolves to) the response in any protobuf JSON form, or
 * an (async) iterable of them for a server-streaming RPC. A rejection with a
 * gRPC `code` is that status; `statusDetails` (JSON values) are kept.
 */
export interface Backend {
  bind(service: BackendService): Readonly<Record<string, RpcHandler | undefined>>
  /** The most messages a server-streaming call collects before it is cut. @default 1000 */
  readonly streamCap?: number
  /** The most bytes of JSON (the messages as the result holds them) a server-streaming call collects before it is cut. @default 4194304 (4 MiB) */
  readonly streamByteCap?: number
  /**
   * Whether the backend can take calls now (`/readyz`, docs/guide/production.md):
   * for `grpc()`, its channel is ready or its health service answers SERVING.
   * @default always ready
   */
  ready?(): Promise<boolean>
}

/** Whether `value` looks like a {@link Backend} (checked by shape: the runtime may be bundled twice). */
export function isBackend(value: unknown): value is Backend {
  return value !== null && typeof value === 'object' && typeof (value as { bind?: unknown }).bind === 'function'
}

/**
 * Binds `backend` to every tool of `service` (short or full name): the
 * backend's handler per RPC replaces whatever was bound. RPCs it leaves
 * out answer Unimplemented. Returns the service's full name.
 */
export function bindBackend(table: ToolTable, service: string, backend: Backend): string {
  if (!isBackend(backend)) {
    throw runtimeError(
      'BAD_IMPLEMENTATION',
      `the backend of "${service}" must have a bind() method: use grpc(...) or grpcImplementation(...) from unplugin-proto-mcp/grpc, or implement() for plain handlers`,
    )
  }
  const full = resolveService(table, service)
  const cap = backend.streamCap ?? DEFAULT_STREAM_CAP
  if (!Number.isInteger(cap) || cap < 1)
    throw runtimeError('BAD_IMPLEMENTATION', `the streamCap of the backend of "${full}" must be a positive integer, got ${String(cap)}`)
  const byteCap = backend.streamByteCap ?? DEFAULT_STREAM_BYTE_CAP
  if (!Number.isInteger(byteCap) || byteCap < 1)
    throw runtimeError(
      'BAD_IMPLEMENTATION',
      `the streamByteCap of the backend of "${full}" must be a positive integer, got ${String(byteCap)}`,
    )
  const tools = toolsOf(table, full)
  // The reflected types as getters: read at binding, they would load protobufjs before any call needs it.
  const methods: BackendMethod[] = tools.map((tool) => ({
    name: tool.spec.method,
    path: `/${full}/${tool.spec.method}`,
    get requestType() {
      return tool.requestType
    },
    get responseType() {
      return tool.responseType
    },
    serverStreaming: tool.spec.serverStreaming === true,
  }))
  const handlers = backend.bind({ name: full, methods })
  for (const tool of tools) bindTool(tool, handlers[tool.spec.method], handlers, { messages: cap, bytes: byteCap })
  // A service of long-running RPCs: their operations are read on the same backend (forwarding the Operations service itself rebinds them).
  if (full === OPERATIONS_SERVICE || tools.some((t) => t.spec.longRunning !== undefined)) {
    const operations = backend.bind({ name: OPERATIONS_SERVICE, methods: operationMethods(table) })
    bindOperations(table, operations, operations)
  }
  return full
}

/** `GetOperation` and `CancelOperation` as a backend is told of them (types read when a call needs them, as above). */
function operationMethods(table: ToolTable): BackendMethod[] {
  const method = (name: string, request: string, response: string): BackendMethod => ({
    name,
    path: `/${OPERATIONS_SERVICE}/${name}`,
    get requestType() {
      return table.root.lookupType(request)
    },
    get responseType() {
      return table.root.lookupType(response)
    },
    serverStreaming: false,
  })
  return [
    method('GetOperation', 'google.longrunning.GetOperationRequest', 'google.longrunning.Operation'),
    method('CancelOperation', 'google.longrunning.CancelOperationRequest', 'google.protobuf.Empty'),
  ]
}

/**
 * The values of the `allow`ed headers of a call (lowercase names, repeated
 * headers as several values), in allow-list order, for forwarding as
 * metadata; never `authorization` for a verified caller.
 */
export function forwardedHeaders(context: CallContext, allow: readonly string[] = DEFAULT_FORWARDED_HEADERS): Array<[string, string]> {
  const headers = context.headers
  if (headers === undefined) return []
  const out: Array<[string, string]> = []
  // A verified caller's token is never passed through (the gate removes the header too).
  const verified = verifiedPrincipal(context) !== undefined
  for (const name of allow) {
    const key = name.toLowerCase()
    if (verified && key === 'authorization') continue
    const value = headers[key]
    if (typeof value === 'string') out.push([key, value])
    else if (Array.isArray(value)) for (const v of value) out.push([key, v])
  }
  return out
}

/**
 * The principal of a call whose token the server verified (the `auth`
 * option, or auth info of the same shape: `extra.iss`, `extra.sub`,
 * `extra.claims`), else `undefined`.
 */
export function verifiedPrincipal(context: CallContext): Principal | undefined {
  const info = context.authInfo as { clientId?: unknown; scopes?: unknown; extra?: Record<string, unknown> } | undefined
  const extra = info?.extra
  const clientId = typeof info?.clientId === 'string' ? info.clientId : ''
  if (typeof extra?.iss !== 'string' || (typeof extra.sub !== 'string' && clientId === '')) return undefined
  return {
    issuer: extra.iss,
    subject: typeof extra.sub === 'string' ? extra.sub : '',
    clientId,
    scopes: Array.isArray(info!.scopes) ? info!.scopes.map(String) : [],
    claims: extra.claims !== null && typeof extra.claims === 'object' ? (extra.claims as Record<string, unknown>) : {},
  }
}

/**
 * Metadata of a call's verified principal: for each `[key, claim]` of
 * `map`, the claim's value (`sub`, `client_id`, `scope`, `iss` or any
 * claim of the token; a list joined with spaces, an object as JSON).
 * Nothing without a verified principal or for a claim it lacks.
 */
export function principalMetadata(context: CallContext, map: Readonly<Record<string, string>>): Array<[string, string]> {
  const principal = verifiedPrincipal(context)
  if (principal === undefined) return []
  const known: Record<string, unknown> = {
    ...principal.claims,
    iss: principal.issuer,
    sub: principal.subject,
    client_id: principal.clientId,
    scope: principal.scopes.join(' '),
  }
  const out: Array<[string, string]> = []
  for (const [key, claim] of Object.entries(map)) {
    const value = known[claim]
    if (value === undefined || value === null || value === '') continue
    out.push([
      key.toLowerCase(),
      Array.isArray(value) ? value.join(' ') : typeof value === 'object' ? JSON.stringify(value) : String(value),
    ])
  }
  return out
}
