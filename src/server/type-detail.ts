/**
 * The type tool of a `?mcp` server whose tools the token budget cut
 * (docs/profiles.md §Token budget), and the same answers as resources
 * (`proto-mcp://<server>/types/<name>`) for clients that let a user attach them.
 */
import { answerTypeDetail } from '../runtime/type-detail.ts'
import type { TypeDetailSpec } from '../runtime/types.ts'
import type { ResourceEntry } from './resources.ts'
import type { ToolEntry } from './tool-set.ts'

/** The URI of the type detail resource `name` of server `server`. */
export function typeDetailUri(server: string, name: string): string {
  return `proto-mcp://${encodeURIComponent(server)}/types/${encodeURIComponent(name)}`
}

/** The type tool's entry and one resource per answer. */
export function typeDetailEntries(server: string, detail: TypeDetailSpec): { tool: ToolEntry; resources: ResourceEntry[] } {
  const tool: ToolEntry = {
    listed: { ...detail.tool, annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false } },
    call: async (args) => answerTypeDetail(detail, args),
  }
  const resources = Object.keys(detail.answers).map((name): ResourceEntry => ({
    resource: {
      uri: typeDetailUri(server, name),
      name,
      description: name.includes('.') ? `The JSON Schema of ${name}` : `The tool ${name}: its whole description and arguments`,
      mimeType: 'application/json',
    },
    read: () => detail.answers[name]!,
  }))
  return { tool, resources }
}
