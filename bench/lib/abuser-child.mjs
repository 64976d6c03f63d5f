// The caller over its limit in the rate-limit-fairness bench (bench/rate-limit.mjs), in a process of its own so
// that its client work does not run on the server's event loop: `node abuser-child.mjs <url> <calls a second>`
// opens a session, prints {"ready":true}, then on each `go` line calls (node:http, kept-alive) 8 at a time, each
// starting a call every 8/rate s (at once when its last took longer), until a `stop` line, and prints the
// statuses it got ({"200":n,"429":m}). It ends when its stdin closes.
import { createInterface } from 'node:readline'
import { lightCall, openSession } from './mcp-session.mjs'

const url = process.argv[2]
const WORKERS = 8
const every = (1000 * WORKERS) / Number(process.argv[3])
const session = await openSession(url)
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
say({ ready: true })
let going
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'go') {
    const statuses = {}
    const state = { stop: false }
    const worker = async () => {
      while (!state.stop) {
        const started = performance.now()
        const status = await lightCall(url, session, 'SetVibe', { vibe: 'abuse' })
        statuses[status] = (statuses[status] ?? 0) + 1
        const wait = every - (performance.now() - started)
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      }
    }
    going = { state, done: Promise.all(Array.from({ length: WORKERS }, worker)).then(() => statuses) }
  } else if (line === 'stop' && going) {
    going.state.stop = true
    say(await going.done)
    going = undefined
  }
}
