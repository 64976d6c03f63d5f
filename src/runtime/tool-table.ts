/**
 * The tool table of a proto server, built once when the server is created:
 * each tool with its reflected types resolved and its backend slot.
 */
import type { Root, Type } from 'protobufjs'
import { loadRoot } from './protojson.ts'
import type { LenientPlan, ProtoServerSpec, ProtoToolSpec, RpcHandler, ServiceImplementation, ValidateFunction } from './types.ts'
import { needsProtoJson } from './lenient.ts'
import { statusText } from './status.ts'
import { runtimeError } from './errors.ts'
import { lowerCamel } from '../contract/implementation-keys.ts'
import { OPERATIONS_METHODS, OPERATIONS_SERVICE } from './operations-service.ts'

/** A tool ready to call: its spec, reflected types, and the bound backend method. */
export interface CompiledTool {
  readonly spec: ProtoToolSpec
  readonly name: string
  readonly requestType: Type
  readonly responseType: Type
  /** Whether results carry `structuredContent` (the default profile). */
  readonly structured: boolean
  /** The bound backend method, or `undefined` while none is bound. */
  handler: RpcHandler | undefined
  /** The tool error text answered while `handler` is unbound. */
  unbound: string
  /** `this` for `handler`: the implementation object it came from. */
  target: unknown
  /** The lenient pass's table, when the module has one (every profile but `topeka`). */
  readonly lenient?: LenientPlan
  /** Whether validated arguments go through `toProtoJson` (map entries, JSON text, strict nulls). */
  readonly rewrites: boolean
  /** The `full` validators of the recursive messages (the spec's `deep`): JSON text past the recursion depth is checked with them. */
  readonly deep?: Readonly<Record<string, ValidateFunction>>
  /** A long-running tool's `google.longrunning.Operations` methods (GetOperation, CancelOperation) and their `this`, once bound. */
  operations?: { get?: RpcHandler; cancel?: RpcHandler; target: unknown }
  /** The most messages and bytes a server-streaming call collects (set by the bound backend; runtime/backend.ts has the defaults). */
  streamCaps?: StreamCaps
}

/** Where a server-streaming call is cut: messages, and bytes of their JSON. */
export interface StreamCaps {
  readonly messages: number
  readonly bytes: number
}

/** All tools of a proto server, by name, with the root they were resolved in. */
export interface ToolTable {
  readonly root: Root
  readonly tools: readonly CompiledTool[]
  readonly byName: ReadonlyMap<string, CompiledTool>
  /** Every service of the proto with all its RPC names (the spec's `services`). */
  readonly services: ReadonlyMap<string, readonly string[]>
  /** Each service's comment (the spec's `serviceComments`), by full name: what search_tools reads besides the tools. */
  readonly serviceComments: ReadonlyMap<string, string>
  /** The spec's profile: a server of `strict` tables only lists its meta-tools in OpenAI's strict shape too. */
  readonly profile: ProtoServerSpec['profile']
}

const stripDot = (name: string): string => (name.startsWith('.') ? name.slice(1) : name)

/**
 * Resolves every tool's types in a root built from the spec's descriptor.
 * The root is built on first use (a call the generated codec cannot answer
 * alone, a backend binding, a service the spec does not list), so a server
 * whose calls the codecs answer never loads protobufjs.
 */
export function compileToolTable(spec: ProtoServerSpec): ToolTable {
  let root: Root | undefined
  const getRoot = (): Root => (root ??= loadRoot(spec.descriptor))
  const byName = new Map<string, CompiledTool>()
  const tools = spec.tools.map((tool): CompiledTool => {
    const compiled = {
      spec: tool,
      name: tool.name,
      // Only tools that advertise an outputSchema (default profile, object responses).
      structured: spec.profile !== 'topeka' && tool.outputSchema !== undefined,
      handler: undefined,
      unbound: statusText(12, `no backend for ${stripDot(tool.service)}`),
      target: undefined,
      ...(spec.lenient === undefined
        ? { rewrites: false }
        : { lenient: spec.lenient, rewrites: needsProtoJson(spec.lenient, tool.requestType) }),
      ...(spec.deep === undefined ? {} : { deep: spec.deep }),
    } as Omit<CompiledTool, 'requestType' | 'responseType'> as CompiledTool
    let requestType: Type | undefined
    let responseType: Type | undefined
    Object.defineProperties(compiled, {
      requestType: { get: () => (requestType ??= getRoot().lookupType(tool.requestType)), enumerable: true, configurable: true },
      responseType: { get: () => (responseType ??= getRoot().lookupType(tool.responseType)), enumerable: true, configurable: true },
    })
    byName.set(tool.name, compiled)
    return compiled
  })
  const services = new Map(Object.entries(spec.services).map(([name, methods]) => [stripDot(name), methods] as const))
  // Long-running tools are followed with google.longrunning.Operations: implement() and forward() take it too.
  if (spec.tools.some((t) => t.longRunning !== undefined) && !services.has(OPERATIONS_SERVICE))
    services.set(OPERATIONS_SERVICE, [...OPERATIONS_METHODS])
  const serviceComments = new Map(Object.entries(spec.serviceComments ?? {}).map(([name, text]) => [stripDot(name), text] as const))
  const table = { tools, byName, services, serviceComments, profile: spec.profile } as Omit<ToolTable, 'root'> as ToolTable
  Object.defineProperty(table, 'root', { get: getRoot, enumerable: true, configurable: true })
  return table
}

/** The full names (no leading dot) of every service of the proto. */
function serviceNames(table: ToolTable): string[] {
  return [...table.services.keys()]
}

/** Resolves a service given by full (`examples.v1.VibeService`) or short (`VibeService`) name. */
export function resolveService(table: ToolTable, service: string): string {
  const wanted = stripDot(service)
  const names = serviceNames(table)
  if (names.includes(wanted)) return wanted
  const matches = names.filter((n) => n.endsWith(`.${wanted}`))
  if (matches.length === 1) return matches[0]!
  if (matches.length > 1) {
    throw runtimeError('SERVICE_AMBIGUOUS', `service "${service}" is ambiguous: use one of ${matches.map((m) => `"${m}"`).join(', ')}`)
  }
  const known = names.length ? `known services: ${names.map((n) => `"${n}"`).join(', ')}` : 'this server has no services'
  throw runtimeError('UNKNOWN_SERVICE', `unknown service "${service}": ${known}`)
}

/**
 * The member `key` of an implementation: own or inherited (class instances),
 * but never from `Object.prototype` or `Function.prototype`, so an RPC named
 * `ToString` or `Call` left out is unbound, not bound to a built-in.
 */
function memberOf(impl: object, key: string): unknown {
  for (let o: object | null = impl; o !== null && o !== Object.prototype && o !== Function.prototype; o = Object.getPrototypeOf(o)) {
    const descriptor = Object.getOwnPropertyDescriptor(o, key)
    if (descriptor) return 'value' in descriptor ? descriptor.value : descriptor.get?.call(impl)
  }
  return undefined
}

/** The RPC names of a service, as written in the proto. */
function methodNames(table: ToolTable, service: string): string[] {
  return [...(table.services.get(service) ?? [])]
}

/**
 * Binds an in-process implementation to every tool of `service`. Methods
 * are looked up by RPC name, then lowerCamel; a function-valued key naming
 * no RPC of the service throws. RPCs left out answer Unimplemented; RPCs
 * without a tool (streaming, or a name another service's tool took) are
 * accepted and never called.
 */
export function bindImplementation(
  table: ToolTable,
  service: string,
  impl: ServiceImplementation,
  options: { lenient?: boolean; onUnknown?: (message: string) => void } = {},
): string {
  if (impl === null || (typeof impl !== 'object' && typeof impl !== 'function')) {
    throw runtimeError('BAD_IMPLEMENTATION', `the implementation of "${service}" must be an object with one method per RPC`)
  }
  const full = resolveService(table, service)
  const methods = methodNames(table, full)
  const accepted = new Set(methods.flatMap((m) => [m, lowerCamel(m)]))
  for (const key of Object.keys(impl)) {
    if (typeof (impl as Record<string, unknown>)[key] !== 'function' || accepted.has(key)) continue
    const closest = closestName(key, methods)
    const message = `unknown method "${key}" in the implementation of "${full}": its RPCs are ${methods.map((m) => `"${m}"`).join(', ')}${closest === undefined ? '' : `; did you mean "${closest}"?`}`
    // Lenient: re-binding after the proto changed (an RPC renamed or removed) says so and binds the rest.
    if (!options.lenient) throw runtimeError('UNKNOWN_METHOD', message)
    options.onUnknown?.(message)
  }
  const method = (name: string): unknown => memberOf(impl, name) ?? memberOf(impl, lowerCamel(name))
  for (const tool of toolsOf(table, full)) bindTool(tool, method(tool.spec.method), impl)
  if (full === OPERATIONS_SERVICE)
    bindOperations(table, { GetOperation: method('GetOperation'), CancelOperation: method('CancelOperation') }, impl)
  return full
}

/** Binds the `google.longrunning.Operations` methods every long-running tool of `table` follows its operations with. */
export function bindOperations(table: ToolTable, handlers: Readonly<Record<string, unknown>>, target: unknown): void {
  const get = typeof handlers.GetOperation === 'function' ? (handlers.GetOperation as RpcHandler) : undefined
  const cancel = typeof handlers.CancelOperation === 'function' ? (handlers.CancelOperation as RpcHandler) : undefined
  for (const tool of table.tools) if (tool.spec.longRunning !== undefined) tool.operations = { get, cancel, target }
}

/**
 * The RPC of `methods` whose name is nearest to `key` by edit distance,
 * ignoring case (so a lowerCamel key counts as its RPC's name); none when
 * even the nearest needs more edits than half of `key`'s length.
 */
function closestName(key: string, methods: readonly string[]): string | undefined {
  let best: string | undefined
  let bestDistance = Math.floor(key.length / 2) + 1
  for (const method of methods) {
    const distance = editDistance(key.toLowerCase(), method.toLowerCase())
    if (distance < bestDistance) [best, bestDistance] = [method, distance]
  }
  return best
}

/** Levenshtein distance (insert, delete, substitute), one row at a time. */
function editDistance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    row = next
  }
  return row[b.length]!
}

/** The tools of `service` (a full name, no leading dot). */
export function toolsOf(table: ToolTable, service: string): CompiledTool[] {
  return table.tools.filter((tool) => stripDot(tool.spec.service) === service)
}

/**
 * Binds one tool to a backend method, for both kinds of backend (an
 * implementation object, a `Backend`'s handlers): `method` when it is a
 * function (else the call answers Unimplemented), `target` as its `this`,
 * and the stream caps (`undefined`: the defaults of runtime/backend.ts).
 */
export function bindTool(tool: CompiledTool, method: unknown, target: unknown, streamCaps?: StreamCaps): void {
  tool.handler = typeof method === 'function' ? (method as RpcHandler) : undefined
  tool.target = target
  tool.unbound = statusText(12, `method ${tool.spec.method} not implemented`)
  tool.streamCaps = streamCaps
}
