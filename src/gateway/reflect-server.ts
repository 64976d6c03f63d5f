/**
 * The reflection gateway: a `Server` built at start-up from what a running
 * gRPC server says about itself (server reflection), with no `.proto` on
 * disk, forwarding every call to it; and re-discovery that swaps the tools
 * of a serving server when the backend's descriptors change.
 */
import { createHash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import { grpc, type GrpcOptions } from '../grpc/grpc-backend.ts'
import { fetchDescriptors, type ReflectedServices, type ReflectionOptions } from '../grpc/reflection-client.ts'
import { serverName } from '../codegen/index.ts'
import {
  buildWarning,
  isOptionOrWellKnown,
  modelFromDescriptors,
  readDescriptorSet,
  type BuildWarning,
  type FromDescriptorsOptions,
} from '../proto/index.ts'
import type { Backend } from '../runtime/backend.ts'
import type { MethodFilter, Profile, ToolNames } from '../schema/index.ts'
import { createProtoServer, type Server } from '../server/index.ts'
import type { DiscoverySpec } from '../contract/discovery.ts'
import type { ListResourcesOption, ResourceSchemeOption } from '../contract/resource-options.ts'
import { specFromModel, type BuiltSpec } from './build-spec.ts'

/** Options of {@link reflectSpec} and {@link reflectServer}. */
export interface ReflectOptions {
  /**
   * Services that become tools, by full (`playground.v1.VibeService`) or
   * short (`VibeService`) name; one the server does not offer is an error.
   * @default every service the server lists (but the reflection service)
   */
  services?: readonly string[]
  /** Which schemas the tools advertise (see docs/profiles.md). @default 'portable' */
  profile?: Profile
  /** How tools are named, as the plugin's `toolNames` option. @default 'method' */
  toolNames?: ToolNames
  /** The token budget of one tool, as the plugin's `toolTokenBudget` option. @default 1500 */
  toolTokenBudget?: number | false
  /** Which RPCs become tools, as the plugin's `methods` option. @default every RPC */
  methods?: MethodFilter
  /** OAuth scopes by method glob, as the plugin's `methodScopes` option. @default {} */
  methodScopes?: Readonly<Record<string, string | readonly string[]>>
  /** Tool discovery, as the plugin's `discovery` option (docs/guide/big-apis.md). @default { mode: 'auto' } */
  discovery?: DiscoverySpec
  /** The resource templates' URI scheme, as the plugin's `resourceScheme` option (docs/guide/resources.md). @default the resource type's service name */
  resourceScheme?: ResourceSchemeOption
  /** What `resources/list` lists of them, as the plugin's `listResources` option. @default false */
  listResources?: ListResourcesOption
  /** The server's name (`serverInfo.name`, and the name budget's server part). @default the first service's file name without `.proto` */
  name?: string
  /** How the reflection call is made (credentials, metadata, deadline). @default {} */
  reflection?: ReflectionOptions
  /**
   * A descriptor set (`buf build -o api.binpb`, `protoc --include_source_info`) whose comments describe the
   * reflected files of the same names that come without `source_code_info`. @default none (the server's comments, if any)
   */
  descriptor?: string
}

/** A spec built from reflection, with what was found and how long it took. */
export interface ReflectedSpec extends BuiltSpec {
  /** Full names of the services that became tools, in the server's order. */
  services: string[]
  /** A digest of the services and descriptors: equal digests, equal tools. */
  fingerprint: string
  /** Milliseconds spent building the tools and compiling their validators (the reflection round trips not included). */
  buildMs: number
}

/** Options of {@link reflectServer}: {@link ReflectOptions} and how calls are forwarded. */
export interface ReflectServerOptions extends ReflectOptions {
  /** Options of the gRPC backend the tools forward to (deadline, forwarded headers, ...). @default {} */
  grpc?: GrpcOptions
  /** Forward to this backend instead of a new `grpc(target, options.grpc)`. @default a gRPC backend on `target` */
  backend?: Backend
  /** Receives the build's warnings (a tool name over the budget, ...): `{ code, message, fix? }`. @default warnings are dropped */
  onWarning?: (warning: BuildWarning) => void
}

/**
 * The full names in `listed` that `wanted` (full or short names) picks, in
 * the server's order; throws naming an unknown one, or one the server
 * describes no file for (`undescribed`).
 */
function pickServices(
  listed: readonly string[],
  wanted: readonly string[] | undefined,
  target: string,
  undescribed: ReflectedServices['undescribed'],
): string[] {
  if (wanted === undefined) return [...listed]
  const shortName = (full: string): string => full.slice(full.lastIndexOf('.') + 1)
  const picked = new Set<string>()
  for (const name of wanted) {
    const hits = listed.includes(name) ? [name] : listed.filter((full) => shortName(full) === name)
    const missing = undescribed.find((u) => u.service === name || shortName(u.service) === name)
    if (hits.length === 0 && missing) {
      throw new Error(
        `service "${missing.service}" is listed by the gRPC server at ${target}, but its reflection service has no file for it (${missing.reason})`,
      )
    }
    if (hits.length === 0) {
      throw new Error(
        `service "${name}" is not offered by the gRPC server at ${target} (it offers ${listed.length === 0 ? 'none' : listed.join(', ')})`,
      )
    }
    if (hits.length > 1)
      throw new Error(`service "${name}" is ambiguous on the gRPC server at ${target}: ${hits.join(', ')} (give the full name)`)
    picked.add(hits[0]!)
  }
  return listed.filter((full) => picked.has(full))
}

/**
 * Asks the gRPC server at `target` for its services by server reflection and
 * builds the spec a `.proto` of them would give: the same tools, schemas,
 * validators and codec (descriptions from comments when the server sends
 * `source_code_info`, the fallback descriptions otherwise). Throws a
 * one-line reason: the server is down, has no reflection, lacks a service.
 */
export async function reflectSpec(target: string, options: ReflectOptions = {}): Promise<ReflectedSpec> {
  const reflected = await fetchDescriptors(target, options.reflection)
  const services = pickServices(reflected.services, options.services, target, reflected.undescribed)
  const started = performance.now()
  const model = modelFromDescriptors(reflected.files, { services, source: `grpc://${target}`, ...commentsFrom(options.descriptor) })
  // A reflected declaration's location names its descriptor file (`vibe.proto`).
  const firstFile = model.services[0]?.loc?.file
  const name = options.name ?? (firstFile === undefined ? 'grpc' : serverName(firstFile))
  const built = specFromModel(model, name, {
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.toolNames ? { toolNames: options.toolNames } : {}),
    ...(options.toolTokenBudget !== undefined ? { toolTokenBudget: options.toolTokenBudget } : {}),
    ...(options.methods ? { methods: options.methods } : {}),
    ...(options.methodScopes ? { methodScopes: options.methodScopes } : {}),
    ...(options.discovery ? { discovery: options.discovery } : {}),
    ...(options.resourceScheme === undefined ? {} : { resourceScheme: options.resourceScheme }),
    ...(options.listResources === undefined ? {} : { listResources: options.listResources }),
  })
  const buildMs = performance.now() - started
  const digest = createHash('sha256')
  digest.update(JSON.stringify(services))
  for (const bytes of [...reflected.files].sort(compareBytes)) digest.update(bytes)
  const skipped = options.services === undefined ? undescribedWarnings(reflected.undescribed, target) : []
  return { ...built, warnings: [...skipped, ...built.warnings], services, fingerprint: digest.digest('hex'), buildMs }
}

/** The options of `modelFromDescriptors` that take comments from the descriptor set at `file`, whose comments are the user's own. */
function commentsFrom(file: string | undefined): Pick<FromDescriptorsOptions, 'comments' | 'bundled'> {
  if (file === undefined) return {}
  return { comments: readDescriptorSet(file).map((f) => f.bytes), bundled: isOptionOrWellKnown }
}

/** One warning for each service the gRPC server at `target` lists but sends no file for (it gets no tools). */
export function undescribedWarnings(undescribed: ReflectedServices['undescribed'], target: string): BuildWarning[] {
  return undescribed.map((u) =>
    buildWarning(
      'SERVICE_UNDESCRIBED',
      `service ${u.service} gets no tools: the gRPC server at ${target} lists it but sends no file for it (${u.reason})`,
    ),
  )
}

/**
 * A `Server` of the tools the gRPC server at `target` offers (see
 * {@link reflectSpec}), each service forwarded to it. For a gateway that
 * follows the backend's deploys, see {@link watchReflection}.
 */
export async function reflectServer(target: string, options: ReflectServerOptions = {}): Promise<Server> {
  const { spec, warnings, fingerprint } = await reflectSpec(target, options)
  for (const warning of warnings) options.onWarning?.(warning)
  const server = createProtoServer(spec)
  BUILT_FROM.set(server, fingerprint)
  const backend = options.backend ?? grpc(target, options.grpc)
  for (const service of Object.keys(spec.services ?? {})) server.forward(service, backend)
  return server
}

// The fingerprint of what each server of reflectServer() was built from: watchReflection's default.
const BUILT_FROM = new WeakMap<Server, string>()

/** Options of {@link watchReflection}. */
export interface WatchReflectionOptions extends ReflectOptions {
  /** Seconds between two discoveries. */
  intervalSeconds: number
  /**
   * The fingerprint of the tools `server` serves now (from {@link reflectSpec}); the first change from it is applied.
   * @default the fingerprint `server` was built from, when {@link reflectServer} built it
   * @internal the command's own: it builds its server from {@link reflectSpec}
   */
  fingerprint?: string
  /** The backend the new tools forward to: the one the serving tools use. */
  backend: Backend
  /** Told after each swap, with the new spec. @default none */
  onChange?: (spec: ReflectedSpec) => void
  /** Told when a discovery fails (the tools stay as they were). @default none */
  onError?: (error: unknown) => void
}

/**
 * Asks `target` again every `intervalSeconds` and, when its descriptors
 * changed, moves the new tools onto `server` with `handle().replaceTools`,
 * so connected clients get `notifications/tools/list_changed`. A failed
 * discovery (a backend mid-deploy) keeps the tools serving. Returns a
 * function that stops watching.
 */
export function watchReflection(server: Server, target: string, options: WatchReflectionOptions): () => void {
  let fingerprint = options.fingerprint ?? BUILT_FROM.get(server)
  if (fingerprint === undefined)
    throw new TypeError('watchReflection(): the server must come from reflectServer() (it knows what the server was built from)')
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  const round = async (): Promise<void> => {
    try {
      const next = await reflectSpec(target, options)
      if (stopped || next.fingerprint === fingerprint) return
      fingerprint = next.fingerprint
      const fresh = createProtoServer(next.spec)
      for (const service of Object.keys(next.spec.services ?? {})) fresh.forward(service, options.backend)
      server.handle().replaceTools(fresh)
      options.onChange?.(next)
    } catch (error) {
      if (!stopped) options.onError?.(error)
    }
  }
  const schedule = (): void => {
    if (stopped) return
    timer = setTimeout(() => {
      void round().finally(schedule)
    }, options.intervalSeconds * 1000)
    // A watch alone does not keep the process alive: the transport does.
    timer.unref()
  }
  schedule()
  return () => {
    stopped = true
    clearTimeout(timer)
  }
}

/** Orders byte strings, so the fingerprint does not depend on the order the server sent files in. */
function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b)
}
