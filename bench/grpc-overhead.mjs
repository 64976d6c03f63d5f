/**
 * gRPC forwarding: `server.call` of the generated example server forwarding
 * to a grpc-js backend (`forward(service, grpc(address))`: validate, decode,
 * encode to binary, the gRPC round trip, decode, encode the result) vs the
 * same call made directly with a grpc-js client (@grpc/proto-loader), both
 * against one backend in a child process, one call at a time. The figure is
 * the time we add per call over the direct call's:
 * ratio = (ours − direct) / direct; target ≤ 1.5 (medium request).
 */
import { spawn } from 'node:child_process'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import * as grpcJs from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { CASES, EXAMPLE_PROTO } from './lib/example.mjs'
import { interleave, median, record } from './lib/measure.mjs'
import { OUT, writeModule } from './lib/module.mjs'

const CHILD = fileURLToPath(new URL('./lib/grpc-child.mjs', import.meta.url))

async function startBackend() {
  const child = spawn(process.execPath, [CHILD, EXAMPLE_PROTO], { stdio: ['pipe', 'pipe', 'inherit'] })
  const port = await new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`grpc backend exited (${code})`)))
    createInterface({ input: child.stdout }).once('line', (line) => resolve(JSON.parse(line).port))
  })
  return {
    address: `127.0.0.1:${port}`,
    stop: () => {
      child.stdin.end()
      child.kill()
    },
  }
}

export default {
  name: 'grpc-overhead',
  ids: ['grpc-overhead'],
  async run() {
    const backend = await startBackend()
    const { default: server } = await import(await writeModule(EXAMPLE_PROTO, 'example'))
    const { grpc } = await import(pathToFileURL(join(OUT, 'node_modules', 'unplugin-proto-mcp', 'dist', 'grpc.mjs')).href)
    const target = grpc(backend.address)
    server.forward('VibeService', target)
    const definition = protoLoader.loadSync(EXAMPLE_PROTO, { longs: String, enums: String, defaults: true, oneofs: true })
    const Client = grpcJs.makeClientConstructor(definition['examples.v1.VibeService'], 'VibeService')
    const client = new Client(backend.address, grpcJs.credentials.createInsecure())
    const { tool, args } = CASES.medium
    const direct = () => new Promise((resolve, reject) => client[tool](args, (error, reply) => (error ? reject(error) : resolve(reply))))
    try {
      const ours = await server.call(tool, args)
      const theirs = await direct()
      if (ours.isError || JSON.parse(ours.content[0].text).vibe !== theirs.vibe) {
        throw new Error(`grpc-overhead: results differ: ${ours.content[0].text} vs ${JSON.stringify(theirs)}`)
      }
      const ops = 200
      const samples = await interleave({
        ours: async () => {
          for (let i = 0; i < ops; i++) await server.call(tool, args)
        },
        baseline: async () => {
          for (let i = 0; i < ops; i++) await direct()
        },
        ops,
        rounds: 15,
        warmup: 3,
      })
      // Per round: the time we add over the direct call, against the direct call's time.
      const added = samples.ours.map((t, i) => t - samples.baseline[i])
      return [
        record({
          id: 'grpc-overhead',
          samples: { ours: added, baseline: samples.baseline },
          unit: 'µs/call',
          higherIsBetter: false,
          target: 1.5,
          note: `added latency per forwarded call (ours − direct) over a direct grpc-js call, ${tool}; ours whole: ${Math.round(median(samples.ours))} µs, direct ${Math.round(median(samples.baseline))} µs`,
        }),
      ]
    } finally {
      client.close()
      target.close()
      backend.stop()
    }
  },
}
