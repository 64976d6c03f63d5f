/**
 * Resource templates: a URI template (RFC 6570, the SDK's `UriTemplate`)
 * whose variables a reader receives, listed by `resources/templates/list`
 * and read by `resources/read` for any URI the template matches.
 */
import { UriTemplate } from '@modelcontextprotocol/server'
import { runtimeError } from '../../runtime/errors.ts'
import type { CallContext } from '../../runtime/types.ts'
import type { Completer } from './completer.ts'
import type { ResourceContents, ResourceDefinition } from './resources.ts'

/**
 * The key of the context of a template's read, completion and listing
 * holding a call of the tools of the server serving the request, as its
 * caller (the templates of the proto's resource model read through their
 * Get RPC's tool: proto-resources.ts). Not part of the public context; a
 * registered symbol, so two runtime copies (a module bundled apart) agree on it.
 */
export const SERVED_CALL = Symbol.for('unplugin-proto-mcp.served-call')

/** A tool call on the serving server, as the request's caller: what {@link SERVED_CALL} holds. */
export type ServedCall = (tool: string, args: unknown) => Promise<{ isError?: boolean; content?: unknown[] }>

/** A resource template as `resources/templates/list` shows it. */
export interface ResourceTemplateDefinition {
  /** An RFC 6570 URI template, e.g. `test://template/{id}/data`. */
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  [key: string]: unknown
}

/** The variables of a matched URI, by name (a list for exploded variables). */
export type TemplateVariables = Record<string, string | string[]>

/**
 * Reads a resource of a template: receives the URI and its variables; a
 * string is its text, otherwise `{ contents }` as `resources/read` answers.
 */
export type TemplateReader<State = unknown> = (
  uri: string,
  variables: TemplateVariables,
  context: CallContext & { state: State },
) => string | { contents: ResourceContents[] } | Promise<string | { contents: ResourceContents[] }>

/** Options of a resource template. */
export interface ResourceTemplateOptions<State = unknown> {
  /** Completers of the template's variables, by variable name (`completion/complete`). @default none */
  complete?: Record<string, Completer<State>>
}

/** A resource template with its compiled matcher, reader and completers. */
export interface TemplateEntry {
  readonly template: ResourceTemplateDefinition
  readonly matcher: UriTemplate
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
  readonly read: TemplateReader<any>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
  readonly complete: Readonly<Record<string, Completer<any>>>
  /** The resources of the template `resources/list` lists (the proto's, when `listResources` asks). */
  readonly list?: (context: CallContext & { [SERVED_CALL]?: ServedCall }) => Promise<ResourceDefinition[]>
  /** A template of a `?mcp` server's resource model: it comes and goes with its server's tools (proto-resources.ts). */
  readonly proto?: true
}

/** Checks and compiles a resource template before it is added. */
export function checkTemplate(
  template: ResourceTemplateDefinition,
  read: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
  options: ResourceTemplateOptions<any> = {},
): TemplateEntry {
  if (typeof template?.uriTemplate !== 'string' || template.uriTemplate === '') {
    throw runtimeError('BAD_SPEC', 'a resource template needs a non-empty "uriTemplate"')
  }
  if (typeof template.name !== 'string') throw runtimeError('BAD_SPEC', `resource template "${template.uriTemplate}" needs a "name"`)
  if (typeof read !== 'function') throw runtimeError('BAD_SPEC', `resource template "${template.uriTemplate}" has no reader function`)
  let matcher: UriTemplate
  try {
    matcher = new UriTemplate(template.uriTemplate)
  } catch (cause) {
    throw runtimeError('BAD_SPEC', `resource template "${template.uriTemplate}" is not a URI template: ${(cause as Error).message}`, cause)
  }
  const complete = options.complete ?? {}
  for (const [name, completer] of Object.entries(complete)) {
    if (!matcher.variableNames.includes(name)) {
      throw runtimeError('BAD_SPEC', `resource template "${template.uriTemplate}" has no variable "${name}" to complete`)
    }
    if (typeof completer !== 'function')
      throw runtimeError('BAD_SPEC', `resource template "${template.uriTemplate}": the completer of "${name}" is not a function`)
  }
  return { template: { ...template }, matcher, read: read as TemplateReader, complete: { ...complete } }
}

/** The first template (in order of addition) matching `uri`, with its variables. */
export function matchTemplate(
  templates: ReadonlyMap<string, TemplateEntry>,
  uri: string,
): { entry: TemplateEntry; variables: TemplateVariables } | undefined {
  for (const entry of templates.values()) {
    let variables: TemplateVariables | null
    try {
      variables = entry.matcher.match(uri)
    } catch {
      // A URI too long for the matcher matches no template.
      continue
    }
    if (!variables) continue
    if (!entry.proto) return { entry, variables }
    const names = resourceNameParts(variables)
    if (names !== undefined) return { entry, variables: names }
  }
  return undefined
}

/**
 * The variables of a proto resource's URI as the segments of its resource
 * name: percent-decoded, each a whole segment (no `/`), with no query or
 * fragment after the last; `undefined` when the URI names no resource.
 */
function resourceNameParts(variables: TemplateVariables): Record<string, string> | undefined {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(variables)) {
    if (typeof value !== 'string' || /[?#]/.test(value)) return undefined
    let decoded: string
    try {
      decoded = decodeURIComponent(value)
    } catch {
      return undefined
    }
    if (decoded === '' || decoded.includes('/')) return undefined
    out[name] = decoded
  }
  return out
}
