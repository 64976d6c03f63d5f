/**
 * Builds `?mcp` modules the way a bundler does: the plugin's own `load`
 * hook from dist/ (run `npm run build` first). The bench works on a copy of
 * dist/ installed as .tmp/bench/pkg/node_modules/unplugin-proto-mcp (taken
 * once per run, so a rebuild during the run changes nothing), and writes
 * modules to .tmp/bench/pkg/, where `unplugin-proto-mcp/runtime` resolves
 * to that copy as in a user's project.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

/** The repository root. */
export const REPO = fileURLToPath(new URL('../..', import.meta.url))
/** Scratch directory of the benchmarks (git-ignored): generated modules and outputs. */
export const OUT = join(REPO, '.tmp', 'bench', 'pkg')
const INSTALLED = join(OUT, 'node_modules', 'unplugin-proto-mcp')

let snapshot = false

/** Installs the copy of dist/ the run uses (once per process); fails clearly when dist/ is missing. */
export function requireDist() {
  if (snapshot || process.env.BENCH_DIST_READY === '1') return
  for (const file of ['index.mjs', 'runtime.mjs']) {
    if (!existsSync(join(REPO, 'dist', file))) throw new Error(`dist/${file} is missing: run "npm run build" before "npm run bench"`)
  }
  rmSync(INSTALLED, { recursive: true, force: true })
  mkdirSync(INSTALLED, { recursive: true })
  cpSync(join(REPO, 'dist'), join(INSTALLED, 'dist'), { recursive: true })
  writeFileSync(join(INSTALLED, 'package.json'), readFileSync(join(REPO, 'package.json')))
  // An app of its own: without it, Node resolves `unplugin-proto-mcp/...` from .tmp/bench/pkg to the
  // repository itself (a package may import itself by name), i.e. the live dist/, not this copy.
  writeFileSync(join(OUT, 'package.json'), `${JSON.stringify({ name: 'bench-app', private: true, type: 'module' })}\n`)
  // Child processes (cold start, build) reuse this copy.
  process.env.BENCH_DIST_READY = '1'
  snapshot = true
}

/** The plugin's `load` hook output for `proto` (an absolute path), as the bundlers get it. */
export async function transformProto(proto, options = {}) {
  requireDist()
  const { default: plugin } = await import(pathToFileURL(join(INSTALLED, 'dist', 'index.mjs')).href)
  const raw = plugin.raw(options, { framework: 'rollup' })
  const load = typeof raw.load === 'function' ? raw.load : raw.load.handler
  const context = {
    addWatchFile() {},
    warn() {},
    error(error) {
      throw error instanceof Error ? error : new Error(error.message)
    },
  }
  const out = await load.call(context, `${proto}?mcp`)
  return typeof out === 'string' ? out : out.code
}

/** Writes the generated module of `proto` to .tmp/bench/pkg/<name>.mjs and returns its path. */
export async function writeModule(proto, name = basename(proto, '.proto'), options = {}) {
  mkdirSync(OUT, { recursive: true })
  const file = join(OUT, `${name}.mjs`)
  writeFileSync(file, await transformProto(proto, options))
  return file
}
