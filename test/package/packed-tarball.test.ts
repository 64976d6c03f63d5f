/**
 * The package as users get it: `npm pack`, the tarball installed with npm
 * into a fresh app outside the repository with Vite, esbuild and webpack
 * (the run's packed app, test/helpers/packed-app.ts; this file's sources,
 * fixtures/apps/anywhere, in a folder of it), built by each bundler through its own config,
 * run with `node` and driven by real MCP clients over stdio, and
 * type-checked with `unplugin-proto-mcp/client` and the plugin's `dts` file.
 * Anything the tarball lacks (a file, a dependency, an export) fails here.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { chromium } from 'playwright-core'
import { findChromium } from '../../scripts/find-chromium.mjs'
import { CLIENTS, connectStdio, type ClientName } from '../bundlers/mcp-clients.ts'
import { packedApp, packedAppFolder } from '../helpers/packed-app.ts'
import { REPO } from '../helpers/repo.ts'

const BUILDS = {
  vite: ['../node_modules/vite/bin/vite.js', 'build', '--logLevel', 'error'],
  esbuild: ['esbuild.mjs'],
  webpack: ['webpack.mjs'],
} as const
type Build = keyof typeof BUILDS

const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
/** This file's folder of the packed app, and the app's root (its node_modules). */
let app = ''
let root = ''

/** Runs `node ...args` in the app; throws with its output when it fails. */
function node(args: readonly string[]): string {
  const run = spawnSync(process.execPath, args, { cwd: app, encoding: 'utf8', timeout: 120_000, killSignal: 'SIGKILL' })
  if (run.error) throw run.error
  const output = `${run.stdout}${run.stderr}`
  if (run.status !== 0) throw new Error(`node ${args.join(' ')} exited with ${run.status}:\n${output}`)
  return output
}

beforeAll(async () => {
  if (!existsSync(join(REPO, 'dist', 'runtime.mjs'))) throw new Error('no dist/: run `npm run build` first (npm test does)')
  const packed = await packedApp()
  root = packed.root
  app = packedAppFolder(packed, 'anywhere')
  cpSync(join(REPO, 'fixtures', 'apps', 'anywhere'), app, { recursive: true })
  for (const args of Object.values(BUILDS)) node(args)
}, 600_000)

/** Lists, makes a good call (a Timestamp and a large int64 round trip) and two bad ones. */
async function driveLedger(flavour: ClientName, file: string): Promise<void> {
  const session = await connectStdio(flavour, file)
  try {
    const { tools } = await session.listTools()
    expect(tools.map((t) => t.name)).toEqual(['Record'])
    const ok = await session.callTool('Record', { account: 'a', amount: '9007199254740993', at: '2026-11-29T10:20:30.500Z' })
    expect(ok.isError ?? false).toBe(false)
    expect(ok.content).toEqual([
      { type: 'text', text: '{"account":"a","amount":"9007199254740993","at":"2026-11-29T10:20:30.500Z","total":"9007199254740993"}' },
    ])
    const badType = await session.callTool('Record', { account: 5 })
    expect(badType).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: 'invalid arguments: /account: 5 is not of type "string"' }],
    })
    const badTime = await session.callTool('Record', { at: 'yesterday' })
    expect(badTime.isError).toBe(true)
    expect(JSON.stringify(badTime.content)).toMatch(/invalid arguments: \/at/)
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver stderr:\n${session.stderr()}`, { cause: error })
  } finally {
    await session.close()
  }
}

describe.each(Object.keys(BUILDS) as Build[])('the tarball built by %s', (build) => {
  it.each(CLIENTS)('serves the ledger over stdio to the %s client', async (flavour) => {
    await driveLedger(flavour, join(app, 'out', build, 'main.mjs'))
  })
})

describe("the tarball in Vite's dev server", () => {
  it('serves the /__mcp/ page with the client the build bundled in: Chromium lists the tools over 2026-07-28', async () => {
    const from = (path: string) => import(pathToFileURL(join(root, 'node_modules', path)).href)
    const { createServer } = (await from('vite/dist/node/index.js')) as typeof import('vite')
    const { default: protoMcp } = (await from('unplugin-proto-mcp/dist/vite.mjs')) as typeof import('../../src/entries/vite.ts')
    const server = await createServer({
      configFile: false,
      root: app,
      appType: 'custom',
      logLevel: 'error',
      server: { host: '127.0.0.1', port: 0 },
      plugins: [protoMcp({ dev: { server: './src/ledger.js' } })],
    })
    const { executablePath, args } = await findChromium()
    const browser = await chromium.launch({ executablePath, args })
    try {
      await server.listen()
      const script = await fetch(`${server.resolvedUrls!.local[0]!.replace(/\/$/, '')}/__mcp/app.js`)
      expect(script.status).toBe(200)
      // Self-contained: no import a browser would have to resolve.
      expect(await script.text()).not.toMatch(/\bimport\s*(?:[\w{}*\s,]+from\s*)?["'][^"'./]/)
      const page = await browser.newPage()
      await page.goto(`${server.resolvedUrls!.local[0]}__mcp/`)
      await page.locator('#tools li[data-tool="Record"]').waitFor({ timeout: 20_000 })
      expect(await page.locator('#protocol').textContent()).toBe('2026-07-28')
    } finally {
      await browser.close()
      await server.close()
    }
  })
})

describe('the tarball type-checks', () => {
  const tsc = (project: string) =>
    spawnSync(process.execPath, [TSC, '-p', project, '--pretty', 'false'], { cwd: app, encoding: 'utf8', timeout: 60_000 })

  it('with unplugin-proto-mcp/client: a `.proto?mcp` import is a Server', () => {
    const run = tsc('tsconfig.client.json')
    expect(`${run.stdout}${run.stderr}`).toBe('')
    expect(run.status).toBe(0)
  })

  it('with the dts file the plugin wrote: precise request and response types', () => {
    expect(readFileSync(join(app, 'proto-mcp.d.ts'), 'utf8')).toContain('declare module ".*/ledger.proto?mcp"')
    const run = tsc('tsconfig.typed.json')
    expect(`${run.stdout}${run.stderr}`).toBe('')
    expect(run.status).toBe(0)
  })
})
