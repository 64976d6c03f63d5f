/**
 * Build: the plugin's transform of the 500-RPC proto (parse, schemas,
 * validators compiled to standalone code, codecs: the `?mcp` module a
 * bundler receives) vs `pbjs -t static-module` (protobufjs-cli) on the same
 * file. Both run as fresh `node` processes that load their tool and write
 * one output file, so each pays its own start-up and module loading; the
 * time runs from spawn to exit.
 */
import { spawn } from 'node:child_process'
import { statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { writeBench500 } from './gen-500.mjs'
import { interleave, record } from './lib/measure.mjs'
import { OUT } from './lib/module.mjs'

const TRANSFORM_CHILD = fileURLToPath(new URL('./lib/transform-child.mjs', import.meta.url))
const PBJS = createRequire(import.meta.url).resolve('protobufjs-cli/bin/pbjs')

/** Milliseconds from spawning `node ...args` to its successful exit, checking it wrote `out`. */
function timeProcess(args, out) {
  return new Promise((resolve, reject) => {
    const start = process.hrtime.bigint()
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => {
      stderr += chunk
    })
    child.on('error', reject)
    child.on('exit', (code) => {
      const ms = Number(process.hrtime.bigint() - start) / 1e6
      if (code !== 0) return reject(new Error(`${args.join(' ')} failed (${code}): ${stderr.slice(0, 500)}`))
      if (statSync(out).size === 0) return reject(new Error(`${args.join(' ')} wrote nothing`))
      resolve(ms)
    })
  })
}

export default {
  name: 'build',
  ids: ['build-500-vs-pbjs'],
  async run() {
    const proto = writeBench500()
    const oursOut = join(OUT, 'build500.mjs')
    const pbjsOut = join(OUT, 'build500.pbjs.js')
    const ours = []
    const baseline = []
    await interleave({
      ours: async () => {
        ours.push(await timeProcess([TRANSFORM_CHILD, proto, oursOut], oursOut))
      },
      baseline: async () => {
        baseline.push(await timeProcess([PBJS, '-t', 'static-module', '-o', pbjsOut, proto], pbjsOut))
      },
      ops: 1,
      rounds: 3,
      warmup: 0,
    })
    return [
      record({
        id: 'build-500-vs-pbjs',
        samples: { ours, baseline },
        unit: 'ms',
        higherIsBetter: false,
        target: 1.0,
        note: 'fresh process each: plugin transform of the 500-RPC proto vs pbjs -t static-module',
      }),
    ]
  },
}
