/**
 * Load over HTTP on loopback: concurrent real MCP clients (SDK v1 and SDK v2
 * in the initialize era, SDK v2 pinned to 2026-07-28), each making a run of
 * calls against a built example server in a child process (--expose-gc).
 * Zero failures; once the sessions have ended (idle timeout) the server's
 * heap after a full gc is back near its warmed-up baseline.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { bundleSelfContained } from '../bundlers/harness.ts'
import { scaled } from './scale.ts'

const CLIENTS = 50
// The 50 × 100 runs under `npm run soak`; `npm test` runs 50 × 20 to stay within its time budget.
const CALLS = scaled(20, 100)
// Long enough that a busy machine's gap between initialize and the first call does not end a session.
const IDLE_MS = 10_000
/** Heap after the sessions ended may exceed the warmed-up baseline by at most this much. */
const HEAP_SLACK_BYTES = 8 * 1024 * 1024

interface Stats {
  heapUsed: number
  rss: number
  sessions: number
}

const dir = mkdtempSync(join(tmpdir(), 'reliability-load-'))
let child: ChildProcessWithoutNullStreams
let url = ''
const replies: Array<(message: any) => void> = []

beforeAll(async () => {
  const file = await bundleSelfContained(
    fileURLToPath(new URL('../../fixtures/scripts/reliability/load-server.mjs', import.meta.url)),
    join(dir, 'load-server.mjs'),
  )
  child = spawn(process.execPath, ['--expose-gc', file, String(IDLE_MS)], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk) => {
    stderr += chunk
  })
  const lines = createInterface({ input: child.stdout })
  url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`load server exited (${code}): ${stderr}`)))
    lines.once('line', (line) => resolve((JSON.parse(line) as { url: string }).url))
  })
  lines.on('line', (line) => replies.shift()?.(JSON.parse(line)))
}, 120_000)

afterAll(async () => {
  child?.stdin.end()
  child?.kill()
  rmSync(dir, { recursive: true, force: true })
})

/** Asks the server: `stats` (heap after a full gc, sessions) or `sessions` (the count only, no gc). */
function ask(what: 'stats' | 'sessions'): Promise<Stats> {
  return new Promise((resolve) => {
    replies.push(resolve)
    child.stdin.write(`${what}\n`)
  })
}

type Flavour = 'v1' | 'v2-legacy' | 'v2-2026'
const FLAVOURS: Flavour[] = ['v1', 'v2-legacy', 'v2-2026']

interface LoadClient {
  /** Ends the session with DELETE (initialize era); the 2026 client has none to end. */
  terminate(): Promise<void>
  call(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: Array<{ text: string }> }>
  close(): Promise<void>
}

async function connect(flavour: Flavour): Promise<LoadClient> {
  const info = { name: `load-${flavour}`, version: '0' }
  if (flavour === 'v1') {
    const client = new ClientV1(info)
    const transport = new HttpV1(new URL(url))
    await client.connect(transport)
    return {
      terminate: () => transport.terminateSession(),
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as any,
      close: () => client.close(),
    }
  }
  const client = new ClientV2(info, flavour === 'v2-2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {})
  const transport = new HttpV2(new URL(url))
  await client.connect(transport)
  return {
    terminate: () => (flavour === 'v2-2026' ? Promise.resolve() : transport.terminateSession()),
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as any,
    close: () => client.close(),
  }
}

/**
 * One client's run: `calls` calls alternating SetVibe and GetVibe; returns
 * the failures it saw; `connected` (a barrier) runs when its connection
 * attempt ends. It ends its session with DELETE, so the memory check
 * needs no idle timeout (abandoned sessions are test/server/sessions.test.ts's).
 */
async function run(index: number, calls: number, connected?: () => Promise<void>): Promise<string[]> {
  const flavour = FLAVOURS[index % FLAVOURS.length]!
  const failures: string[] = []
  let client: LoadClient
  try {
    client = await connect(flavour)
  } catch (error) {
    await connected?.()
    return [`client ${index} (${flavour}) could not connect: ${(error as Error).message}`]
  }
  await connected?.()
  for (let i = 0; i < calls; i++) {
    const vibe = `c${index}-${i}`
    const [name, args, expected] = i % 2 === 0 ? ['SetVibe', { vibe }, JSON.stringify({ vibe })] : ['GetVibe', {}, '{"vibe":"steady"}']
    try {
      const result = await client.call(name, args)
      if (result.isError || result.content[0]?.text !== expected) failures.push(`client ${index} call ${i}: ${JSON.stringify(result)}`)
    } catch (error) {
      failures.push(`client ${index} (${flavour}) call ${i} rejected: ${(error as Error).message}`)
    }
  }
  await client.terminate()
  await client.close()
  return failures
}

/** Waits until the server holds no sessions, then reads its heap. */
async function settled(): Promise<Stats> {
  await vi.waitFor(async () => expect((await ask('sessions')).sessions).toBe(0), { timeout: 30_000, interval: 100 })
  return ask('stats')
}

describe(`${CLIENTS} concurrent clients × ${CALLS} calls over HTTP`, () => {
  it('zero failures, and the heap is back near its baseline once the sessions end', { timeout: 300_000 }, async () => {
    // Warm-up: every flavour once, so lazily loaded code and caches count in the baseline.
    expect((await Promise.all(FLAVOURS.map((_, i) => run(i, 10)))).flat()).toEqual([])
    const baseline = await settled()

    // Every client connects, then all start calling together once the server's sessions are counted.
    let arrived = 0
    let release!: () => void
    const start = new Promise<void>((resolve) => {
      release = resolve
    })
    let openAtStart = -1
    const barrier = async (): Promise<void> => {
      if (++arrived === CLIENTS) {
        openAtStart = (await ask('sessions')).sessions
        release()
      }
      await start
    }
    const failures = (await Promise.all(Array.from({ length: CLIENTS }, (_, i) => run(i, CALLS, barrier)))).flat()
    expect(failures.slice(0, 5), `${failures.length} failures`).toEqual([])
    // The initialize-era clients (two flavours of three) held their sessions all at once.
    expect(openAtStart).toBe(Array.from({ length: CLIENTS }, (_, i) => FLAVOURS[i % 3]).filter((f) => f !== 'v2-2026').length)

    const after = await settled()
    const grown = after.heapUsed - baseline.heapUsed
    expect(grown, `heap ${baseline.heapUsed} → ${after.heapUsed} bytes`).toBeLessThan(HEAP_SLACK_BYTES)
  })
})
