/**
 * Tool metadata from method options (docs/mapping.md, "Extensions"): the package's
 * `(proto_mcp.tool)` option (`protos/proto_mcp/options.proto`) and
 * protobuf's own `idempotency_level`.
 */
import type { ToolAnnotations } from '../contract/index.ts'
import type { MethodModel, ServiceModel } from '../proto/model.ts'
import type { MethodGlobs } from './method-glob.ts'

/** `(proto_mcp.tool)`: the `MethodOptions` extension of `protos/proto_mcp/options.proto`. */
export const PROTO_MCP_TOOL = 'proto_mcp.tool'

/** `(proto_mcp.service)`: the `ServiceOptions` extension of `protos/proto_mcp/options.proto`. */
export const PROTO_MCP_SERVICE = 'proto_mcp.service'

export type { ToolAnnotations }

/** What a method's options say about its tool. */
export interface ToolMetadata {
  /** A custom tool name (still subject to the 64-character rule). */
  name?: string
  title?: string
  /** Present only when some hint is set. */
  annotations?: ToolAnnotations
  /** No tool for this RPC. */
  hidden: boolean
}

const HINTS = {
  read_only_hint: 'readOnlyHint',
  destructive_hint: 'destructiveHint',
  idempotent_hint: 'idempotentHint',
  open_world_hint: 'openWorldHint',
} as const

/**
 * Reads a method's tool metadata. `idempotency_level = NO_SIDE_EFFECTS`
 * implies `readOnlyHint` and `idempotentHint`, `IDEMPOTENT` implies
 * `idempotentHint`; hints set in `(proto_mcp.tool)` win.
 */
export function toolMetadata(method: MethodModel): ToolMetadata {
  const tool = (method.customOptions[PROTO_MCP_TOOL] ?? {}) as Record<string, unknown>
  const annotations: ToolAnnotations = {}
  const level = method.options.idempotency_level
  if (level === 'NO_SIDE_EFFECTS' || level === 1) Object.assign(annotations, { readOnlyHint: true, idempotentHint: true })
  if (level === 'IDEMPOTENT' || level === 2) annotations.idempotentHint = true
  for (const [key, hint] of Object.entries(HINTS)) {
    if (typeof tool[key] === 'boolean') annotations[hint] = tool[key]
  }
  const meta: ToolMetadata = { hidden: tool.hidden === true }
  if (typeof tool.name === 'string' && tool.name !== '') meta.name = tool.name
  if (typeof tool.title === 'string' && tool.title !== '') meta.title = tool.title
  if (Object.keys(annotations).length > 0) meta.annotations = annotations
  return meta
}

const scopesIn = (options: unknown): string[] => {
  const scopes = (options as { scopes?: unknown } | undefined)?.scopes
  return Array.isArray(scopes) ? scopes.filter((s): s is string => typeof s === 'string' && s !== '') : []
}

/**
 * The OAuth scopes a method's tool requires (docs/serving.md, "Tools, errors and visibility"): its
 * service's `(proto_mcp.service).scopes`, its own `(proto_mcp.tool).scopes`
 * and those of every `methodScopes` glob matching its full name, sorted;
 * `undefined` when none.
 */
export function toolScopes(service: ServiceModel, method: MethodModel, methodScopes: MethodGlobs<readonly string[]>): string[] | undefined {
  const scopes = new Set([
    ...scopesIn(service.customOptions[PROTO_MCP_SERVICE]),
    ...scopesIn(method.customOptions[PROTO_MCP_TOOL]),
    ...methodScopes.valuesFor(`${service.fullName}.${method.name}`).flat(),
  ])
  return scopes.size === 0 ? undefined : [...scopes].sort()
}
