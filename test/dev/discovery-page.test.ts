/**
 * The `/__mcp/` page of a dev server in `search` discovery mode, in headless
 * Chromium: it shows the mode and searches with search_tools as a model
 * would; a hit opens call_tool with its name filled in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromium, type Browser, type Page } from 'playwright-core'
import { findChromium } from '../../scripts/find-chromium.mjs'
import { startDevApp, type DevApp } from './dev-app.ts'

let app: DevApp
let browser: Browser
let page: Page

beforeAll(async () => {
  app = await startDevApp('discovery-page', { plugin: { discovery: 'search' } })
  const { executablePath, args } = await findChromium()
  browser = await chromium.launch({ executablePath, args })
  page = await browser.newPage({ viewport: { width: 1200, height: 800 } })
})

afterAll(async () => {
  await browser?.close()
  await app?.close()
})

describe('the /__mcp/ page in search mode', () => {
  it('shows the mode, searches like a model, and opens call_tool for a hit', async () => {
    await page.goto(`${app.origin}/__mcp/`)
    await page.locator('#tools li[data-tool="search_tools"]').waitFor()
    expect(await page.locator('#discovery').textContent()).toBe('discovery: search (search_tools)')
    await page.locator('#model-search').fill('echo a note back')
    await page.locator('#model-search').press('Enter')
    const hit = page.locator('#search-hits li').first()
    await hit.waitFor()
    expect(await hit.locator('.name').textContent()).toBe('Echo')
    await hit.click()
    expect(await page.locator('#tool-name').textContent()).toBe('call_tool')
    expect(JSON.parse(await page.locator('#args').inputValue())).toEqual({ name: 'Echo', arguments: {} })
  })
})
