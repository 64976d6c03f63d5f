#!/usr/bin/env node
/**
 * `npm run playground [-- --port N] [--host H]`: Vite's dev server on the
 * playground, with the plugin's `dev` option serving `server.ts` (the
 * playground's `Server` on its in-process backend) at `/mcp` and the tools
 * page at `/__mcp/`. Edit `vibe.proto` or `backend.ts` while it runs: the
 * tools change without a restart and connected clients get `list_changed`.
 * The package must be built first (`npm run build`, which the npm script
 * does, with its log sent to stderr).
 */
import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const here = dirname(fileURLToPath(import.meta.url))

/** `--port N` (0 picks a free port; a busy one moves to the next) and `--host H`. */
function parseDevArgs(argv) {
  const { values } = parseArgs({
    args: argv,
    options: { host: { type: 'string', default: '127.0.0.1' }, port: { type: 'string', default: '3000' } },
    strict: true,
  })
  const port = Number(values.port)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`invalid --port "${values.port}": expected an integer from 0 to 65535`)
  }
  return { host: values.host, port }
}

async function main() {
  const args = parseDevArgs(process.argv.slice(2))
  if (!existsSync(join(here, '..', 'dist', 'vite.mjs'))) {
    throw new Error('the package is not built: run "npm run build" first (or "npm run playground", which does)')
  }
  const { createServer } = await import('vite')
  const { default: protoMcp } = await import('unplugin-proto-mcp/vite')
  const server = await createServer({
    configFile: false,
    root: here,
    appType: 'custom',
    clearScreen: false,
    // The runtime loads as the package it is (Node's own import), not
    // through the module runner: one copy across reloads, as in a user's app.
    ssr: { external: ['unplugin-proto-mcp'] },
    server: { host: args.host, port: args.port },
    plugins: [protoMcp({ dev: { server: './server.ts' } })],
  })
  await server.listen()
  const { address, port } = server.httpServer.address()
  const origin = `http://${address.includes(':') ? `[${address}]` : address}:${port}`
  const mcp = `${origin}/mcp`
  process.stdout.write(
    [
      "playground: vibe.proto on Vite's dev server, with hot reload",
      `  MCP endpoint: ${mcp}`,
      `  Tools page:   ${origin}/__mcp/`,
      '',
      'MCP client configuration:',
      JSON.stringify({ mcpServers: { vibe: { url: mcp } } }, null, 2),
      '',
      'Edit playground/vibe.proto or playground/backend.ts: the tools change without a restart.',
      'Ctrl-C to stop.',
      '',
    ].join('\n'),
  )
  await new Promise((resolve) => {
    const stop = () => {
      // A requested stop is a clean exit (Vite's own handler would exit with 128 + signal).
      process.exitCode = 0
      void server.close().then(resolve)
    }
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}

main().catch((error) => {
  process.stderr.write(`playground: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exitCode = 1
})
