/**
 * Builds the `/runtime` entry alone with tsdown into a private directory, so
 * child-process servers run the built package as users do (other entries of
 * the package may not build while they are being written).
 */
import { execFile } from 'node:child_process'
import { rm } from 'node:fs/promises'
import { resolve } from 'node:path'
import { promisify } from 'node:util'

const ROOT = resolve(import.meta.dirname, '../..')

/** The child server script of the wire tests. */
export const VIBE_SERVER = resolve(ROOT, 'test/fixtures-server/vibe-server.mjs')

/** Builds `src/runtime.ts`; resolves with the built module's path and a cleanup. */
export async function buildRuntime(tag: string): Promise<{ entry: string; cleanup: () => Promise<void> }> {
  const outDir = resolve(ROOT, `.tmp/dist-runtime-${tag}-${process.pid}`)
  await promisify(execFile)(
    'npx',
    ['tsdown', 'src/runtime.ts', '--no-config', '-d', outDir, '--platform', 'node', '--target', 'node20', '--logLevel', 'error'],
    { cwd: ROOT, timeout: 90_000 },
  )
  return { entry: resolve(outDir, 'runtime.mjs'), cleanup: () => rm(outDir, { recursive: true, force: true }) }
}
