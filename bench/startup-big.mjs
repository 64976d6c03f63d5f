/**
 * Big APIs start fast (issue 31): the gateway (`proto-mcp serve`) from
 * spawn to its first `tools/list` answer over stdio with the default
 * `portable` profile (token budget on) vs `--profile full` (no budget) on
 * the same proto, for Firestore (google-proto-files) and for a synthetic
 * service of Temporal's size and shape (bench/gen-big.mjs: 123 RPCs, deep
 * commented requests); and the plugin's build of a 2,000-field request
 * (fresh process per build) vs the build of a 200-field one: ten times the
 * fields in at most ten times the time (no quadratic step), and 5 s at most.
 * And a small API, the Topeka example (its largest tool over 1,500 bytes,
 * within 1,500 tokens): the budget's check costs no load of the tokenizer
 * (src/schema/tokens.ts, `tokensAtMost`).
 */
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { WIDE_PROTO, WIDE_FIELDS, wideProto, WORKFLOW_PROTO, WORKFLOW_RPCS } from './gen-big.mjs'
import { firstList } from './cold-start.mjs'
import { interleave, median, record } from './lib/measure.mjs'
import { OUT, requireDist } from './lib/module.mjs'
import { EXAMPLE_PROTO } from './lib/example.mjs'

const GOOGLE = dirname(createRequire(import.meta.url).resolve('google-proto-files/package.json'))
const FIRESTORE = join(GOOGLE, 'google/firestore/v1/firestore.proto')
const CLI = join(OUT, 'node_modules', 'unplugin-proto-mcp', 'dist', 'cli.mjs')
const BUILD_CHILD = fileURLToPath(new URL('./lib/build-child.mjs', import.meta.url))
/** The build time the issue holds the 2,000-field request to. */
export const WIDE_BUILD_MS = 5000

/** Spawns `proto-mcp serve proto` (nothing listens on the gRPC target: tools/list never calls it) and resolves its spawn → tools/list ms and tool count. */
async function gatewayList(proto, extra) {
  const answer = await firstList(CLI, 'serve', proto, '--grpc', '127.0.0.1:9', '--import-path', GOOGLE, ...extra)
  return { ms: answer.ms, tools: answer.tools.length }
}

/** Milliseconds of one plugin build of `proto` in a fresh process. */
function buildOnce(proto, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BUILD_CHILD, proto, JSON.stringify(options)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk) => (out += chunk))
    child.stderr.on('data', (chunk) => (err += chunk))
    child.on('error', reject)
    child.on('exit', (code) =>
      code === 0 ? resolve(JSON.parse(out).ms) : reject(new Error(`build of ${proto} failed (${code}): ${err.slice(0, 500)}`)),
    )
  })
}

/** Ours (portable, the default) vs baseline (`full`) for one gateway proto. */
async function gatewayRow(id, proto, label, rounds) {
  const ours = []
  const baseline = []
  const counts = {}
  await interleave({
    ours: async () => {
      const r = await gatewayList(proto, [])
      ours.push(r.ms)
      counts.ours = r.tools
    },
    baseline: async () => {
      const r = await gatewayList(proto, ['--profile', 'full'])
      baseline.push(r.ms)
      counts.baseline = r.tools
    },
    ops: 1,
    rounds,
    warmup: 1,
  })
  return record({
    id,
    samples: { ours, baseline },
    unit: 'ms',
    higherIsBetter: false,
    target: 1.2,
    note: `proto-mcp serve ${label}: spawn → first tools/list (${counts.ours} tools portable, the type tool with them) vs --profile full (${counts.baseline} tools)`,
  })
}

export default {
  name: 'startup-big',
  ids: ['startup-big-firestore', 'startup-big-workflow', 'startup-big-wide', 'startup-example'],
  async run() {
    requireDist()
    const firestore = await gatewayRow('startup-big-firestore', FIRESTORE, 'google/firestore/v1/firestore.proto', 7)
    const workflow = await gatewayRow(
      'startup-big-workflow',
      WORKFLOW_PROTO,
      `a Temporal-sized service (${WORKFLOW_RPCS} RPCs, bench/gen-big.mjs)`,
      7,
    )
    const narrow = join(OUT, 'wide-200.proto')
    mkdirSync(OUT, { recursive: true })
    writeFileSync(narrow, wideProto(WIDE_FIELDS / 10))
    const ours = []
    const baseline = []
    await interleave({
      ours: async () => {
        ours.push(await buildOnce(WIDE_PROTO, {}))
      },
      baseline: async () => {
        baseline.push(await buildOnce(narrow, {}))
      },
      ops: 1,
      rounds: 3,
      warmup: 0,
    })
    const wide = record({
      id: 'startup-big-wide',
      samples: { ours, baseline },
      unit: 'ms',
      higherIsBetter: false,
      target: 10,
      note:
        `the plugin's build (portable, a fresh process each) of one RPC whose request has ${WIDE_FIELDS} fields vs one of ${WIDE_FIELDS / 10}; ` +
        `held to ${WIDE_BUILD_MS} ms too: ${median(ours) <= WIDE_BUILD_MS ? 'met' : 'NOT met'} (median ${Math.round(median(ours))} ms)`,
    })
    const example = await gatewayRow('startup-example', EXAMPLE_PROTO, 'fixtures/topeka/example.proto', 9)
    return [firestore, workflow, wide, example]
  },
}
