import { expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Server } from '../../src/entries/runtime.ts'
import { memoryCluster, memoryFleet } from '../../src/server/memory-cluster.ts'

it('two instances share a session through a memory fleet', async () => {
  const fleet = memoryFleet()
  const make = () => Server.builder('f').requestStateKey('k'.repeat(32))
    .tool({ name: 'Ask', inputSchema: { type: 'object' } }, async (_a, ctx) => {
      const answer = await ctx.elicit!({ message: 'name?', requestedSchema: { type: 'object', properties: { n: { type: 'string' } } } })
      return { content: [{ type: 'text', text: JSON.stringify(answer) }] }
    }).build()
  const a = await make().serveHttp({ port: 0, cluster: memoryCluster({ fleet }) })
  const b = await make().serveHttp({ port: 0, cluster: memoryCluster({ fleet }) })
  // round robin fetch
  let n = 0
  const urls = [a.url, b.url]
  const rr: typeof fetch = (input, init) => {
    const url = urls[n++ % 2]!
    return fetch(url, init)
  }
  const client = new ClientV1({ name: 'c', version: '0' }, { capabilities: { elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { n: 'Ada' } }))
  await client.connect(new HttpV1(new URL(a.url), { fetch: rr }))
  for (let i = 0; i < 4; i++) expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Ask'])
  const result = await client.callTool({ name: 'Ask', arguments: {} })
  expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ action: 'accept', content: { n: 'Ada' } }) }])
  expect(a.sessionCount + b.sessionCount).toBe(2)
  await client.close()
  await a.close(); await b.close()
})
