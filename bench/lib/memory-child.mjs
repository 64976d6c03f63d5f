/**
 * The memory benchmarks' server: a generated `?mcp` module (argv[2]) with
 * the example backend, served over HTTP on 127.0.0.1 (port 0) with
 * `sessionIdleMs` argv[3]. Run with --expose-gc. Prints `{"url"}`, then
 * answers stdin lines: `stats` → `{"rss","heapUsed","heapTotal","external","sessions"}` after two
 * full gcs; `sessions` → `{"sessions"}` (no gc).
 */
import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'

const { default: server } = await import(pathToFileURL(process.argv[2]).href)
// The example backend of lib/example.mjs, inline: that module loads the baselines' libraries too.
server.implement('VibeService', {
  SetVibe: (req) => ({ previousVibe: '', vibe: req.vibe ?? '' }),
  SetVibeDetails: (req) => ({ previousVibe: '', vibe: req.vibe ?? '' }),
  SetVibeObjects: (req) => ({ vibeObject: req.vibeObject ?? [] }),
})
const handle = await server.serveHttp({ port: 0, sessionIdleMs: Number(process.argv[3] ?? 600_000) })
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
say({ url: handle.url })

createInterface({ input: process.stdin })
  .on('line', (line) => {
    if (line === 'sessions') return say({ sessions: handle.sessionCount })
    if (line !== 'stats') return
    // The second pass frees what the first one's finalizers released.
    globalThis.gc()
    globalThis.gc()
    const { rss, heapUsed, heapTotal, external } = process.memoryUsage()
    say({ rss, heapUsed, heapTotal, external, sessions: handle.sessionCount })
  })
  .on('close', async () => {
    await handle.close()
    process.exit(0)
  })
