/**
 * OpenTelemetry's cost per call (docs/guide/production.md): a 2026-07-28
 * `tools/call` (SetVibeDetails, the medium request) POSTed over loopback
 * HTTP to `serveHttp()`, one call at a time, CPU time of the process
 * (client and server both run in it) per call, same run, ABBA rounds of
 * 150 calls (24 rounds after 3 warm-up rounds). Between its batches,
 * untimed, the SDK side's spans are flushed, counted and dropped, so the
 * heap does not grow through the run. (A full gc() between batches was
 * tried: it made every call 2.5 times dearer, every side alike, and hid
 * the differences.)
 *
 * - `otel-overhead`: with the OpenTelemetry SDK registered (NodeTracerProvider,
 *   a BatchSpanProcessor into an InMemorySpanExporter, a MeterProvider with a
 *   reader) vs the same server with no SDK registered. Target ≤ 1.15×.
 * - `otel-overhead-no-sdk`: no SDK registered vs the runtime of the commit
 *   before the instrumentation came (BASE_COMMIT, built once into
 *   .tmp/bench/otel-base/ with tsdown), serving the same generated module.
 *   Target ≤ 1.02×.
 * - `otel-overhead-floor` (reported): a reference for what making a span
 *   active per request costs here (not a lower bound: the context manager's
 *   hooks cost per promise, and this server makes far fewer a request than
 *   ours). A plain `node:http` server in
 *   the same process answers the same POST with and without one bare SERVER
 *   span made active around its handler (no attributes, no events, no
 *   metric); the difference, per round, is added to our no-SDK call. Both of
 *   its sides are in the same ABBA rounds, so the SDK's cost to the
 *   in-process client (its promises pay the context manager's hooks too)
 *   is in it as it is in `otel-overhead`.
 * - `otel-overhead-floor-conventions` (reported): the same, with what the
 *   issue asks a traced call to record instead of the bare span, done as
 *   directly as the SDK allows on that plain server: the SERVER span with
 *   the conventions' attributes, made active, four stage events and the
 *   operation duration record. What is left between it and `otel-overhead`
 *   is what our server adds beyond the telemetry itself.
 * - `otel-overhead-async-context` (reported): no OpenTelemetry at all, one
 *   AsyncLocalStorage enabled vs none: the part of `otel-overhead` that is
 *   Node 20's async context (promise hooks on every promise of the process,
 *   the client's too), paid by the SDK's context manager once any span is
 *   made active.
 */
import { execFileSync, execSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { AsyncLocalStorage } from 'node:async_hooks'
import { createServer } from 'node:http'
import { backend, CASES, EXAMPLE_PROTO, modernCall } from './lib/example.mjs'
import { median, record } from './lib/measure.mjs'
import { REPO, writeModule } from './lib/module.mjs'

/** The last commit without the OpenTelemetry hooks (issue 34's branch point). */
const BASE_COMMIT = '1819b9b'
const BASE = join(REPO, '.tmp', 'bench', 'otel-base')

/** The base commit's dist/, installed as a package in an app folder of its own; the app folder. */
function baseApp() {
  const src = join(BASE, 'src')
  if (!existsSync(join(src, 'dist', 'runtime.mjs'))) {
    mkdirSync(src, { recursive: true })
    execSync(`git archive ${BASE_COMMIT} | tar -x -C ${JSON.stringify(src)}`, { cwd: REPO })
    if (!existsSync(join(src, 'node_modules'))) symlinkSync(join(REPO, 'node_modules'), join(src, 'node_modules'))
    execFileSync(process.execPath, [join(REPO, 'node_modules', 'tsdown', 'dist', 'run.mjs')], { cwd: src, stdio: 'ignore' })
  }
  const app = join(BASE, 'app')
  const installed = join(app, 'node_modules', 'unplugin-proto-mcp')
  if (!existsSync(join(installed, 'dist', 'runtime.mjs'))) {
    mkdirSync(installed, { recursive: true })
    cpSync(join(src, 'dist'), join(installed, 'dist'), { recursive: true })
    writeFileSync(join(installed, 'package.json'), readFileSync(join(src, 'package.json')))
    writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'otel-base-app', private: true, type: 'module' })}\n`)
  }
  return app
}

/** Name of the plain server's span (otel-overhead-floor). */
const FLOOR_SPAN = 'floor'

/**
 * The plain server of `otel-overhead-floor`: reads the body, parses it, and
 * answers a small JSON-RPC result; when a tracer provider is registered,
 * inside one bare SERVER span made active, as little as tracing a request
 * can be. Its URL and close.
 */
async function plainServer(api) {
  const reply = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: '{"previousVibe":"chill","vibe":"details"}' }] },
  })
  const handle = async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    JSON.parse(Buffer.concat(chunks).toString('utf8'))
    await Promise.resolve()
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(reply)
  }
  const server = createServer((req, res) => {
    const tracer = api.trace.getTracerProvider().getTracer('otel-overhead-floor')
    tracer.startActiveSpan(FLOOR_SPAN, { kind: api.SpanKind.SERVER }, (span) => handle(req, res).finally(() => span.end()))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** The conventions server's tracer and duration histogram, made once per registered provider. */
let tracer
let durations

/**
 * The plain server of `otel-overhead-floor-conventions`: the same answer as
 * {@link plainServer}'s, with what the issue asks a traced request to
 * record, done as directly as the SDK allows: a SERVER span named
 * `tools/call {tool}` with the conventions' attributes, made active around
 * the answer, four stage events, and the `mcp.server.operation.duration`
 * record. No transport, schema, decode or backend: only the telemetry.
 */
async function conventionsServer(api) {
  const reply = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: { content: [{ type: 'text', text: '{"previousVibe":"chill","vibe":"details"}' }] },
  })
  const answer = async (res, span) => {
    span.addEvent('proto_mcp.validate')
    span.addEvent('proto_mcp.decode')
    await Promise.resolve()
    span.addEvent('proto_mcp.backend')
    span.addEvent('proto_mcp.encode')
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(reply)
  }
  const handle = async (req, res) => {
    const chunks = []
    for await (const chunk of req) chunks.push(chunk)
    const started = performance.now()
    const message = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    const attributes = {
      'mcp.method.name': message.method,
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
      'mcp.protocol.version': req.headers['mcp-protocol-version'],
      'gen_ai.tool.name': message.params.name,
      'gen_ai.operation.name': 'execute_tool',
    }
    const spanAttributes = Object.assign({}, attributes)
    spanAttributes['jsonrpc.protocol.version'] = '2.0'
    spanAttributes['jsonrpc.request.id'] = String(message.id)
    spanAttributes['client.address'] = req.socket.remoteAddress
    const provider = api.trace.getTracerProvider()
    // Looked up once per registered provider, as ours is (runtime/otel.ts).
    if (tracer?.provider !== provider) tracer = { provider, tracer: provider.getTracer('otel-overhead-floor-conventions') }
    const parent = api.context.active()
    const span = tracer.tracer.startSpan(
      `${message.method} ${message.params.name}`,
      { kind: api.SpanKind.SERVER, attributes: spanAttributes },
      parent,
    )
    try {
      await api.context.with(api.trace.setSpan(parent, span), answer, undefined, res, span)
    } finally {
      span.end()
      const meter = api.metrics.getMeterProvider()
      if (durations?.provider !== meter) {
        const histogram = meter.getMeter('otel-overhead-floor-conventions').createHistogram('mcp.server.operation.duration', { unit: 's' })
        durations = { provider: meter, histogram }
      }
      durations.histogram.record((performance.now() - started) / 1000, attributes)
    }
  }
  const server = createServer((req, res) => void handle(req, res))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => server.close(resolve)) }
}

/** Registers the SDK (traces into memory through the batch processor, metrics to a reader); returns its removal. */
async function registerSdk() {
  const api = await import('@opentelemetry/api')
  const { NodeTracerProvider, BatchSpanProcessor, InMemorySpanExporter } = await import('@opentelemetry/sdk-trace-node')
  const { MeterProvider, MetricReader } = await import('@opentelemetry/sdk-metrics')
  class Reader extends MetricReader {
    async onForceFlush() {}
    async onShutdown() {}
  }
  const exporter = new InMemorySpanExporter()
  const tracer = new NodeTracerProvider({ spanProcessors: [new BatchSpanProcessor(exporter, { scheduledDelayMillis: 200 })] })
  const meter = new MeterProvider({ readers: [new Reader()] })
  return {
    on() {
      tracer.register()
      api.metrics.setGlobalMeterProvider(meter)
    },
    off() {
      api.trace.disable()
      api.metrics.disable()
      api.context.disable()
      api.propagation.disable()
    },
    /** Exports what the processor holds into the exporter, untimed. */
    async export() {
      await tracer.forceFlush()
    },
    /** Exports what the processor holds; how many spans of each name; empties the exporter. */
    async flush() {
      await tracer.forceFlush()
      const counts = {}
      for (const span of exporter.getFinishedSpans()) counts[span.name] = (counts[span.name] ?? 0) + 1
      exporter.reset()
      return counts
    },
    async close() {
      await tracer.shutdown()
      await meter.shutdown()
    },
  }
}

export default {
  name: 'otel-overhead',
  ids: ['otel-overhead', 'otel-overhead-floor', 'otel-overhead-floor-conventions', 'otel-overhead-no-sdk', 'otel-overhead-async-context'],
  async run() {
    const file = await writeModule(EXAMPLE_PROTO, 'example-otel')
    const { default: server } = await import(file)
    server.implement('VibeService', backend).logging({ logger: false })
    let baseServer
    try {
      const app = baseApp()
      const baseFile = join(app, 'example.mjs')
      writeFileSync(baseFile, readFileSync(file))
      baseServer = (await import(baseFile)).default
      baseServer.implement('VibeService', backend).logging({ logger: false })
    } catch (error) {
      process.stderr.write(`\notel-overhead: the base runtime (${BASE_COMMIT}) could not be built: ${error.message}\n`)
    }
    const ours = await server.serveHttp({ port: 0 })
    const base = baseServer ? await baseServer.serveHttp({ port: 0 }) : undefined
    const sdk = await registerSdk()
    const plain = await plainServer(await import('@opentelemetry/api'))
    const conventions = await conventionsServer(await import('@opentelemetry/api'))
    const { tool, args } = CASES.medium
    const { body, headers } = modernCall(tool, args)
    const call = async (url) => {
      const response = await fetch(url, { method: 'POST', headers, body })
      const text = await response.text()
      if (response.status !== 200) throw new Error(`otel-overhead: ${url} answered ${response.status}: ${text}`)
      return text
    }
    try {
      // Many short batches, each side in turn (ABBA), so that the load of other jobs on the cores falls on every side alike.
      const ops = 150
      const WARM = 600
      const rounds = 24
      const sides = {
        sdk: () => call(ours.url),
        none: () => call(ours.url),
        context: () => call(ours.url),
        plainSdk: () => call(plain.url),
        plainNone: () => call(plain.url),
        conventionsSdk: () => call(conventions.url),
        conventionsNone: () => call(conventions.url),
        ...(base ? { base: () => call(base.url) } : {}),
      }
      const names = Object.keys(sides)
      const cpu = Object.fromEntries(names.map((n) => [n, []]))
      let spans = 0
      let floorSpans = 0
      let conventionsSpans = 0
      let context
      const batch = async (side) => {
        const traced = side === 'sdk' || side === 'plainSdk' || side === 'conventionsSdk'
        if (traced) sdk.on()
        if (side === 'context') (context = new AsyncLocalStorage()).enterWith({})
        // Untimed: the first calls after a switch run code V8 deoptimised when the providers changed
        // (a cost a server pays once when its SDK registers, not on every call).
        for (let i = 0; i < WARM; i++) await sides[side]()
        // The warm-up's spans leave the batch processor before the timing starts (they are counted with the batch's).
        if (traced) await sdk.export()
        const cpuStart = process.cpuUsage()
        for (let i = 0; i < ops; i++) await sides[side]()
        const used = process.cpuUsage(cpuStart)
        if (side === 'context') context.disable()
        if (traced) {
          sdk.off()
          // Untimed: the batch's spans leave the processor, are counted, and the exporter lets them go (as an
          // exporter sending them away would), so the heap does not grow through the run for every side to pay.
          const counts = await sdk.flush()
          if (side === 'sdk') spans += counts[`tools/call ${tool}`] ?? 0
          if (side === 'conventionsSdk') conventionsSpans += counts[`tools/call ${tool}`] ?? 0
          floorSpans += counts[FLOOR_SPAN] ?? 0
        }
        return (used.user + used.system) / ops
      }
      for (let round = -3; round < rounds; round++) {
        for (const side of round % 2 === 0 ? names : [...names].reverse()) {
          const c = await batch(side)
          if (round >= 0) cpu[side].push(c)
        }
      }
      // The SDK side really traced: each of its calls ended a SERVER span.
      const calls = (rounds + 3) * (ops + WARM)
      if (spans < calls) throw new Error(`otel-overhead: the SDK side exported ${spans} spans for ${calls} calls`)
      if (floorSpans < calls) throw new Error(`otel-overhead: the plain server's SDK side exported ${floorSpans} spans for ${calls} calls`)
      if (conventionsSpans < calls)
        throw new Error(`otel-overhead: the conventions server's SDK side exported ${conventionsSpans} spans for ${calls} calls`)
      // Per round: our no-SDK call plus what one bare span per request added to the plain server in that round.
      const floor = cpu.none.map((none, i) => none + cpu.plainSdk[i] - cpu.plainNone[i])
      // Per round: our no-SDK call plus what the telemetry the issue asks for added to the plain server in that round.
      const conventionsFloor = cpu.none.map((none, i) => none + cpu.conventionsSdk[i] - cpu.conventionsNone[i])
      const records = [
        record({
          id: 'otel-overhead',
          samples: { ours: cpu.sdk, baseline: cpu.none },
          unit: 'CPU µs/call',
          higherIsBetter: false,
          target: 1.15,
          note:
            `a ${tool} tools/call over loopback HTTP (2026-07-28) with the OpenTelemetry SDK registered (BatchSpanProcessor into an InMemorySpanExporter, a MeterProvider) ` +
            `vs the same server with no SDK, CPU time of client and server per call; ${spans} spans exported`,
        }),
      ]
      records.push(
        record({
          id: 'otel-overhead-floor',
          samples: { ours: floor, baseline: cpu.none },
          unit: 'CPU µs/call',
          higherIsBetter: false,
          target: null,
          note:
            'a reference (not a lower bound): our no-SDK call plus what one bare SERVER span made active per request ' +
            '(no attributes, events or metric) added to a plain node:http server answering the same POST, same rounds; reported',
        }),
      )
      records.push(
        record({
          id: 'otel-overhead-floor-conventions',
          samples: { ours: conventionsFloor, baseline: cpu.none },
          unit: 'CPU µs/call',
          higherIsBetter: false,
          target: null,
          note:
            "our no-SDK call plus what the telemetry of a traced call (the SERVER span with the conventions' attributes made active, " +
            'four stage events, the operation duration) added to a plain node:http server answering the same POST, same rounds; reported',
        }),
      )
      records.push(
        record({
          id: 'otel-overhead-async-context',
          samples: { ours: cpu.context, baseline: cpu.none },
          unit: 'CPU µs/call',
          higherIsBetter: false,
          target: null,
          note:
            "what the SDK side pays for Node 20's AsyncLocalStorage alone (its context manager keeps the active span in one): " +
            'the same server with no SDK and no OpenTelemetry at all, one AsyncLocalStorage enabled (enterWith) vs none; reported',
        }),
      )
      if (base) {
        records.push(
          record({
            id: 'otel-overhead-no-sdk',
            samples: { ours: cpu.none, baseline: cpu.base },
            unit: 'CPU µs/call',
            higherIsBetter: false,
            target: 1.02,
            note: `the same call with no SDK registered vs the runtime of ${BASE_COMMIT} (before the instrumentation) serving the same module`,
          }),
        )
      }
      process.stderr.write(`\notel-overhead: median CPU µs/call ${names.map((n) => `${n} ${Math.round(median(cpu[n]))}`).join(', ')}\n`)
      return records
    } finally {
      await ours.close()
      await base?.close()
      await plain.close()
      await conventions.close()
      await sdk.close()
    }
  },
}
