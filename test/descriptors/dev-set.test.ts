/**
 * `import server from './notes.binpb?mcp'` in Vite's dev server: the set buf
 * built from the fixture's `.proto` serves its tools at `/mcp`, and a rebuilt
 * set (a new RPC) reaches a connected client with list_changed on the same
 * session; a set cut short keeps the last good tools serving.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startDevApp, type DevApp } from '../dev/dev-app.ts'
import { text } from '../helpers/result.ts'
import { bufSet } from './set-helpers.ts'

let app: DevApp
let client: Client
let listChanged = 0
const WAIT = { timeout: 20_000, interval: 50 }

/** Builds the app's notes.proto into notes.binpb beside it, written whole (buf writes elsewhere, then a rename). */
function rebuild(root: string): void {
  const staged = join(root, '..', 'notes.staged.binpb')
  bufSet(root, ['notes.proto'], staged)
  renameSync(staged, join(root, 'notes.binpb'))
}

beforeAll(async () => {
  app = await startDevApp('dev-set', {
    prepare: (root) => {
      rebuild(root)
      const mcp = join(root, 'mcp.ts')
      writeFileSync(mcp, readFileSync(mcp, 'utf8').replace("'./notes.proto?mcp'", "'./notes.binpb?mcp'"))
    },
  })
  client = new Client({ name: 'dev-set', version: '1.0.0' })
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`)))
}, 180_000)
afterAll(async () => {
  await client?.close()
  await app?.close()
})

const names = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name)

describe('a descriptor set imported with ?mcp in the dev server', () => {
  it('serves its tools, described by the comments, and calls the implementation', async () => {
    expect(await names()).toEqual(['Echo'])
    const result = await client.callTool({ name: 'Echo', arguments: { text: 'set' } })
    expect(JSON.parse(text(result as never))).toEqual({ text: 'v1:set' })
  })

  it('a rebuilt set with a new RPC shows up on the same session, with list_changed', async () => {
    const before = listChanged
    const session = (client.transport as StreamableHTTPClientTransport).sessionId
    const proto = join(app.root, 'notes.proto')
    writeFileSync(
      proto,
      readFileSync(proto, 'utf8').replace(
        '  rpc Echo(Note) returns (Note) {}\n',
        '  rpc Echo(Note) returns (Note) {}\n  // Shout the note back\n  rpc Shout(Note) returns (Note) {}\n',
      ),
    )
    await delay(120)
    rebuild(app.root)
    await vi.waitFor(async () => expect(await names()).toEqual(['Echo', 'Shout']), WAIT)
    await vi.waitFor(() => expect(listChanged).toBeGreaterThan(before), WAIT)
    expect((await client.listTools()).tools.find((t) => t.name === 'Shout')?.description).toBe('Shout the note back')
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBe(session)
  })

  it('a set cut short keeps the last good tools serving and reports the file', async () => {
    const file = join(app.root, 'notes.binpb')
    const good = readFileSync(file)
    await delay(120)
    writeFileSync(join(app.root, '..', 'cut.binpb'), good.subarray(0, good.length - 7))
    renameSync(join(app.root, '..', 'cut.binpb'), file)
    await vi.waitFor(() => expect(app.errors.join('\n')).toContain(`cannot read "${file}"`), WAIT)
    expect(await names()).toEqual(['Echo', 'Shout'])
  })
})
