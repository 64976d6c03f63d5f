/**
 * The lean runtime, in one run:
 * - `cold-start-16`: spawn → first `tools/list` over stdio of the built
 *   playground (16 tools) vs the SDK's `McpServer` serving the same 16
 *   tools written in zod, input and output schemas (checked to list the
 *   same fields as ours); in the same rounds, reported:
 *   `cold-start-16-inputs-only`, against a McpServer with the input
 *   schemas only, and `cold-start-16-floor`, the SDK's low-level `Server`
 *   answering the same tools as literal JSON with nothing validated (the
 *   least an SDK-based server does);
 * - `runtime-import-overhead-ms`: importing `unplugin-proto-mcp/runtime`
 *   minus importing `@modelcontextprotocol/server` (the floor a
 *   hand-written server shares), each in a fresh process; the baseline is
 *   the SDK's own import time;
 * - `module-bytes-per-tool` (playground) and `module-bytes-per-tool-500`:
 *   generated module bytes per tool against the figures of the commit
 *   before the lean work (87d2f44);
 * - `workers-bundle-kb`: the playground as a Worker (esbuild, minified,
 *   `workerd` conditions, every dependency inlined) vs the same entry
 *   bundled for Node.
 */
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { firstList, timeToFirstList } from './cold-start.mjs'
import { BENCH_500_PROTO, writeBench500 } from './gen-500.mjs'
import { schemaFields, sdkFloorModule, zodServerModule } from './lib/zod-source.mjs'
import { median, record } from './lib/measure.mjs'
import { OUT, REPO, requireDist, transformProto, writeModule } from './lib/module.mjs'

const PLAYGROUND = join(REPO, 'playground', 'vibe.proto')
const COLD_OURS = fileURLToPath(new URL('./lib/cold-ours.mjs', import.meta.url))
const COLD_MODULE = fileURLToPath(new URL('./lib/cold-module.mjs', import.meta.url))
const IMPORT_CHILD = fileURLToPath(new URL('./lib/import-child.mjs', import.meta.url))
/** Rounds of `cold-start-16`. */
const ROUNDS = 30
/** Milliseconds importing the runtime may add to importing the MCP SDK. */
const IMPORT_BUDGET_MS = 25

/**
 * Generated module bytes per tool at 87d2f44 (before the lean work), in
 * the default profile: the playground 328894 bytes / 16 tools, the 500-RPC
 * proto 9845091 bytes / 500 tools.
 */
const BEFORE = { playground: 328894 / 16, 500: 9845091 / 500 }

/** A fresh `node` importing the SDK, then the runtime: both times in ms. */
function importMs(child) {
  const [sdk, runtime] = execFileSync(process.execPath, [child], { cwd: OUT, encoding: 'utf8' }).trim().split(' ').map(Number)
  return { sdk, runtime }
}

/**
 * Throws unless `listed` (a baseline's tools/list) has our tools with the
 * same fields (and what each field says: `schemaFields`) in each schema
 * `keys` names, and no other schema: a baseline that lists less does less
 * work, which would flatter it.
 */
function checkSameTools(side, listed, ours, keys) {
  const problems = []
  for (const tool of ours) {
    const theirs = listed.find((t) => t.name === tool.name)
    if (!theirs) {
      problems.push(`${tool.name}: not listed`)
      continue
    }
    for (const key of ['inputSchema', 'outputSchema']) {
      const want = keys.includes(key) && tool[key] ? schemaFields(tool[key]) : []
      const got = theirs[key] ? schemaFields(theirs[key]) : []
      const missing = want.filter((line) => !got.includes(line))
      const extra = got.filter((line) => !want.includes(line))
      if (missing.length || extra.length)
        problems.push(
          `${tool.name} ${key}: lacks ${missing.slice(0, 3).join('; ') || 'nothing'}; adds ${extra.slice(0, 3).join('; ') || 'nothing'}`,
        )
    }
  }
  if (listed.length !== ours.length) problems.push(`${listed.length} tools listed, ours ${ours.length}`)
  if (problems.length) throw new Error(`cold-start-16: the ${side} does not list the same tools:\n${problems.join('\n')}`)
}

async function coldStart16() {
  const module = await writeModule(PLAYGROUND, 'lean-playground')
  const { default: server } = await import(pathToFileURL(module).href)
  const tools = server.listTools()
  const files = {
    baseline: ['lean-zod-16.mjs', zodServerModule(tools)],
    inputsOnly: ['lean-zod-16-inputs.mjs', zodServerModule(tools, { outputs: false })],
    floor: ['lean-floor-16.mjs', sdkFloorModule(tools)],
  }
  for (const [name, source] of Object.values(files)) writeFileSync(join(OUT, name), source)
  const path = (side) => join(OUT, files[side][0])
  const sides = {
    ours: () => timeToFirstList(COLD_OURS, module, tools.length),
    baseline: () => timeToFirstList(COLD_MODULE, path('baseline'), tools.length),
    inputsOnly: () => timeToFirstList(COLD_MODULE, path('inputsOnly'), tools.length),
    floor: () => timeToFirstList(COLD_MODULE, path('floor'), tools.length),
  }
  // What each side lists, once, before timing (this is also each side's untimed warm-up start):
  // the baselines' zod must list the fields ours lists.
  const ours = (await firstList(COLD_OURS, module)).tools
  const inputsOnly = (await firstList(COLD_MODULE, path('inputsOnly'))).tools
  checkSameTools('McpServer baseline', (await firstList(COLD_MODULE, path('baseline'))).tools, ours, ['inputSchema', 'outputSchema'])
  checkSameTools('inputs-only baseline', inputsOnly, ours, ['inputSchema'])
  checkSameTools('floor', (await firstList(COLD_MODULE, path('floor'))).tools, ours, ['inputSchema', 'outputSchema'])
  const kb = (listed) => `${Math.round(JSON.stringify(listed).length / 1024)} KB`
  const samples = Object.fromEntries(Object.keys(sides).map((side) => [side, []]))
  const order = Object.keys(sides)
  // A start is about 300 ms and one moves by ±20 % with the machine's load (a 20-round median by about ±4 %):
  // 30 rounds, each running the sides in a rotated order, so none always runs first.
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < order.length; i++) {
      const side = order[(round + i) % order.length]
      samples[side].push(await sides[side]())
    }
  }
  return [
    record({
      id: 'cold-start-16',
      samples: { ours: samples.ours, baseline: samples.baseline },
      unit: 'ms',
      higherIsBetter: false,
      target: 1,
      note: `spawn → first tools/list answer, the playground's ${tools.length} tools; vs the SDK's McpServer with the same tools in zod, input and output schemas`,
    }),
    record({
      id: 'cold-start-16-inputs-only',
      samples: { ours: samples.ours, baseline: samples.inputsOnly },
      unit: 'ms',
      higherIsBetter: false,
      target: null,
      note: `cold-start-16 against a McpServer whose tools have their input schemas only (no outputSchema: it lists ${kb(inputsOnly)} where ours lists ${kb(ours)}), same rounds`,
    }),
    record({
      id: 'cold-start-16-floor',
      samples: { ours: samples.floor, baseline: samples.baseline },
      unit: 'ms',
      higherIsBetter: false,
      target: null,
      note: "the floor under cold-start-16, same rounds: the SDK's low-level Server answering the same tools as literal JSON, nothing validated, vs the same McpServer",
    }),
  ]
}

async function importOverhead() {
  const child = join(OUT, 'lean-import-child.mjs')
  copyFileSync(IMPORT_CHILD, child)
  const sdk = []
  const overhead = []
  for (let i = 0; i < 15; i++) {
    const times = importMs(child)
    sdk.push(times.sdk)
    overhead.push(times.runtime)
  }
  // The target is absolute: at most 25 ms over the SDK's own import, so the baseline is that budget.
  return record({
    id: 'runtime-import-overhead-ms',
    samples: { ours: overhead, baseline: overhead.map(() => IMPORT_BUDGET_MS) },
    unit: 'ms',
    higherIsBetter: false,
    target: 1,
    note: `importing unplugin-proto-mcp/runtime on top of @modelcontextprotocol/server (${median(sdk).toFixed(1)} ms), same process, vs the ${IMPORT_BUDGET_MS} ms budget`,
  })
}

async function moduleBytes() {
  writeBench500()
  const out = []
  for (const [name, proto, id] of [
    ['playground', PLAYGROUND, 'module-bytes-per-tool'],
    ['500', BENCH_500_PROTO, 'module-bytes-per-tool-500'],
  ]) {
    const code = await transformProto(proto)
    const file = await writeModule(proto, `lean-bytes-${name}`)
    const { tools } = await import(pathToFileURL(file).href)
    out.push(
      record({
        id,
        samples: { ours: [Buffer.byteLength(code) / tools.length], baseline: [BEFORE[name]] },
        unit: 'bytes',
        higherIsBetter: false,
        target: 0.5,
        note: `generated module bytes per tool, ${name === '500' ? 'the 500-RPC proto' : 'the playground'} (${tools.length} tools), vs 87d2f44`,
      }),
    )
  }
  return out
}

async function workersBundle() {
  const { build } = await import('esbuild')
  const { default: protoMcp } = await import(pathToFileURL(join(OUT, 'node_modules', 'unplugin-proto-mcp', 'dist', 'esbuild.mjs')).href)
  const dir = join(OUT, 'lean-worker')
  mkdirSync(dir, { recursive: true })
  const entry = join(dir, 'worker.mjs')
  writeFileSync(
    entry,
    `import server from ${JSON.stringify(PLAYGROUND + '?mcp')}\nexport default { fetch: (request) => server.fetch(request) }\n`,
  )
  const bytes = async (platform) => {
    const outfile = join(dir, `${platform}.mjs`)
    await build({
      entryPoints: [entry],
      bundle: true,
      format: 'esm',
      minify: true,
      outfile,
      logLevel: 'silent',
      absWorkingDir: dir,
      tsconfigRaw: '{}',
      ...(platform === 'workerd' ? { platform: 'browser', conditions: ['workerd', 'worker', 'browser'] } : { platform: 'node' }),
      plugins: [protoMcp()],
    })
    return statSync(outfile).size / 1024
  }
  return record({
    id: 'workers-bundle-kb',
    samples: { ours: [await bytes('workerd')], baseline: [await bytes('node')] },
    unit: 'KB',
    higherIsBetter: false,
    target: null,
    note: 'the playground as a Worker (esbuild, minified, workerd conditions, everything inlined) vs the same entry bundled for Node',
  })
}

export default {
  name: 'lean',
  ids: [
    'cold-start-16',
    'cold-start-16-inputs-only',
    'cold-start-16-floor',
    'runtime-import-overhead-ms',
    'module-bytes-per-tool',
    'module-bytes-per-tool-500',
    'workers-bundle-kb',
  ],
  async run() {
    requireDist()
    return [...(await coldStart16()), await importOverhead(), ...(await moduleBytes()), await workersBundle()]
  },
}
