/**
 * The resource templates of a spec's `resources` (from `google.api.resource`,
 * built by schema/proto-resources.ts; docs/guide/resources.md): a read
 * calls the Get RPC's tool with the URI's path as the name, a completion of
 * the pattern's last variable calls the List RPC's, and `resources/list`
 * lists through the List RPC's when the spec asks. Every call is a tool
 * call on the serving server as the request's caller ({@link SERVED_CALL}),
 * so the tool's scopes, validation, backend and deadline apply.
 */
import type { ProtoResourceListing, ProtoResourceSpec, ProtoResourcesSpec } from '../../contract/index.ts'
import type { CallContext } from '../../runtime/types.ts'
import type { Completer } from './completer.ts'
import { checkTemplate, SERVED_CALL, type ServedCall, type TemplateEntry } from './resource-templates.ts'
import type { ResourceDefinition } from './resources.ts'

type Served = CallContext & { [SERVED_CALL]?: ServedCall }

/** The tool call of `context`'s request; only the server's handlers give one. */
function servedCall(context: Served, what: string): ServedCall {
  const call = context[SERVED_CALL]
  if (call === undefined) throw new Error(`${what}: proto resources are read through a serving server`)
  return call
}

/** The text of a tool result, or the error it carries (thrown). */
function replyText(result: { isError?: boolean; content?: unknown[] }, uri: string): string {
  const text = (result.content?.[0] as { text?: string } | undefined)?.text ?? ''
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

/** Whether `parent` (`projects/p1`) is a parent `pattern`'s resources live under (`projects/{project}/topics/{topic}`). */
function isParentOf(pattern: string, parent: string): boolean {
  const head = pattern.split('/').slice(0, -2)
  const given = parent.split('/')
  return head.length === given.length && head.every((s, i) => (s.startsWith('{') ? given[i] !== '' : s === given[i]))
}

/** The resource names of one List call's reply (`max` asked for as its page size); none when the call fails. */
async function listNames(call: ServedCall, list: NonNullable<ProtoResourceSpec['list']>, parent: string | undefined, max: number) {
  const args: Record<string, unknown> = {}
  if (list.parentField !== undefined) args[list.parentField] = parent
  if (list.pageSizeField !== undefined) args[list.pageSizeField] = max
  // A List the caller may not call (a hidden tool) or that fails lists nothing: the read of a resource still works.
  const result = await call(list.tool, args).catch(() => undefined)
  if (result === undefined || result.isError) return []
  const reply = JSON.parse(replyText(result, list.tool)) as Record<string, unknown>
  const items = (reply[list.itemsField] as Array<Record<string, unknown>> | undefined) ?? []
  return items.map((item) => String(item[list.nameField] ?? '')).filter((name) => name !== '')
}

/**
 * The resources `resources/list` shows of `resource`: its List RPC called
 * once without a parent, or once for each parent of `listing` its pattern
 * lives under, `remaining` at most.
 */
async function listed(resource: ProtoResourceSpec, listing: ProtoResourceListing, call: ServedCall): Promise<ResourceDefinition[]> {
  const list = resource.list!
  const parents = list.parentField === undefined ? [undefined] : listing.under.filter((p) => isParentOf(resource.pattern, p))
  const scheme = resource.template.uriTemplate.slice(0, resource.template.uriTemplate.indexOf('://') + 3)
  const out: ResourceDefinition[] = []
  for (const parent of parents) {
    if (out.length >= listing.max) break
    for (const name of await listNames(call, list, parent, listing.max - out.length)) {
      if (out.length >= listing.max) break
      out.push({ uri: `${scheme}${name}`, name, title: resource.template.title, mimeType: 'application/json' })
    }
  }
  return out
}

/** The template entry of one resource of the spec (`listing`: what `resources/list` lists, when asked). */
function protoTemplateEntry(resource: ProtoResourceSpec, listing: ProtoResourceListing | undefined): TemplateEntry {
  const variables = [...resource.pattern.matchAll(/\{([a-z][a-z0-9_]*)\}/g)].map((m) => m[1]!)
  const last = variables.at(-1)!
  const list = resource.list
  const complete: Record<string, Completer> = {}
  if (list !== undefined) {
    complete[last] = async (value, context) => {
      const parent = parentOf(resource.pattern, last, context.arguments)
      if (list.parentField !== undefined && parent === undefined) return []
      const names = await listNames(servedCall(context, resource.template.uriTemplate), list, parent, 1000)
      return names.map((name) => name.split('/').at(-1)!).filter((id) => id.startsWith(value))
    }
  }
  const entry = checkTemplate(
    resource.template,
    async (uri: string, values: Record<string, string>, context: Served) => {
      // The resource name from the variables (decoded, resource-templates.ts), not the URI's text.
      const path = resource.pattern.replace(/\{([a-z][a-z0-9_]*)\}/g, (_, name: string) => values[name]!)
      const result = await servedCall(context, uri)(resource.get.tool, { [resource.get.field]: path })
      return { contents: [{ uri, mimeType: 'application/json', text: replyText(result, uri) }] }
    },
    { complete },
  )
  const lister =
    listing !== undefined && list !== undefined
      ? (context: Served) => listed(resource, listing, servedCall(context, 'resources/list'))
      : undefined
  return { ...entry, ...(lister === undefined ? {} : { list: lister }), proto: true }
}

/** The template entries of a spec's `resources`. */
export function protoTemplateEntries(resources: ProtoResourcesSpec): TemplateEntry[] {
  return resources.templates.map((resource) => protoTemplateEntry(resource, resources.list))
}

/** The templates of `entries` that came from a proto's resource model (they go with their server's tools). */
export function protoTemplates(entries: Iterable<TemplateEntry>): TemplateEntry[] {
  return [...entries].filter((t) => t.proto)
}
