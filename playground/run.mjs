#!/usr/bin/env node
/**
 * `npm run playground:built [-- --port N]` (HTTP) or `npm run -s playground:stdio`:
 * builds `playground/server.ts` with the rolldown plugin into
 * `playground/dist/server.mjs`, then runs it with the given arguments. The
 * package itself must be built first (`npm run build`, which both npm
 * scripts do, with its log sent to stderr). Build messages go to stderr, so
 * in `--stdio` mode stdout carries MCP messages only (`-s` keeps npm's own
 * banner off stdout too).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const outDir = join(here, 'dist')
const entry = join(outDir, 'server.mjs')

/** Builds the playground server into `outDir` with rolldown and the plugin. */
async function buildPlayground() {
  if (!existsSync(join(here, '..', 'dist', 'rolldown.mjs'))) {
    throw new Error('the package is not built: run "npm run build" first (or "npm run playground:built", which does)')
  }
  const { build } = await import('rolldown')
  const { default: protoMcp } = await import('unplugin-proto-mcp/rolldown')
  await build({
    input: { server: join(here, 'server.ts') },
    platform: 'node',
    // Packages stay imports: the output runs from inside this package, so
    // `unplugin-proto-mcp/runtime` resolves to dist/ by self-reference.
    external: (id) => !id.startsWith('.') && !id.startsWith('/') && !id.startsWith('\0') && !/^[A-Za-z]:[\\/]/.test(id),
    plugins: [protoMcp()],
    logLevel: 'warn',
    onLog: (level, log) => {
      process.stderr.write(`playground build ${level}: ${log.message}\n`)
    },
    output: { dir: outDir, format: 'esm', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
    write: true,
  })
}

async function main() {
  await buildPlayground()
  process.stderr.write(`playground built: ${entry}\n`)
  const child = spawn(process.execPath, [entry, ...process.argv.slice(2)], { stdio: 'inherit' })
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal))
  child.on('exit', (code, signal) => {
    process.exitCode = code ?? (signal ? 1 : 0)
  })
}

main().catch((error) => {
  process.stderr.write(`playground: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
