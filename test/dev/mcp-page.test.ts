/**
 * The `/__mcp/` page in headless Chromium: it lists the dev server's tools
 * over 2026-07-28 (the SDK's client, bundled into the page), calls one from
 * the JSON editor and shows the result, picks up a new tool after a
 * `.proto` edit (via `list_changed` on its listen stream), and a broken
 * `.proto` shows in Vite's overlay. Against a server of the initialize era
 * (the SDK v1 `McpServer`), it falls back to that era and follows its
 * session's GET stream.
 */
import { randomUUID } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { chromium, type Browser, type Page } from 'playwright-core'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { Plugin } from 'vite'
import { findChromium } from '../../scripts/find-chromium.mjs'
import { startDevApp, type DevApp } from './dev-app.ts'

let app: DevApp
let browser: Browser
let page: Page
const pageErrors: string[] = []

beforeAll(async () => {
  app = await startDevApp('mcp-page')
  // A system Chromium when there is one, else the one an npm package ships: no system install needed.
  const { executablePath, args } = await findChromium()
  browser = await chromium.launch({ executablePath, args })
  page = await browser.newPage({ viewport: { width: 1200, height: 800 } })
  page.on('pageerror', (error) => {
    pageErrors.push(error.message)
  })
})

afterAll(async () => {
  await browser?.close()
  await app?.close()
})

const tools = () => page.locator('#tools li')

describe('the /__mcp/ page', () => {
  it('redirects /__mcp to /__mcp/', async () => {
    const res = await fetch(`${app.origin}/__mcp`, { redirect: 'manual' })
    expect(res.status).toBe(302)
    expect(res.headers.get('location')).toBe('/__mcp/')
  })

  it('lists the tools, live over a session', async () => {
    await page.goto(`${app.origin}/__mcp/`)
    await page.locator('#tools li[data-tool="Echo"]').waitFor()
    expect(await tools().evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.tool))).toEqual(['Echo'])
    expect(await page.locator('#server').textContent()).toBe('notes 0.0.0')
    expect(await page.locator('#protocol').textContent()).toBe('2026-07-28')
    expect(await page.locator('#protocol').getAttribute('data-era')).toBe('modern')
    // The notification stream counts as open once its response arrives, before any event.
    await page.locator('#status[data-status="live"]').waitFor({ timeout: 10_000 })
  })

  it('shows a tool and calls it from the JSON editor', async () => {
    await page.locator('#tools li[data-tool="Echo"]').click()
    expect(await page.locator('#tool-description').textContent()).toBe('Echo the note back')
    expect(JSON.parse((await page.locator('#input-schema').textContent()) ?? '')).toMatchObject({
      type: 'object',
      properties: { text: { type: 'string' } },
    })
    // The form mirrors into the editor.
    await page.locator('#field-text').fill('from the form')
    expect(JSON.parse(await page.locator('#args').inputValue())).toEqual({ text: 'from the form' })
    await page.locator('#args').fill('{ "text": "hello page" }')
    await page.locator('#call').click()
    await page.locator('#result[data-outcome="ok"]').waitFor()
    expect(JSON.parse((await page.locator('#content pre').first().textContent()) ?? '')).toEqual({ text: 'v1:hello page' })
    expect(JSON.parse((await page.locator('#structured').textContent()) ?? '')).toEqual({ text: 'v1:hello page' })
  })

  it('shows a tool error, and arguments that are not JSON', async () => {
    await page.locator('#args').fill('{ "text": 5 }')
    await page.locator('#call').click()
    await page.locator('#result[data-outcome="error"]').waitFor()
    expect(await page.locator('#content pre').first().textContent()).toBe('invalid arguments: /text: 5 is not of type "string"')
    await page.locator('#args').fill('{ not json')
    await page.locator('#call').click()
    expect(await page.locator('#args-error').textContent()).toMatch(/^arguments are not JSON: /)
  })

  it('shows a new tool after the .proto is edited, without a reload', async () => {
    await page.evaluate(() => {
      ;(window as unknown as { marker: boolean }).marker = true
    })
    await app.edit(
      'notes.proto',
      '  rpc Echo(Note) returns (Note) {}\n',
      '  rpc Echo(Note) returns (Note) {}\n  // Shout the note back\n  rpc Shout(Note) returns (Note) {}\n',
    )
    await page.locator('#tools li[data-tool="Shout"].new').waitFor({ timeout: 20_000 })
    expect(await page.evaluate(() => (window as unknown as { marker?: boolean }).marker)).toBe(true)
    expect(await page.locator('#tools li[data-tool="Shout"] .summary').textContent()).toBe('Shout the note back')
  })

  it('shows a broken .proto in the overlay while the last good tools keep working', async () => {
    await app.edit('notes.proto', 'rpc Shout(Note)', 'rpc Shout(Note')
    const overlay = page.locator('vite-error-overlay')
    await overlay.waitFor({ state: 'attached', timeout: 20_000 })
    expect(await overlay.evaluate((el) => el.shadowRoot?.textContent ?? '')).toMatch(/notes\.proto/)
    // The overlay covers the page; put it aside to keep using the page.
    await overlay.evaluate((el) => {
      ;(el as HTMLElement).style.display = 'none'
    })
    await page.locator('#tools li[data-tool="Echo"]').click()
    await page.locator('#args').fill('{ "text": "still" }')
    await page.locator('#call').click()
    await page.locator('#result[data-outcome="ok"]').waitFor()
    expect(await page.locator('#content pre').first().textContent()).toContain('v1:still')

    // Fixed: the overlay goes (the page reloads or clears it) and the new tool shows.
    await app.edit('notes.proto', 'rpc Shout(Note', 'rpc Whisper(Note)')
    await page.locator('#tools li[data-tool="Whisper"]').waitFor({ timeout: 20_000 })
    await expect.poll(() => page.locator('vite-error-overlay').count(), { timeout: 20_000 }).toBe(0)
    expect(pageErrors).toEqual([])
  })
})

/**
 * An SDK v1 `McpServer` at `/mcp` (sessions of the initialize era, no
 * 2026-07-28), as a Vite plugin placed before this one: it answers `/mcp`
 * first, and this plugin's page talks to it. `add(name)` registers a tool
 * on every session's server, which tells its client.
 */
function initializeEraServer(): { plugin: Plugin; add(name: string): void } {
  const names = ['Hello']
  const servers: McpServer[] = []
  const sessions = new Map<string, StreamableHTTPServerTransport>()
  const register = (server: McpServer, name: string): void => {
    server.registerTool(name, { description: `Says ${name}`, inputSchema: {} }, () => ({
      content: [{ type: 'text', text: `${name} from v1` }],
    }))
  }
  const plugin: Plugin = {
    name: 'initialize-era-server',
    // Before this plugin (which is 'pre' too), so its middleware answers /mcp first.
    enforce: 'pre',
    configureServer(vite) {
      vite.middlewares.use((req, res, next) => {
        if (req.url?.split('?')[0] !== '/mcp') return next()
        const id = req.headers['mcp-session-id']
        let transport = typeof id === 'string' ? sessions.get(id) : undefined
        const handle = async (): Promise<void> => {
          if (transport === undefined) {
            const fresh = new StreamableHTTPServerTransport({
              sessionIdGenerator: randomUUID,
              onsessioninitialized: (session) => void sessions.set(session, fresh),
            })
            const server = new McpServer({ name: 'legacy', version: '1.0.0' })
            for (const name of names) register(server, name)
            servers.push(server)
            await server.connect(fresh)
            transport = fresh
          }
          await transport.handleRequest(req, res)
        }
        handle().catch(next)
      })
    },
  }
  return {
    plugin,
    add(name) {
      names.push(name)
      for (const server of servers) register(server, name)
    },
  }
}

describe('the /__mcp/ page against a server of the initialize era', () => {
  it('falls back to it, lists and calls the tools, and follows list_changed on the GET stream', async () => {
    const legacy = initializeEraServer()
    const v1 = await startDevApp('mcp-page-legacy', { before: [legacy.plugin] })
    const tab = await browser.newPage()
    const errors: string[] = []
    tab.on('pageerror', (error) => errors.push(error.message))
    try {
      await tab.goto(`${v1.origin}/__mcp/`)
      await tab.locator('#tools li[data-tool="Hello"]').waitFor({ timeout: 20_000 })
      expect(await tab.locator('#server').textContent()).toBe('legacy 1.0.0')
      expect(await tab.locator('#protocol').getAttribute('data-era')).toBe('legacy')
      expect(await tab.locator('#protocol').textContent()).toMatch(/^20\d\d-\d\d-\d\d$/)
      expect(await tab.locator('#protocol').textContent()).not.toBe('2026-07-28')
      await tab.locator('#status[data-status="live"]').waitFor({ timeout: 10_000 })

      await tab.locator('#tools li[data-tool="Hello"]').click()
      await tab.locator('#call').click()
      await tab.locator('#result[data-outcome="ok"]').waitFor()
      expect(await tab.locator('#content pre').first().textContent()).toBe('Hello from v1')

      legacy.add('Later')
      await tab.locator('#tools li[data-tool="Later"].new').waitFor({ timeout: 20_000 })
      expect(errors).toEqual([])
    } finally {
      await tab.close()
      await v1.close()
    }
  })
})

/** A dev server module with a hand-written tool whose `oneOf` Cursor and Gemini's `parameters` refuse. */
const COSTLY_MODULE = `/// <reference path="../../../client.d.ts" />
import { Server } from 'unplugin-proto-mcp/runtime'
import notes from './mcp.ts'

export default Server.builder('costly')
  .include(notes)
  .tool(
    { name: 'Union', description: 'Takes a string or a number', inputSchema: { type: 'object', properties: { v: { oneOf: [{ type: 'string' }, { type: 'number' }] } } } },
    () => ({ content: [{ type: 'text', text: 'ok' }] }),
  )
  .build()
`

describe("the /__mcp/ page's token and client-rule view", () => {
  it('shows per tool, hand-written ones too, its o200k tokens and the rule sets that reject it, and again after an edit', async () => {
    const app = await startDevApp('mcp-page-costs', {
      server: './costly.ts',
      prepare: (root) => writeFileSync(join(root, 'costly.ts'), COSTLY_MODULE),
    })
    const tab = await browser.newPage()
    const errors: string[] = []
    tab.on('pageerror', (error) => errors.push(error.message))
    const client = new Client({ name: 'costs-test', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`)))
      // What a client hands its model, counted here with gpt-tokenizer itself.
      const tokensOf = async () =>
        new Map(
          (await client.listTools()).tools.map((t) => [
            t.name,
            countTokens(JSON.stringify({ name: t.name, description: t.description ?? '', inputSchema: t.inputSchema })),
          ]),
        )
      const row = (name: string) => tab.locator(`#tools li[data-tool="${name}"]`)
      await tab.goto(`${app.origin}/__mcp/`)
      await row('Union').locator('.tokens').waitFor({ timeout: 20_000 })
      const tokens = await tokensOf()
      expect([...tokens.keys()]).toEqual(['Echo', 'Union'])
      for (const [name, n] of tokens) expect(await row(name).locator('.tokens').textContent()).toBe(`${n} tokens`)
      const rejected = await row('Union').locator('.rejected').textContent()
      expect(rejected).toMatch(/^rejected by /)
      expect(rejected).toContain('cursor')
      expect(rejected).toContain('gemini-legacy')
      // The proto tool (portable) is one Cursor and Gemini take.
      expect(await row('Echo').textContent()).not.toMatch(/cursor|gemini-legacy/)
      await row('Union').click()
      expect(await tab.locator('#tool-cost .tokens').textContent()).toBe(`${tokens.get('Union')} tokens`)

      // A new RPC: listed again on list_changed, and counted with it.
      await app.edit(
        'notes.proto',
        '  rpc Echo(Note) returns (Note) {}\n',
        '  rpc Echo(Note) returns (Note) {}\n  // Shout the note back, much louder than Echo does\n  rpc Shout(Note) returns (Note) {}\n',
      )
      await row('Shout').locator('.tokens').waitFor({ timeout: 20_000 })
      expect(await row('Shout').locator('.tokens').textContent()).toBe(`${(await tokensOf()).get('Shout')} tokens`)
      expect(errors).toEqual([])
    } finally {
      await client.close()
      await tab.close()
      await app.close()
    }
  })

  it('answers only JSON tool lists from its own pages', async () => {
    const app = await startDevApp('mcp-page-costs-guard')
    try {
      const post = (body: string, headers: Record<string, string> = {}) =>
        fetch(`${app.origin}/__mcp/costs`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } })
      const ok = await post(JSON.stringify({ server: 'notes', tools: [{ name: 'Free', inputSchema: { type: 'object' } }] }))
      expect(ok.status).toBe(200)
      const { costs } = (await ok.json()) as { costs: Array<{ name: string; tokens: number; rejectedBy: string[] }> }
      expect(costs).toEqual([
        {
          name: 'Free',
          tokens: countTokens('{"name":"Free","description":"","inputSchema":{"type":"object"}}'),
          rejectedBy: expect.any(Array),
        },
      ])
      const other = await post('{"tools":[]}', { origin: 'http://evil.example' })
      expect(other.status).toBe(403)
      expect(((await other.json()) as { error: string }).error).toContain('forbidden origin "http://evil.example"')
      expect((await post('{"tools":[]}', { 'content-type': 'text/plain' })).status).toBe(415)
      const bad = await post('{"tools":[{"description":1}]}')
      expect(bad.status).toBe(400)
      expect(((await bad.json()) as { error: string }).error).toBe('"tools[0]" must be a tool { name, description?, inputSchema }')
      expect(((await (await post('{"tools":')).json()) as { error: string }).error).toMatch(/^the body is not JSON: /)
    } finally {
      await app.close()
    }
  })
})
