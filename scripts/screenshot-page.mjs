#!/usr/bin/env node
/**
 * Regenerates `docs/mcp-page.png`: the playground on Vite's dev server, its
 * `/__mcp/` page in headless Chromium with `SetVibe` called. Run after
 * `npm run build`: `node scripts/screenshot-page.mjs [out.png]`.
 */
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { createServer } from 'vite'
import { findChromium } from './find-chromium.mjs'
import protoMcp from 'unplugin-proto-mcp/vite'

const repo = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const out = resolve(process.argv[2] ?? join(repo, 'docs', 'mcp-page.png'))

const server = await createServer({
  configFile: false,
  root: join(repo, 'playground'),
  appType: 'custom',
  logLevel: 'warn',
  ssr: { external: ['unplugin-proto-mcp'] },
  server: { host: '127.0.0.1', port: 0 },
  plugins: [protoMcp({ dev: { server: './server.ts' } })],
})
await server.listen()
const { port } = server.httpServer.address()
const { executablePath, args } = await findChromium()
const browser = await chromium.launch({ executablePath, args })
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 }, deviceScaleFactor: 1, colorScheme: 'light' })
  await page.goto(`http://127.0.0.1:${port}/__mcp/#SetVibe`)
  await page.locator('#tool-name', { hasText: 'SetVibe' }).waitFor()
  await page.locator('#args').fill(JSON.stringify({ mood: 'MOOD_HYPED', note: 'bass drop', intensity: 0.8 }, null, 2))
  await page.locator('#call').click()
  await page.locator('#result[data-outcome="ok"]').waitFor()
  await page.screenshot({ path: out })
  process.stdout.write(`wrote ${out}\n`)
} finally {
  await browser.close()
  await server.close()
}
