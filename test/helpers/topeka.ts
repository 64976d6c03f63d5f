/**
 * The Topeka conformance data (fixtures/topeka/) and the one rewrite the
 * default profile makes of it (docs/mapping.md, "Input schema: types": 64-bit integers as anyOf).
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** A tool as go-v0.3.0-tools.json lists it. */
export interface GoTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
}

/** Path of a file of fixtures/topeka/. */
export const topekaFixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/topeka/${name}`, import.meta.url))

/** go-v0.3.0-tools.json's tools, sorted by name. */
export function goTools(): GoTool[] {
  const { tools } = JSON.parse(readFileSync(topekaFixture('go-v0.3.0-tools.json'), 'utf8')) as { tools: GoTool[] }
  return tools.sort((a, b) => a.name.localeCompare(b.name))
}

/** name, description and inputSchema of each tool, sorted by name: what parity compares. */
export function visibleTools(tools: readonly { name: string; description?: string; inputSchema: unknown }[]): GoTool[] {
  return tools
    .map((t) => ({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema as Record<string, unknown> }))
    .sort((a, b) => a.name.localeCompare(b.name))
}

/** Rewrites Topeka's 64-bit `type: ["integer","string"]` schemas into the default profile's anyOf form. */
export function toPortable64(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toPortable64)
  if (value === null || typeof value !== 'object') return value
  const obj = value as Record<string, unknown>
  const type = obj.type
  if (Array.isArray(type) && type.length === 2 && type[0] === 'integer' && type[1] === 'string') {
    const { type: _type, minimum, ...rest } = obj
    const unsigned = minimum === 0
    return {
      ...rest,
      anyOf: [
        unsigned ? { type: 'integer', minimum: 0 } : { type: 'integer' },
        { type: 'string', pattern: unsigned ? '^[0-9]+$' : '^-?[0-9]+$' },
      ],
    }
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, toPortable64(v)]))
}
