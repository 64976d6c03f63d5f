/**
 * In Vite's dev server, an RPC added to the `.proto`
 * and then implemented in the dev module answers, whichever way the app
 * has the package (installed, linked, or evaluated by the module runner).
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startDevApp, type DevApp } from './dev-app.ts'

const WAIT = { timeout: 20_000, interval: 50 }
const ECHO = "  Echo: (req: { text?: string }) => ({ text: `v1:${req.text ?? ''}` }),\n"
let app: DevApp | undefined
let client: Client | undefined

afterEach(async () => {
  await client?.close()
  await app?.close()
})

type Text = { content: { text: string }[]; isError?: boolean }

describe('a proto edit, then an implementation edit', () => {
  for (const install of ['installed', 'linked', 'inlined'] as const) {
    it(`the new RPC answers (package ${install})`, async () => {
      app = await startDevApp(`runtime-copies-${install}`, { install })
      client = new Client({ name: 't', version: '1' })
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`)))
      const call = async (name: string) => (await client!.callTool({ name, arguments: { text: 'a' } })) as Text
      expect((await call('Echo')).content[0]!.text).toBe('{"text":"v1:a"}')

      await app.edit(
        'notes.proto',
        '  rpc Echo(Note) returns (Note) {}\n',
        '  rpc Echo(Note) returns (Note) {}\n  rpc Bye(Note) returns (Note) {}\n',
      )
      await vi.waitFor(async () => expect((await client!.listTools()).tools.map((t) => t.name)).toEqual(['Echo', 'Bye']), WAIT)
      expect((await call('Bye')).content[0]!.text).toContain('code = Unimplemented')

      await app.edit('mcp.ts', ECHO, `${ECHO}  Bye: (req: { text?: string }) => ({ text: \`bye:\${req.text ?? ''}\` }),\n`)
      // Every answer until the edit shows is the old one; none is an error of another kind.
      await vi.waitFor(async () => {
        const bye = await call('Bye')
        if (bye.isError) expect(bye.content[0]!.text).toContain('code = Unimplemented')
        expect(bye.content[0]!.text).toBe('{"text":"bye:a"}')
      }, WAIT)
      expect((await call('Echo')).content[0]!.text).toBe('{"text":"v1:a"}')
    })
  }
})
