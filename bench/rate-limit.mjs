/**
 * Rate limits are fair (docs/guide/production.md): `serveHttp()` with
 * `rateLimit({ perCaller: { rate: 5, burst: 5 } })`, 50 initialize-era
 * sessions on loopback. 49 polite callers each call `SetVibe` once every
 * 500 ms (2 a second, 40 % of their limit), 10 calls a round, all at
 * once; the p99 of their latencies in a round while the 50th caller (a
 * child process on a cheap node:http client, so its own client work is
 * not on the server's event loop and costs the cores little) calls 50
 * times a second (8 at a time), ten times its limit, and is answered 429,
 * against their p99 in a round without it. Same run, ABBA rounds. What
 * the figure holds besides the refusals: the caller's own 5 calls a second
 * (the limit lets them through), about 5 % more calls than the others'.
 *
 * - `rate-limit-fairness`: the others' p99 with the caller over its limit ÷
 *   their p99 without it. Target ≤ 1.10.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { backend, EXAMPLE_PROTO } from './lib/example.mjs'
import { median, quantile, record } from './lib/measure.mjs'
import { openSession, sessionCall } from './lib/mcp-session.mjs'
import { writeModule } from './lib/module.mjs'

const ABUSER = fileURLToPath(new URL('./lib/abuser-child.mjs', import.meta.url))
const CALLERS = 49
const CALLS = 10
const EVERY_MS = 500
const ROUNDS = 8
/** The limit per caller (calls a second, and the burst) and the rate of the caller over it: ten times its limit. */
const LIMIT = 5
const ABUSE_RATE = 50

/** The abuser child: `start()` sets it calling, `stop()` resolves with the statuses it got. */
async function startAbuser(url) {
  const child = spawn(process.execPath, [ABUSER, url, String(ABUSE_RATE)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]()
  const next = async () => {
    const { value, done } = await lines.next()
    if (done) throw new Error('rate-limit-fairness: the abuser process ended')
    return JSON.parse(value)
  }
  await next()
  return {
    start: () => child.stdin.write('go\n'),
    stop: () => (child.stdin.write('stop\n'), next()),
    close: () => child.stdin.end(),
  }
}

export default {
  name: 'rate-limit',
  ids: ['rate-limit-fairness'],
  async run() {
    const file = await writeModule(EXAMPLE_PROTO, 'example-rate-limit')
    const { default: server } = await import(file)
    server
      .implement('VibeService', backend)
      .logging({ logger: false })
      .rateLimit({ perCaller: { rate: LIMIT, burst: LIMIT } })
    const handle = await server.serveHttp({ port: 0 })
    const abuser = await startAbuser(handle.url)
    try {
      const sessions = await Promise.all(Array.from({ length: CALLERS }, () => openSession(handle.url)))
      /** One round: every polite caller's latencies (ms); throws on any answer but 200. */
      const round = async () => {
        const all = await Promise.all(
          sessions.map(async (session, i) => {
            // Spread over the first period, so the callers do not all start at once.
            await new Promise((resolve) => setTimeout(resolve, (i * EVERY_MS) / CALLERS))
            const out = []
            for (let c = 0; c < CALLS; c++) {
              const started = performance.now()
              const status = await sessionCall(handle.url, session, 'SetVibe', { vibe: 'polite' })
              const ms = performance.now() - started
              if (status !== 200) throw new Error(`rate-limit-fairness: a polite caller got ${status}`)
              out.push(ms)
              await new Promise((resolve) => setTimeout(resolve, Math.max(0, EVERY_MS - ms)))
            }
            return out
          }),
        )
        return all.flat()
      }
      const p99 = { alone: [], abused: [] }
      const refused = []
      const side = async (name) => {
        if (name === 'abused') abuser.start()
        const latencies = await round()
        if (name === 'abused') {
          const statuses = await abuser.stop()
          refused.push(statuses[429] ?? 0)
          if (!(statuses[429] > 0))
            throw new Error(`rate-limit-fairness: the caller over its limit got no 429 (${JSON.stringify(statuses)})`)
        }
        return quantile(latencies, 0.99)
      }
      await side('alone')
      await side('abused')
      for (let r = 0; r < ROUNDS; r++) {
        for (const name of r % 2 === 0 ? ['alone', 'abused'] : ['abused', 'alone']) p99[name].push(await side(name))
      }
      return [
        record({
          id: 'rate-limit-fairness',
          samples: { ours: p99.abused, baseline: p99.alone },
          unit: 'ms (p99)',
          higherIsBetter: false,
          target: 1.1,
          note:
            `${CALLERS} polite sessions (a SetVibe every ${EVERY_MS} ms, ${CALLS} a round, under perCaller ${LIMIT}/s) with a 50th session calling ${ABUSE_RATE} times a second ` +
            `(a child process; median ${Math.round(median(refused))} 429s a round) vs without it: their p99 latency per round`,
        }),
      ]
    } finally {
      abuser.close()
      await handle.close()
    }
  },
}
