/**
 * HTTP throughput: `tools/call`s of one tool (`add(a, b)`) from 50
 * concurrent clients over keep-alive connections, each server in a child
 * process (bench/lib/http-child.mjs) and the load from this one: our
 * `serveHttp()` against the SDK's own `createMcpHandler` serving an
 * `McpServer` with the same tool (a zod schema), on node:http with the
 * SDK's Node adapter, in the same rounds; and against a bare node:http
 * server that answers each JSON-RPC request itself (the floor: no MCP
 * library at all). Two wires: 2026-07-28 (every request carries its
 * `_meta` envelope and the standard headers) and the initialize era (each
 * client initializes once, then calls with the session id it was given, if
 * any: createMcpHandler serves that era without sessions).
 * `ours`/`baseline` are µs per call over all clients; ratio = our
 * throughput / theirs.
 */
import { spawn } from 'node:child_process'
import { copyFileSync } from 'node:fs'
import { Agent, request } from 'node:http'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { interleave, record } from './lib/measure.mjs'
import { OUT, requireDist } from './lib/module.mjs'

const CHILD = fileURLToPath(new URL('./lib/http-child.mjs', import.meta.url))
const CLIENTS = 50
const CALLS_PER_CLIENT = 20
const INFO = { name: 'bench-client', version: '1.0.0' }

/** Starts one side's server; resolves with its URL and its stop. */
async function start(side) {
  // Run from the bench's package folder, where `unplugin-proto-mcp/runtime` is the run's copy of dist/.
  const script = join(OUT, 'http-child.mjs')
  copyFileSync(CHILD, script)
  const child = spawn(process.execPath, [script, side], { cwd: OUT, stdio: ['pipe', 'pipe', 'inherit'] })
  const url = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`http-throughput: the ${side} server exited (${code})`)))
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line).url))
  })
  return { url, stop: () => child.stdin.end() }
}

/** POSTs `body` to `url` on `agent`; resolves with the status, the session id header and the JSON-RPC response (JSON or the last SSE message). */
function post(agent, url, body, headers) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => (text += chunk))
        res.on('end', () => {
          const data = text.includes('data: ')
            ? text
                .split('\n')
                .filter((line) => line.startsWith('data: '))
                .at(-1)
                .slice(6)
            : text
          resolve({ status: res.statusCode, session: res.headers['mcp-session-id'], message: data === '' ? undefined : JSON.parse(data) })
        })
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })
}

/** One client of a wire: `setup()` once, then `call(i)` resolving with the tool's answer text. */
function client(wire, agent, url) {
  let id = 0
  const headers = {}
  if (wire === 'modern') {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': INFO,
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    return {
      setup: async () => {},
      call: async (i) => {
        const body = { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'add', arguments: { a: i, b: 1 }, _meta: meta } }
        const { message } = await post(agent, url, body, {
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'add',
        })
        return message?.result?.content?.[0]?.text
      },
    }
  }
  return {
    setup: async () => {
      const init = {
        jsonrpc: '2.0',
        id: ++id,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: INFO },
      }
      const { session } = await post(agent, url, init, {})
      if (session) headers['mcp-session-id'] = session
      headers['mcp-protocol-version'] = '2025-11-25'
      await post(agent, url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers)
    },
    call: async (i) => {
      const { message } = await post(
        agent,
        url,
        { jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'add', arguments: { a: i, b: 1 } } },
        headers,
      )
      return message?.result?.content?.[0]?.text
    },
  }
}

/** A batch: CLIENTS clients, each set up then calling CALLS_PER_CLIENT times, all at once; every answer checked. */
function batch(wire, url) {
  return async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: CLIENTS })
    try {
      const clients = Array.from({ length: CLIENTS }, () => client(wire, agent, url))
      await Promise.all(clients.map((c) => c.setup()))
      await Promise.all(
        clients.map(async (c) => {
          for (let i = 0; i < CALLS_PER_CLIENT; i++) {
            const text = await c.call(i)
            if (text !== String(i + 1)) throw new Error(`http-throughput (${wire}, ${url}): add(${i}, 1) answered ${JSON.stringify(text)}`)
          }
        }),
      )
    } finally {
      agent.destroy()
    }
  }
}

export default {
  name: 'http-throughput',
  ids: ['http-throughput-2026', 'http-throughput-sessions', 'http-throughput-2026-floor', 'http-throughput-sessions-floor'],
  async run() {
    requireDist()
    const sides = { ours: await start('ours'), sdk: await start('sdk'), floor: await start('floor') }
    const ops = CLIENTS * CALLS_PER_CLIENT
    const rounds = 10
    const records = []
    try {
      for (const [wire, name, label] of [
        ['modern', '2026', '2026-07-28 requests'],
        ['legacy', 'sessions', 'initialize-era sessions'],
      ]) {
        const ours = batch(wire, sides.ours.url)
        const vsSdk = await interleave({ ours, baseline: batch(wire, sides.sdk.url), ops, rounds })
        records.push(
          record({
            id: `http-throughput-${name}`,
            samples: vsSdk,
            unit: 'µs/call',
            higherIsBetter: true,
            target: 2,
            note: `${label}, ${CLIENTS} clients × ${CALLS_PER_CLIENT} calls (setup included) over keep-alive connections: serveHttp() vs the SDK's createMcpHandler (McpServer, zod) on node:http`,
          }),
        )
        const vsFloor = await interleave({ ours, baseline: batch(wire, sides.floor.url), ops, rounds })
        records.push(
          record({
            id: `http-throughput-${name}-floor`,
            samples: vsFloor,
            unit: 'µs/call',
            higherIsBetter: true,
            target: null,
            note: `the same load against a bare node:http server answering each JSON-RPC request itself (no MCP library): the ratio is the share of the floor's throughput we reach`,
          }),
        )
      }
    } finally {
      for (const side of Object.values(sides)) side.stop()
    }
    return records
  },
}
