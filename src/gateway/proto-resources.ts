/**
 * Resources from the proto's own resource model (AIP-122/123): a message
 * with a `google.api.resource` option, a `pattern` and a standard
 * `Get<Resource>` RPC among the tools becomes a resource template
 * (`pubsub://projects/{project}/topics/{topic}`); `resources/read` calls
 * that RPC's tool (so the tool's scopes and the caller's auth apply) and
 * answers its reply as JSON; a `List<Resources>` RPC completes the last
 * variable. Templates are never listed by `resources/list`.
 */
import { buildWarning, type BuildWarning, type MessageModel, type ProtoModel } from '../proto/index.ts'
import type { ProtoServerSpec } from '../runtime/types.ts'
import { Server, type ResourceTemplateDefinition, type TemplateVariables } from '../server/index.ts'

/** One resource type as a template: what {@link withProtoResources} adds. */
export interface ProtoResource {
  template: ResourceTemplateDefinition
  /** The resource type (`pubsub.googleapis.com/Topic`). */
  type: string
  /** The pattern the template spells (`projects/{project}/topics/{topic}`). */
  pattern: string
  /** The tool of the Get RPC, and the JSON name of its request field holding the resource name. */
  get: { tool: string; field: string }
  /** The tool of the List RPC completing the pattern's last variable, its parent field and the reply's list field. */
  list?: { tool: string; parentField?: string; itemsField: string; nameField: string }
}

/** Options of {@link protoResources}. */
export interface ProtoResourceOptions {
  /** The URI scheme of every template. @default the resource type's service name (`pubsub` of `pubsub.googleapis.com/Topic`) */
  scheme?: string
}

interface ResourceOption {
  type?: string
  pattern?: string[]
  plural?: string
  singular?: string
}

const resourceOption = (message: MessageModel): ResourceOption | undefined =>
  message.customOptions?.['google.api.resource'] as ResourceOption | undefined

/** A pattern as an RFC 6570 template path, or why it cannot be one (`{name=**}`: a variable spanning segments). */
function templatePath(pattern: string): { path: string; variables: string[] } | { problem: string } {
  const variables: string[] = []
  for (const segment of pattern.split('/')) {
    const match = /^\{([a-z][a-z0-9_]*)\}$/.exec(segment)
    if (match) variables.push(match[1]!)
    else if (segment.includes('{') || segment.includes('}') || segment === '')
      return { problem: `segment "${segment}" is not a literal or a {variable}` }
  }
  if (variables.length === 0) return { problem: 'it has no variable' }
  return { path: pattern, variables }
}

/** The JSON name of a field, as the tools' schemas name it. */
const jsonName = (field: { jsonName: string }): string => field.jsonName

/**
 * The resource templates of `model`'s served RPCs (those with a tool in
 * `spec`), and a warning for each resource type or pattern left out.
 */
export function protoResources(
  model: ProtoModel,
  spec: Pick<ProtoServerSpec, 'tools'>,
  options: ProtoResourceOptions = {},
): { resources: ProtoResource[]; warnings: BuildWarning[] } {
  const resources: ProtoResource[] = []
  const warnings: BuildWarning[] = []
  const toolOf = new Map(spec.tools.map((t) => [`${t.service}.${t.method}`, t]))
  const methods = model.services.flatMap((s) =>
    s.methods.map((m) => ({ service: s, method: m, tool: toolOf.get(`${s.fullName}.${m.name}`) })),
  )
  for (const message of model.messages.values()) {
    const option = resourceOption(message)
    if (!option?.type || !option.pattern?.length) continue
    const short = message.fullName.slice(message.fullName.lastIndexOf('.') + 1)
    const get = methods.find((m) => m.tool && m.method.name === `Get${short}` && m.method.responseType === message.fullName)
    if (get === undefined) continue
    const request = model.messages.get(get.method.requestType)
    const nameField =
      request?.fields.find(
        (f) => (f.customOptions?.['google.api.resource_reference'] as { type?: string } | undefined)?.type === option.type,
      ) ?? request?.fields.find((f) => f.name === 'name')
    if (nameField === undefined) continue
    const plural = option.plural ? option.plural[0]!.toUpperCase() + option.plural.slice(1) : `${short}s`
    const list = methods.find((m) => m.tool && m.method.name === `List${plural}`)
    const scheme = options.scheme ?? option.type.slice(0, option.type.indexOf('.') > 0 ? option.type.indexOf('.') : undefined).toLowerCase()
    const patterns = option.pattern.filter((p) => p.includes('{'))
    for (const [i, pattern] of patterns.entries()) {
      const path = templatePath(pattern)
      if ('problem' in path) {
        warnings.push(
          buildWarning(
            'RESOURCE_PATTERN',
            `resource ${option.type}: pattern "${pattern}" cannot be a URI template (${path.problem}), so it gets no resource template`,
          ),
        )
        continue
      }
      const listPart = list && listOf(model, list.method, message, option)
      resources.push({
        template: {
          uriTemplate: `${scheme}://${path.path}`,
          name: patterns.length > 1 ? `${short}${i + 1}` : short,
          title: short,
          ...(message.comment ? { description: message.comment.trim().replace(/\s+/g, ' ') } : {}),
          mimeType: 'application/json',
        },
        type: option.type,
        pattern,
        get: { tool: get.tool!.name, field: jsonName(nameField) },
        ...(listPart && list ? { list: { tool: list.tool!.name, ...listPart } } : {}),
      })
    }
  }
  return { resources, warnings }
}

/** How a List RPC's request names the parent and its reply the items. */
function listOf(
  model: ProtoModel,
  method: { requestType: string; responseType: string },
  resource: MessageModel,
  option: ResourceOption,
): { parentField?: string; itemsField: string; nameField: string } | undefined {
  const request = model.messages.get(method.requestType)
  const reply = model.messages.get(method.responseType)
  const items = reply?.fields.find((f) => f.repeated && f.type.kind === 'message' && f.type.typeName === resource.fullName)
  if (request === undefined || items === undefined) return undefined
  const parent =
    request.fields.find(
      (f) => (f.customOptions?.['google.api.resource_reference'] as { child_type?: string } | undefined)?.child_type === option.type,
    ) ??
    request.fields.find((f) => f.name === 'parent') ??
    request.fields.find((f) => (f.customOptions?.['google.api.field_behavior'] as string[] | undefined)?.includes('REQUIRED'))
  return { ...(parent ? { parentField: jsonName(parent) } : {}), itemsField: jsonName(items), nameField: 'name' }
}

/** The text of a tool result, or the error it carries (thrown). */
function replyText(result: { isError?: boolean; content: unknown[] }, uri: string): string {
  const text = (result.content[0] as { text?: string } | undefined)?.text ?? ''
  if (result.isError) throw new Error(`cannot read ${uri}: ${text}`)
  return text
}

/** Fills `pattern`'s variables from `values`, up to (not including) the variable `upTo`; `undefined` when one is missing. */
function parentOf(pattern: string, upTo: string, values: Record<string, string>): string | undefined {
  const segments = pattern.split('/')
  const at = segments.indexOf(`{${upTo}}`)
  const head = segments.slice(0, Math.max(0, at - 1))
  const filled = head.map((s) => (s.startsWith('{') ? values[s.slice(1, -1)] : s))
  return filled.some((s) => s === undefined || s === '') ? undefined : filled.join('/')
}

/**
 * A server serving `server`'s tools (their backends bound) and the
 * templates of `resources`: each read calls its Get tool through the
 * server, as the caller, so a tool the caller may not see cannot be read.
 */
export function withProtoResources(server: Server, resources: readonly ProtoResource[]): Server {
  if (resources.length === 0) return server
  const builder = Server.builder(server.name).version(server.version).include(server)
  for (const resource of resources) {
    const variables = [...resource.pattern.matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((m) => m[1]!)
    const last = variables.at(-1)!
    const list = resource.list
    builder.resourceTemplate(
      resource.template,
      async (uri, _vars: TemplateVariables, context) => {
        const path = uri.slice(uri.indexOf('://') + 3)
        const text = replyText(await served.call(resource.get.tool, { [resource.get.field]: path }, context), uri)
        return { contents: [{ uri, mimeType: 'application/json', text }] }
      },
      list
        ? {
            complete: {
              [last]: async (value, context) => {
                const parent = parentOf(resource.pattern, last, context.arguments ?? {})
                if (list.parentField && parent === undefined) return []
                const args = list.parentField ? { [list.parentField]: parent } : {}
                const result = await served.call(list.tool, args, context)
                if (result.isError) return []
                const reply = JSON.parse(replyText(result, resource.template.uriTemplate)) as Record<string, unknown>
                const items = (reply[list.itemsField] as Array<Record<string, unknown>> | undefined) ?? []
                return items
                  .map(
                    (item) =>
                      String(item[list.nameField] ?? '')
                        .split('/')
                        .at(-1) ?? '',
                  )
                  .filter((id) => id !== '' && id.startsWith(value))
              },
            },
          }
        : undefined,
    )
  }
  // The readers above call through the built server (they run only once it serves).
  const served = builder.build() as Server
  return served
}
