/**
 * Builds a `.proto`'s real `?mcp` module (`buildModuleSource`: the validators
 * and codecs a bundler would ship) and imports it; the module resolves
 * `unplugin-proto-mcp/codegen-v1` to this package's `dist/` (run `npm run build` first).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { threadId } from 'node:worker_threads'
import { buildModuleSource, type BuildModuleSourceOptions } from '../../src/codegen/build-proto.ts'
import type { BuildWarning } from '../../src/proto/index.ts'
import type { Server } from '../../src/server/index.ts'

const OUT = join(import.meta.dirname, '..', '..', '.tmp', 'modules')
let count = 0

/** The default export (a `Server`) of the `?mcp` module of `file`, with its build warnings. */
export async function loadMcpModule(
  file: string,
  options: BuildModuleSourceOptions = {},
): Promise<{ server: Server; warnings: BuildWarning[]; code: string }> {
  const built = buildModuleSource(file, options)
  mkdirSync(OUT, { recursive: true })
  const out = join(OUT, `m${process.pid}-${threadId}-${count++}.mjs`)
  writeFileSync(out, built.code)
  const mod = (await import(/* @vite-ignore */ pathToFileURL(out).href)) as { default: Server }
  return { server: mod.default, warnings: built.warnings, code: built.code }
}
