/**
 * Cold start: a fresh `node` process importing the built server of the
 * generated 500-RPC proto, until its first `tools/list` answer over stdio
 * (initialize, initialized, tools/list), vs a process serving the same tools
 * the runtime way (schemas as JSON compiled by Ajv at start-up, protobufjs
 * root built from the descriptor). Both use the SDK's stdio transport;
 * the time runs from spawn to the `tools/list` response line.
 */
import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeBench500 } from './gen-500.mjs'
import { interleave, record } from './lib/measure.mjs'
import { OUT, writeModule } from './lib/module.mjs'

const OURS_CHILD = fileURLToPath(new URL('./lib/cold-ours.mjs', import.meta.url))
const BASELINE_CHILD = fileURLToPath(new URL('./lib/cold-baseline.mjs', import.meta.url))

const line = (message) => `${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`
const INITIALIZE = line({
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
})
const AFTER_INIT = line({ method: 'notifications/initialized' }) + line({ id: 2, method: 'tools/list', params: {} })

/**
 * Spawns `node script ...args`, speaks initialize, initialized and tools/list
 * on its stdin, and resolves `{ ms, tools }`: milliseconds from spawn to
 * the `tools/list` answer line, and the tools it listed.
 */
export function firstList(script, ...args) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
    let buffer = ''
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('exit', (code) => reject(new Error(`${script} exited (${code}) before answering tools/list: ${stderr.slice(0, 500)}`)))
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (chunk) => {
      buffer += chunk
      let nl
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const message = JSON.parse(buffer.slice(0, nl))
        buffer = buffer.slice(nl + 1)
        if (message.id === 1) child.stdin.write(AFTER_INIT)
        if (message.id === 2) {
          const ms = Number(process.hrtime.bigint() - start) / 1e6
          child.removeAllListeners('exit')
          child.kill()
          if (!Array.isArray(message.result?.tools))
            reject(new Error(`${script}: tools/list gave no tools: ${JSON.stringify(message).slice(0, 500)}`))
          else resolve({ ms, tools: message.result.tools })
        }
      }
    })
    child.stdin.write(INITIALIZE)
  })
}

/** Milliseconds from spawning `node script arg` to its `tools/list` answer (checked to list `tools` tools). */
export async function timeToFirstList(script, arg, tools) {
  const answer = await firstList(script, arg)
  if (answer.tools.length !== tools) throw new Error(`${script}: tools/list gave ${answer.tools.length} tools, not ${tools}`)
  return answer.ms
}

export default {
  name: 'cold-start',
  ids: ['cold-start-500'],
  async run() {
    const proto = writeBench500()
    const module = await writeModule(proto, 'bench500')
    const { tools, descriptor } = await import(module)
    const json = join(OUT, 'bench500-tools.json')
    writeFileSync(json, JSON.stringify({ tools: tools.map(({ validate, decode, encode, ...rest }) => rest), descriptor }))
    const count = tools.length
    // Each side's own clock (spawn → answer), not the batch time around it.
    const ours = []
    const baseline = []
    await interleave({
      ours: async () => {
        ours.push(await timeToFirstList(OURS_CHILD, module, count))
      },
      baseline: async () => {
        baseline.push(await timeToFirstList(BASELINE_CHILD, json, count))
      },
      ops: 1,
      rounds: 5,
      warmup: 0,
    })
    return [
      record({
        id: 'cold-start-500',
        samples: { ours, baseline },
        unit: 'ms',
        higherIsBetter: false,
        target: 0.5,
        note: `spawn → first tools/list answer, ${count} tools; vs schemas compiled by Ajv at start-up`,
      }),
    ]
  },
}
