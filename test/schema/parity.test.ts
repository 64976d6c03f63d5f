/**
 * Schema-level parity with Topeka (protoc-gen-go-mcp v0.3.0) on example.proto.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'

const fixture = (name: string): string => fileURLToPath(new URL(`../../fixtures/topeka/${name}`, import.meta.url))
interface GoTool { name: string; description: string; inputSchema: Record<string, unknown> }
const expected: GoTool[] = (JSON.parse(readFileSync(fixture('go-v0.3.0-tools.json'), 'utf8')) as { tools: GoTool[] })
  .tools.sort((a, b) => a.name.localeCompare(b.name))
const model = loadProto(fixture('example.proto'))

const visible = (tools: { name: string; description: string; inputSchema: Record<string, unknown> }[]): GoTool[] =>
  tools.map(t => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }))
    .sort((a, b) => a.name.localeCompare(b.name))

/** Rewrites Topeka's 64-bit `type: ["integer","string"]` schemas into the default profile's anyOf form. */
function toPortable64(value: unknown): unknown {
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

describe('parity with go-v0.3.0-tools.json', () => {
  it('topeka profile: names, descriptions and inputSchemas are JSON-equal, and there is no outputSchema', () => {
    const { tools } = buildTools(model, { profile: 'topeka' })
    expect(visible(tools)).toEqual(expected)
    expect(tools.every(t => !('outputSchema' in t))).toBe(true)
  })

  it('default profile: equal except that 64-bit integers are anyOf branches', () => {
    const { tools } = buildTools(model, { profile: 'default' })
    const rewritten = expected.map(t => ({ ...t, inputSchema: toPortable64(t.inputSchema) }))
    expect(visible(tools)).toEqual(rewritten)
    // The rewrite really changed something (so the comparison above covers it).
    expect(rewritten).not.toEqual(expected)
  })

  it('keeps declaration order and records the RPC behind each tool', () => {
    const { tools, warnings } = buildTools(model, { profile: 'topeka' })
    expect(tools.map(t => t.name)).toEqual(['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects'])
    expect(tools[2]).toMatchObject({
      service: 'examples.v1.VibeService',
      method: 'SetVibeDetails',
      requestType: 'examples.v1.SetVibeDetailsRequest',
      responseType: 'examples.v1.SetVibeResponse',
    })
    expect(warnings).toEqual([])
  })

  it('writes schema keys sorted at every depth', () => {
    const { tools } = buildTools(model)
    const check = (value: unknown): void => {
      if (Array.isArray(value)) return value.forEach(check)
      if (value === null || typeof value !== 'object') return
      const keys = Object.keys(value)
      expect(keys).toEqual([...keys].sort())
      Object.values(value).forEach(check)
    }
    for (const tool of tools) {
      check(tool.inputSchema)
      check(tool.outputSchema)
    }
  })
})
