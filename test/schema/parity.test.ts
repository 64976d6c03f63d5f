/**
 * Schema-level parity with Topeka (protoc-gen-go-mcp v0.3.0) on example.proto.
 */
import { describe, expect, it } from 'vitest'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { goTools, toPortable64, topekaFixture, visibleTools } from '../helpers/topeka.ts'

const expected = goTools()
const model = loadProto(topekaFixture('example.proto'))
const visible = visibleTools

describe('parity with go-v0.3.0-tools.json', () => {
  it('topeka profile: names, descriptions and inputSchemas are JSON-equal, and there is no outputSchema', () => {
    const { tools } = buildTools(model, { profile: 'topeka' })
    expect(visible(tools)).toEqual(expected)
    expect(tools.filter((t) => 'outputSchema' in t)).toEqual([])
  })

  it('default profile: equal except that 64-bit integers are anyOf branches', () => {
    const { tools } = buildTools(model, { profile: 'full' })
    const rewritten = expected.map((t) => ({ ...t, inputSchema: toPortable64(t.inputSchema) }))
    expect(visible(tools)).toEqual(rewritten)
    // The rewrite really changed something (so the comparison above covers it).
    expect(rewritten).not.toEqual(expected)
  })

  it('keeps declaration order and records the RPC behind each tool', () => {
    const { tools, warnings } = buildTools(model, { profile: 'topeka' })
    expect(tools.map((t) => t.name)).toEqual(['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects'])
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
