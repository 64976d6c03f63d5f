/**
 * Memory: a built example server in a child process (--expose-gc), its RSS
 * after two full gcs. RSS climbs to a plateau while the allocator warms up
 * (the heap after gc stays flat), so each baseline is taken after a warm-up
 * of the same work, and the figure says whether memory keeps growing:
 * - `memory-calls`: RSS after 10 000 `tools/call` requests over HTTP (one
 *   initialize-era session, 16 in flight, the small and medium requests)
 *   vs RSS after a 10 000-call warm-up. Bound: ≤ 1.25×.
 * - `memory-sessions`: RSS after 1 000 HTTP sessions were opened (initialize
 *   only), abandoned and timed out (`sessionIdleMs` 2 s) vs RSS before them,
 *   after 500 warm-up sessions went the same way. Bound: ≤ 1.25×.
 * Each round is a fresh child; figures are medians over the rounds.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { CASES, EXAMPLE_PROTO } from './lib/example.mjs'
import { record } from './lib/measure.mjs'
import { writeModule } from './lib/module.mjs'

const CHILD = fileURLToPath(new URL('./lib/memory-child.mjs', import.meta.url))
const IDLE_MS = 2000
const ROUNDS = Number(process.env.MEMORY_ROUNDS ?? 2)
const BOUND = 1.25
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const VERSION = '2025-06-18'

/** Starts the child; resolves with its URL and an `ask(line)` for its stats. */
async function startChild(module) {
  const child = spawn(process.execPath, ['--expose-gc', CHILD, module, String(IDLE_MS)], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: child.stdout })
  const waiting = []
  const first = new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`memory child exited (${code}) before serving`)))
    lines.once('line', (line) => resolve(JSON.parse(line).url))
  })
  const url = await first
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line)))
  const ask = (what) =>
    new Promise((resolve) => {
      waiting.push(resolve)
      child.stdin.write(`${what}\n`)
    })
  return {
    url,
    ask,
    stop: () => {
      child.stdin.end()
      child.kill()
    },
  }
}

async function post(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) })
  const text = await res.text()
  return { res, text }
}

/** initialize + notifications/initialized; returns the session id. */
async function openSession(url, initializedToo = true) {
  const { res } = await post(url, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
  })
  const id = res.headers.get('mcp-session-id')
  if (res.status !== 200 || !id) throw new Error(`memory: initialize answered ${res.status}`)
  if (initializedToo)
    await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id, 'mcp-protocol-version': VERSION })
  return id
}

/** `count` tool calls on session `id`, `concurrency` in flight; each answer is checked. */
async function calls(url, id, count, concurrency = 16) {
  let next = 0
  const headers = { 'mcp-session-id': id, 'mcp-protocol-version': VERSION }
  const worker = async () => {
    while (next < count) {
      const n = next++
      const c = n % 2 === 0 ? CASES.small : CASES.medium
      const { text } = await post(
        url,
        { jsonrpc: '2.0', id: n + 1, method: 'tools/call', params: { name: c.tool, arguments: c.args } },
        headers,
      )
      if (!text.includes('"isError":false')) throw new Error(`memory: call ${n} failed: ${text.slice(0, 300)}`)
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
}

/** Opens `count` sessions (initialize only, 16 at a time) and abandons them. */
async function abandonSessions(url, count) {
  let next = 0
  const worker = async () => {
    while (next++ < count) await openSession(url, false)
  }
  await Promise.all(Array.from({ length: 16 }, worker))
}

async function settled(ask) {
  const deadline = Date.now() + 60_000
  while ((await ask('sessions')).sessions > 0) {
    if (Date.now() > deadline) throw new Error('memory: sessions were not freed within 60 s')
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  return ask('stats')
}

async function callsRound(module) {
  const child = await startChild(module)
  try {
    const id = await openSession(child.url)
    await calls(child.url, id, 10_000)
    const warm = await child.ask('stats')
    await calls(child.url, id, 10_000)
    const after = await child.ask('stats')
    return { warm, after }
  } finally {
    child.stop()
  }
}

async function sessionsRound(module) {
  const child = await startChild(module)
  try {
    await abandonSessions(child.url, 500)
    const before = await settled(child.ask)
    await abandonSessions(child.url, 1000)
    const peak = await child.ask('stats')
    const after = await settled(child.ask)
    return { before, peak, after }
  } finally {
    child.stop()
  }
}

const mib = (bytes) => (bytes / 1024 / 1024).toFixed(1)

export default {
  name: 'memory',
  ids: ['memory-calls', 'memory-sessions'],
  async run() {
    const module = await writeModule(EXAMPLE_PROTO, 'example')
    const callRounds = []
    const sessionRounds = []
    for (let r = 0; r < ROUNDS; r++) {
      callRounds.push(await callsRound(module))
      sessionRounds.push(await sessionsRound(module))
    }
    const rss = (rounds, key) => rounds.map((round) => round[key].rss / 1024 / 1024)
    const heap = (rounds, key) => rounds.map((round) => mib(round[key].heapUsed)).join('/')
    const peakSessions = Math.max(...sessionRounds.map((round) => round.peak.sessions))
    return [
      record({
        id: 'memory-calls',
        samples: { ours: rss(callRounds, 'after'), baseline: rss(callRounds, 'warm') },
        unit: 'MiB RSS',
        higherIsBetter: false,
        target: BOUND,
        note: `RSS after 10 000 tools/call over HTTP vs after a 10 000-call warm-up (heap ${heap(callRounds, 'warm')} → ${heap(callRounds, 'after')} MiB)`,
      }),
      record({
        id: 'memory-sessions',
        samples: { ours: rss(sessionRounds, 'after'), baseline: rss(sessionRounds, 'before') },
        unit: 'MiB RSS',
        higherIsBetter: false,
        target: BOUND,
        note: `RSS after 1 000 abandoned sessions timed out (up to ${peakSessions} open at once) vs before them, after 500 more as warm-up (heap ${heap(sessionRounds, 'before')} → ${heap(sessionRounds, 'after')} MiB)`,
      }),
    ]
  },
}
