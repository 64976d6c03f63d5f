/**
 * The playground server: `vibe.proto`'s tools bound to the in-memory
 * backend. Importing it gives the `Server`; running the built file
 * (`node playground/dist/server.mjs [--stdio] [--port N]`) serves it.
 */
/// <reference path="../client.d.ts" />
import { realpathSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import server from './vibe.proto?mcp'
import { createBackend } from './backend.ts'
import { serveFromArgs } from './serve.ts'

const backend = createBackend()
server
  .implement('VibeService', backend.VibeService)
  .implement('PlaylistService', backend.PlaylistService)
  .implement('JournalService', backend.JournalService)

export default server

const self = fileURLToPath(import.meta.url)
// Run as a script (not imported): serve. realpath, as npm links and /tmp may be symlinks.
const isMain = ((): boolean => {
  try {
    return realpathSync(process.argv[1] ?? '') === realpathSync(self)
  } catch {
    return false
  }
})()
if (isMain) {
  serveFromArgs(server, process.argv.slice(2), self).catch((error: unknown) => {
    process.stderr.write(`playground: ${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
