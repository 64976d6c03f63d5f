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
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
