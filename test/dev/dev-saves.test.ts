/**
 * Saves as editors make them, in Vite's dev server (issue 20): in place
 * (truncate, then write), empty, and a dev module that never settles. A
 * save is not a change until it parses to something: the last good tools
 * keep answering, and the terminal and the overlay say why.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { INITIALIZE, rawRequest } from '../helpers/raw-http.ts'
import { startDevApp, type DevApp } from './dev-app.ts'
import { text } from '../helpers/result.ts'

const WAIT = { timeout: 20_000, interval: 50 }
let app: DevApp
let client: Client
/** What the plugin sent to Vite's overlay channel. */
const overlay: { type: string; err?: { message: string } }[] = []

beforeAll(async () => {
  app = await startDevApp('dev-saves')
  const hot = app.server.environments.client.hot
  const send = hot.send.bind(hot) as (payload: unknown) => void
  hot.send = ((payload: { type: string; err?: { message: string } }) => {
    overlay.push(payload)
    send(payload)
  }) as typeof hot.send
  client = new Client({ name: 'saves', version: '1' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`)))
})
afterAll(async () => {
  await client?.close()
  await app?.close()
})

const names = async (): Promise<string[]> => (await client.listTools()).tools.map((t) => t.name)
const echo = async (): Promise<string> => text(await client.callTool({ name: 'Echo', arguments: { text: 'x' } }))

describe('in-place saves', () => {
  it('truncate, then write 30 ms later: the list is never empty and ends with the new RPC', async () => {
    const path = join(app.root, 'notes.proto')
    const good = readFileSync(path, 'utf8')
    const seen: string[][] = []
    let polling = true
    const poll = (async () => {
      while (polling) seen.push(await names())
    })()
    for (let i = 0; i < 6; i++) {
      await delay(150)
      writeFileSync(path, '')
      // Long enough for the polling watcher to see the empty file at times, as editors' in-place saves are seen.
      await delay(30)
      writeFileSync(
        path,
        good.replace('rpc Echo(Note) returns (Note) {}', `rpc Echo(Note) returns (Note) {}\n  rpc Save${i}(Note) returns (Note) {}`),
      )
    }
    await vi.waitFor(async () => expect(await names()).toEqual(['Echo', 'Save5']), WAIT)
    polling = false
    await poll
    expect(seen.length).toBeGreaterThan(6)
    expect(seen.filter((list) => !list.includes('Echo'))).toEqual([])
    expect(await echo()).toBe('{"text":"v1:x"}')
  })

  it('a file left empty keeps the last good tools, says why in the terminal and the overlay, and serves the fixed file', async () => {
    const path = join(app.root, 'notes.proto')
    const good = readFileSync(path, 'utf8')
    const errors = app.errors.length
    const sent = overlay.length
    await delay(150)
    writeFileSync(path, '')
    await vi.waitFor(
      () =>
        expect(app.errors.slice(errors).join('\n')).toMatch(
          /notes\.proto" declares no service \(saved empty or cut short\?\): still serving the last good tools/,
        ),
      WAIT,
    )
    expect(overlay.slice(sent)).toContainEqual(
      expect.objectContaining({ type: 'error', err: expect.objectContaining({ message: expect.stringMatching(/declares no service/) }) }),
    )
    expect(await names()).toEqual(['Echo', 'Save5'])
    expect(await echo()).toBe('{"text":"v1:x"}')

    await delay(150)
    writeFileSync(path, good.replace('rpc Save5(Note)', 'rpc Back(Note)'))
    await vi.waitFor(async () => expect(await names()).toEqual(['Echo', 'Back']), WAIT)
    await vi.waitFor(() => expect(overlay.at(-1)).toEqual({ type: 'update', updates: [] }), WAIT)
  })
})

describe('a dev module that never settles', () => {
  it('fails within dev.loadTimeoutMs, saying what the dev mount needs', async () => {
    const hang = await startDevApp('dev-saves-hang', {
      server: './hang.ts',
      loadTimeoutMs: 1500,
      prepare(root) {
        // A module that awaits a transport itself (as the README's quick start does) never finishes loading.
        writeFileSync(join(root, 'hang.ts'), "import server from './notes.proto?mcp'\nawait new Promise(() => {})\nexport default server\n")
      },
    })
    try {
      const started = Date.now()
      const response = await rawRequest(`${hang.origin}/mcp`, { body: INITIALIZE })
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(response.status).toBe(500)
      expect(JSON.parse(response.body).error.message).toMatch(
        /"\.\/hang\.ts" did not finish loading within 1500 ms: the dev mount needs a module that default-exports a Server and returns/,
      )
      expect(hang.errors.join('\n')).toMatch(/did not finish loading within 1500 ms/)
    } finally {
      await hang.close()
    }
  })
})
