/**
 * The dev mount's place in Vite's dev server (docs/serving.md, "Hot reload and the dev mount", "Logging"): the
 * served server's messages go to Vite's logger, and closing the dev server
 * closes the mount's MCP sessions.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startDevApp, type DevApp } from './dev-app.ts'

// A server with a tool hidden from callers without the `admin` scope,
// recording the Node handlers the mount makes of it (to count their sessions).
const MODULE = `import { Server } from 'unplugin-proto-mcp/runtime'
const server = Server.builder('dev-lifecycle')
  .tool({ name: 'Secret', inputSchema: { type: 'object' }, requires: { scopes: ['admin'] } }, () => ({ content: [], isError: false }))
  .build()
const nodeHandler = server.nodeHandler.bind(server)
server.nodeHandler = (options) => {
  const handler = nodeHandler(options)
  ;(globalThis.devLifecycleHandlers ??= []).push(handler)
  return handler
}
export default server
`

const handlers = (): { sessionCount: number }[] =>
  (globalThis as { devLifecycleHandlers?: { sessionCount: number }[] }).devLifecycleHandlers ?? []

let app: DevApp

beforeAll(async () => {
  app = await startDevApp('dev-lifecycle', {
    server: './lifecycle.ts',
    prepare: (root) => writeFileSync(join(root, 'lifecycle.ts'), MODULE),
  })
})

afterAll(async () => {
  await app?.close()
})

describe('the dev mount', () => {
  it("sends the served server's warnings to Vite's logger", async () => {
    const res = await fetch(`${app.origin}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Secret', arguments: {} } }),
    })
    expect(await res.text()).toContain('Tool Secret not found')
    expect(app.errors).toContain(
      'dev-lifecycle: call to tool "Secret" hidden from this caller (requires {"scopes":["admin"]}), answered as unknown',
    )
  })

  it('closes its MCP sessions when the dev server closes', async () => {
    const client = new Client({ name: 'dev-close', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`)))
    expect(handlers()).toHaveLength(1)
    expect(handlers()[0]!.sessionCount).toBe(1)
    await app.server.close()
    expect(handlers()[0]!.sessionCount).toBe(0)
    await client.close().catch(() => {})
  })
})
