/**
 * Parity as a real MCP client sees it: example.proto built by the plugin
 * (esbuild), served over stdio, `tools/list` compared with Topeka's
 * go-v0.3.0-tools.json.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { buildAppPerProfile } from '../bundlers/harness.ts'
import { CLIENTS, connectStdio } from '../bundlers/mcp-clients.ts'
import { goTools, toPortable64, visibleTools } from '../helpers/topeka.ts'

const built: Record<'full' | 'topeka', string> = { full: '', topeka: '' }

beforeAll(async () => {
  Object.assign(built, await buildAppPerProfile('parity', 'parity'))
}, 120_000)

async function listOver(client: (typeof CLIENTS)[number], file: string) {
  const session = await connectStdio(client, file)
  try {
    return (await session.listTools()).tools as { name: string; description?: string; inputSchema: unknown; outputSchema?: unknown }[]
  } finally {
    await session.close()
  }
}

describe('tools/list over stdio equals go-v0.3.0-tools.json', () => {
  for (const client of CLIENTS) {
    it(`topeka profile, ${client}: name, description, inputSchema JSON-equal; no outputSchema`, async () => {
      const tools = await listOver(client, built.topeka)
      expect(visibleTools(tools)).toEqual(goTools())
      expect(tools.filter((t) => t.outputSchema !== undefined)).toEqual([])
    })

    it(`default profile, ${client}: equal but for 64-bit integers as anyOf; every tool has an object outputSchema`, async () => {
      const tools = await listOver(client, built.full)
      const expected = goTools().map((t) => ({ ...t, inputSchema: toPortable64(t.inputSchema) as Record<string, unknown> }))
      expect(visibleTools(tools)).toEqual(expected)
      expect(expected).not.toEqual(goTools())
      for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: 'object' })
    })
  }
})
