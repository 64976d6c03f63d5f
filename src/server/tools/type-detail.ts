/**
 * The type tool of a `?mcp` server whose tools the token budget cut
 * (docs/profiles.md, "Token budget"), and the same answers as resources
 * (`proto-mcp://<server>/types/<name>`) for clients that let a user attach them.
 *
 * The tool and its resources travel together: `include()` carries both,
 * and the type tools of several included servers become one tool answering
 * for all of them; `replaceTools(server)` swaps both (docs/serving.md, "Changing a server while it serves").
 */
import { answerTypeDetail } from '../../runtime/type-detail.ts'
import type { TypeDetailSpec } from '../../runtime/types.ts'
import type { ResourceEntry } from '../primitives/resources.ts'
import type { ToolEntry } from './tool-set.ts'

/** One server's type detail: the server's name (its resources' URIs) and its tool and answers. */
export interface TypeSource {
  readonly server: string
  readonly detail: TypeDetailSpec
}

/** The URI of the type detail resource `name` of server `server`. */
export function typeDetailUri(server: string, name: string): string {
  return `proto-mcp://${encodeURIComponent(server)}/types/${encodeURIComponent(name)}`
}

/**
 * The type tool answering for every server of `sources`: the first one's
 * listing, and for a name two servers both know, the first one's answer
 * (a message's schema is the same wherever the same build options made it).
 */
function typeToolEntry(sources: readonly TypeSource[]): ToolEntry {
  const first = sources[0]!.detail
  // Read through, not copied: an answer may be made when first read (schema/type-detail.ts).
  let answers = first.answers
  if (sources.length > 1) {
    answers = {}
    for (const { detail } of sources) {
      for (const name of Object.keys(detail.answers)) {
        if (Object.hasOwn(answers, name)) continue
        Object.defineProperty(answers, name, { enumerable: true, get: () => detail.answers[name] })
      }
    }
  }
  const detail: TypeDetailSpec = { tool: first.tool, answers }
  return {
    listed: { ...first.tool, annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false } },
    call: async (args) => answerTypeDetail(detail, args),
    types: sources,
  }
}

/** The type tool's entry and one resource per answer. */
export function typeDetailEntries(server: string, detail: TypeDetailSpec): { tool: ToolEntry; resources: ResourceEntry[] } {
  const resources = Object.keys(detail.answers).map((name): ResourceEntry => ({
    resource: {
      uri: typeDetailUri(server, name),
      name,
      description: name.includes('.') ? `The JSON Schema of ${name}` : `The tool ${name}: its whole description and arguments`,
      mimeType: 'application/json',
    },
    read: () => detail.answers[name]!,
    typeDetail: true,
  }))
  return { tool: typeToolEntry([{ server, detail }]), resources }
}

/**
 * `entries` with the type tools of one name merged into one, at the place
 * of the first (the tools of several included servers). A hand-written
 * tool of that name is left beside it, for the caller's duplicate check.
 */
export function mergeTypeTools<T>(entries: readonly T[], entryOf: (item: T) => ToolEntry, make: (entry: ToolEntry, first: T) => T): T[] {
  const groups = new Map<string, T[]>()
  for (const item of entries) {
    const entry = entryOf(item)
    if (entry.types === undefined) continue
    const group = groups.get(entry.listed.name)
    if (group) group.push(item)
    else groups.set(entry.listed.name, [item])
  }
  const out: T[] = []
  for (const item of entries) {
    const entry = entryOf(item)
    const group = entry.types === undefined ? undefined : groups.get(entry.listed.name)!
    if (group === undefined || group.length === 1) out.push(item)
    else if (group[0] === item) out.push(make(typeToolEntry(group.flatMap((i) => entryOf(i).types!)), item))
  }
  return out
}

/** The type-detail resources of `resources`, each URI once (the first kept). */
export function typeResources(resources: Iterable<ResourceEntry>): ResourceEntry[] {
  const byUri = new Map<string, ResourceEntry>()
  for (const r of resources) if (r.typeDetail && !byUri.has(r.resource.uri)) byUri.set(r.resource.uri, r)
  return [...byUri.values()]
}
