/**
 * fixtures/apps/basic built by each of the six bundlers, run with `node`
 * as a stdio server and driven by the SDK v1 and v2 clients (v2 in the
 * initialize era and pinned to 2026-07-28); plus one
 * esbuild build with every dependency inlined, run from outside the project.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BUNDLERS, bundle, bundleSelfContained, createWorkspace, installRuntimePackage, type BundlerName } from './harness.ts'
import { CLIENTS, connectStdio, type ClientName } from './mcp-clients.ts'

const outputs = new Map<BundlerName, { file?: string; error?: unknown; ms: number }>()
let ws = ''
let selfContained = ''
let selfContainedError: unknown

beforeAll(async () => {
  ws = createWorkspace('serve')
  await installRuntimePackage(ws)
  const entry = join(ws, 'fixtures', 'apps', 'basic', 'main.mjs')
  // Run from outside the project, where no node_modules can be found.
  try {
    const file = await bundleSelfContained(entry, join(ws, 'out', 'self-contained', 'main.mjs'))
    selfContained = join(mkdtempSync(join(tmpdir(), 'proto-mcp-')), 'server.mjs')
    copyFileSync(file, selfContained)
  } catch (error) {
    selfContainedError = error
  }
  // One after another: this machine has two cores and vitest runs files in parallel.
  for (const bundler of BUNDLERS) {
    const start = Date.now()
    try {
      const { file } = await bundle(bundler, entry, join(ws, 'out', bundler))
      outputs.set(bundler, { file, ms: Date.now() - start })
    } catch (error) {
      outputs.set(bundler, { error, ms: Date.now() - start })
    }
  }
}, 180_000)

afterAll(() => {
  if (selfContained) rmSync(dirname(selfContained), { recursive: true, force: true })
  const times = BUNDLERS.map((b) => `${b} ${outputs.get(b)?.ms ?? '?'}ms`).join(', ')
  console.log(`build times: ${times}`)
})

/** Lists the tools, makes one good and one bad SetVibe call. */
async function driveVibeService(flavour: ClientName, file: string): Promise<void> {
  const session = await connectStdio(flavour, file)
  try {
    if (flavour === 'sdk-v2-2026') expect(session.protocolVersion()).toBe('2026-07-28')
    const { tools } = await session.listTools()
    expect(tools.map((t) => t.name).sort()).toEqual(['GetVibe', 'SetVibe', 'SetVibeArray', 'SetVibeDetails', 'SetVibeObjects'])

    const ok = await session.callTool('SetVibe', { vibe: 'chill' })
    expect(ok.isError ?? false).toBe(false)
    expect(ok.content).toEqual([{ type: 'text', text: '{"vibe":"chill"}' }])

    // State lives in the program: the next call sees the previous one.
    const again = await session.callTool('SetVibe', { vibe: 'calm' })
    expect(again.content).toEqual([{ type: 'text', text: '{"previousVibe":"chill","vibe":"calm"}' }])

    const bad = await session.callTool('SetVibe', { vibe: 5 })
    expect(bad.isError).toBe(true)
    expect(bad.content).toEqual([{ type: 'text', text: 'invalid arguments: /vibe: 5 is not of type "string"' }])
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver stderr:\n${session.stderr()}`, { cause: error })
  } finally {
    await session.close()
  }
}

function built(bundler: BundlerName): string {
  const out = outputs.get(bundler)
  if (!out?.file) throw out?.error ?? new Error(`${bundler}: no build`)
  return out.file
}

describe.each(BUNDLERS)('%s build', (bundler) => {
  it.each(CLIENTS)('serves VibeService over stdio to the %s client', async (flavour) => {
    await driveVibeService(flavour, built(bundler))
  })
})

describe('esbuild build with everything inlined, run from outside the project', () => {
  it.each(CLIENTS)('serves VibeService over stdio to the %s client', async (flavour) => {
    if (!selfContained) throw selfContainedError
    await driveVibeService(flavour, selfContained)
  })
})
