import { Client, InMemoryTransport } from '@modelcontextprotocol/client'
import { describe, expect, it, vi } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'

const spec = specFromProto(EXAMPLE_PROTO)

async function connected() {
  const server = createProtoServer(spec).implement('VibeService', {
    SetVibe: (req: { vibe?: string }) => ({ previousVibe: 'chill', vibe: req.vibe }),
  })
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const connection = await server.connect(serverSide)
  const client = new Client({ name: 'connect-test', version: '0.0.0' })
  await client.connect(clientSide)
  return { server, connection, client }
}

describe('server.connect(transport)', () => {
  it('answers tools/list and tools/call over a transport the caller made', async () => {
    const { server, client, connection } = await connected()
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(server.listTools().map((t) => t.name))
    const result = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'radical' } })
    expect(result.structuredContent).toEqual({ previousVibe: 'chill', vibe: 'radical' })
    await connection.close()
  })

  it('tells the connection of list changes until it closes', async () => {
    const { server, client, connection } = await connected()
    const seen: string[] = []
    client.fallbackNotificationHandler = async (n) => void seen.push(n.method)
    server.handle().addTool({ name: 'Late', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'late' }] }))
    await vi.waitFor(() => expect(seen).toContain('notifications/tools/list_changed'))
    await connection.close()
    const before = seen.length
    server.handle().removeTool('Late')
    // A change after close must not throw or reach the closed connection.
    expect(seen.length).toBe(before)
  })
})
