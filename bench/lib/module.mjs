/**
 * Builds `?mcp` modules the way a bundler does: the plugin's own `load`
 * hook from dist/ (run `npm run build` first), written under .tmp/bench/ in
 * the repository, where `unplugin-proto-mcp/runtime` resolves to this
 * package's dist/ by Node's package self-reference.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The repository root. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url))
/** Scratch directory of the benchmarks (git-ignored). */
export const OUT = join(REPO, '.tmp', 'bench')

/** Fails clearly when dist/ is missing. */
export function requireDist() {
  for (const file of ['index.mjs', 'runtime.mjs']) {
    if (!existsSync(join(REPO, 'dist', file))) throw new Error(`dist/${file} is missing: run "npm run build" before "npm run bench"`)
  }
}

/** The plugin's `load` hook output for `proto` (an absolute path), as the bundlers get it. */
export async function transformProto(proto, options = {}) {
  const { default: plugin } = await import(pathToFileURL(join(REPO, 'dist', 'index.mjs')).href)
  const raw = plugin.raw(options, { framework: 'rollup' })
  const load = typeof raw.load === 'function' ? raw.load : raw.load.handler
  const context = {
    addWatchFile() {},
    warn() {},
    error(error) { throw error instanceof Error ? error : new Error(error.message) },
  }
  const out = await load.call(context, `${proto}?mcp`)
  return typeof out === 'string' ? out : out.code
}

/** Writes the generated module of `proto` to .tmp/bench/<name>.mjs and returns its path. */
export async function writeModule(proto, name = basename(proto, '.proto'), options = {}) {
  mkdirSync(OUT, { recursive: true })
  const file = join(OUT, `${name}.mjs`)
  writeFileSync(file, await transformProto(proto, options))
  return file
}
