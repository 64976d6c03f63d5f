/**
 * The plugin under Vite's dev server: the `?mcp` module loads through the
 * SSR module runner, and editing a `.proto` it only imports invalidates it.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createServer, type ViteDevServer } from 'vite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { unpluginProtoMcp } from '../../src/plugin/unplugin.ts'
import { createWorkspace, installRuntimePackage } from './harness.ts'

let ws = ''
let server: ViteDevServer | undefined

beforeAll(async () => {
  ws = createWorkspace('vite-dev')
  await installRuntimePackage(ws)
  server = await createServer({
    configFile: false,
    root: join(ws, 'fixtures', 'apps', 'watch'),
    logLevel: 'silent',
    appType: 'custom',
    server: { middlewareMode: true, ws: false, watch: { usePolling: true, interval: 50 } },
    plugins: [unpluginProtoMcp.vite()],
  })
}, 60_000)

afterAll(async () => {
  await server?.close()
})

type Tools = { name: string; inputSchema: { properties: Record<string, unknown> } }[]

describe('vite dev server', () => {
  it('loads the ?mcp module and reloads it when an imported .proto changes', async () => {
    const mod = (await server!.ssrLoadModule('/vibe.proto?mcp')) as { tools: Tools; default: { name: string } }
    expect(mod.default.name).toBe('vibe')
    expect(mod.tools.map((t) => t.name)).toEqual(['Echo'])
    expect(Object.keys(mod.tools[0]!.inputSchema.properties)).toEqual(['text'])

    const common = join(ws, 'fixtures', 'apps', 'watch', 'common.proto')
    writeFileSync(common, readFileSync(common, 'utf8').replace('  string text = 1;\n', '  string text = 1;\n  int32 watch_count = 2;\n'))
    const until = Date.now() + 20_000
    for (;;) {
      const again = (await server!.ssrLoadModule('/vibe.proto?mcp')) as { tools: Tools }
      if (Object.keys(again.tools[0]!.inputSchema.properties).includes('watchCount')) break
      if (Date.now() > until) throw new Error('the ?mcp module was not invalidated after editing common.proto')
      await new Promise((r) => setTimeout(r, 100))
    }
  })
})
