/**
 * Resources from the proto's own resource model (AIP-122/123), at build
 * time: a message with a `google.api.resource` option, a `pattern` and a
 * standard `Get<Resource>` RPC among the tools becomes a resource template
 * (`pubsub://projects/{project}/topics/{topic}`), written into the spec
 * (`ProtoServerSpec.resources`) for both outputs, the `?mcp` module and the
 * command's spec. The server reads them through the Get RPC's tool and
 * completes and lists them through the List RPC's (server/primitives/proto-resources.ts).
 * Here, not in gateway/, since codegen/ writes them too and cannot import gateway/.
 */
import type { ProtoResourceListing, ProtoResourceSpec, ResourceSchemeOption } from '../contract/index.ts'
import { buildWarning, type BuildWarning, type MessageModel, type ProtoModel } from '../proto/index.ts'

/** Options of {@link protoResources}. */
export interface ProtoResourceOptions {
  /**
   * The URI scheme of every template, or schemes by the default one (`{ pubsub: 'gcp-pubsub' }`).
   * @default the resource type's service name (`pubsub` of `pubsub.googleapis.com/Topic`)
   */
  scheme?: ResourceSchemeOption
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

/** The scheme of a resource type's templates: its service name (`pubsub`), unless `option` names another. */
function schemeOf(type: string, option: ResourceSchemeOption | undefined): string {
  const dot = type.indexOf('.')
  const standard = type.slice(0, dot > 0 ? dot : type.indexOf('/') > 0 ? type.indexOf('/') : undefined).toLowerCase()
  if (typeof option === 'string') return option
  return option !== undefined && Object.hasOwn(option, standard) ? option[standard]! : standard
}

/** The JSON name of a field, as the tools' schemas name it. */
const jsonName = (field: { jsonName: string }): string => field.jsonName

/**
 * The resource templates of `model`'s served RPCs (those with a tool in
 * `spec`), and a warning for each resource type or pattern left out.
 */
export function protoResources(
  model: ProtoModel,
  tools: ReadonlyArray<{ name: string; service: string; method: string }>,
  options: ProtoResourceOptions = {},
): { resources: ProtoResourceSpec[]; warnings: BuildWarning[] } {
  const resources: ProtoResourceSpec[] = []
  const warnings: BuildWarning[] = []
  const toolOf = new Map(tools.map((t) => [`${t.service}.${t.method}`, t]))
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
    const scheme = schemeOf(option.type, options.scheme)
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
): { parentField?: string; pageSizeField?: string; itemsField: string; nameField: string } | undefined {
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
  const pageSize = request.fields.find((f) => f.name === 'page_size' && !f.repeated && f.type.kind !== 'message')
  return {
    ...(parent ? { parentField: jsonName(parent) } : {}),
    ...(pageSize ? { pageSizeField: jsonName(pageSize) } : {}),
    itemsField: jsonName(items),
    nameField: 'name',
  }
}

/** The parent shape of a pattern's resources: the pattern less its last collection and id (`projects/{project}`). */
const parentShape = (pattern: string): string[] => pattern.split('/').slice(0, -2)

/** Whether `parent` (`projects/p1`) has the shape `shape` (`projects/{project}`). */
const fitsShape = (shape: string[], parent: string): boolean => {
  const given = parent.split('/')
  return shape.length === given.length && shape.every((s, i) => (s.startsWith('{') ? given[i] !== '' : s === given[i]))
}

/**
 * What `listResources` will not list, said at build time (docs/guide/resources.md,
 * "Listing resources"): a resource whose List RPC needs a parent when no
 * `under` entry has its parent's shape, and an `under` entry no resource's
 * parent has the shape of. `resources/list` would answer without them, silently.
 */
export function listingWarnings(resources: readonly ProtoResourceSpec[], listing: ProtoResourceListing | undefined): BuildWarning[] {
  if (listing === undefined) return []
  const listed = resources.filter((r) => r.list !== undefined)
  const warnings: BuildWarning[] = []
  for (const resource of listed) {
    if (resource.list!.parentField === undefined) continue
    const shape = parentShape(resource.pattern)
    if (listing.under.some((parent) => fitsShape(shape, parent))) continue
    warnings.push(
      buildWarning(
        'RESOURCE_LISTING',
        `resource ${resource.type}: its List RPC (tool ${resource.list!.tool}) needs a parent like ${shape.join('/')}, and listResources.under names none: resources/list lists none of them`,
        `add a parent of that shape to listResources.under`,
      ),
    )
  }
  for (const parent of listing.under) {
    if (listed.some((r) => r.list!.parentField !== undefined && fitsShape(parentShape(r.pattern), parent))) continue
    const shapes = [...new Set(listed.filter((r) => r.list!.parentField !== undefined).map((r) => parentShape(r.pattern).join('/')))]
    warnings.push(
      buildWarning(
        'RESOURCE_LISTING',
        `listResources.under "${parent}" is the parent of no resource a List RPC lists` +
          (shapes.length === 0 ? ' (none needs a parent)' : ` (their parents: ${shapes.join(', ')})`),
      ),
    )
  }
  return warnings
}
