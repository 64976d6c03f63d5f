/**
 * The command's OpenTelemetry export (docs/guide/production.md): when the
 * standard environment asks for it (`OTEL_EXPORTER_OTLP_ENDPOINT`, or
 * `OTEL_TRACES_EXPORTER`/`OTEL_METRICS_EXPORTER` set to `otlp`), the
 * official SDK packages are imported and registered; otherwise nothing is
 * loaded, so the command starts as fast as before. Spans leave through a
 * bounded batch queue: an OTLP endpoint that is slow or down never slows a
 * call, and the spans dropped when the queue is full are counted
 * (`proto_mcp.otel.dropped_spans`) and said once on stderr.
 */
import type { Context } from '@opentelemetry/api'
import type { ReadableSpan, Span, SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-node'

type Env = Readonly<Record<string, string | undefined>>

/** What the environment asks for: traces, metrics, the protocol; `undefined` when nothing (or the SDK is disabled). */
export function otelWanted(env: Env): { traces: boolean; metrics: boolean; protocol: 'http/protobuf' | 'http/json' } | undefined {
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true') return undefined
  const endpoint = (signal: string) => env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`] ?? env.OTEL_EXPORTER_OTLP_ENDPOINT
  const wants = (variable: string | undefined, signal: string) =>
    variable === undefined ? endpoint(signal) !== undefined : variable.split(',').some((e) => e.trim() === 'otlp')
  const traces = wants(env.OTEL_TRACES_EXPORTER, 'TRACES')
  const metrics = wants(env.OTEL_METRICS_EXPORTER, 'METRICS')
  if (!traces && !metrics) return undefined
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json' ? 'http/json' : 'http/protobuf'
  return { traces, metrics, protocol }
}

const intFrom = (value: string | undefined, fallback: number): number => {
  const n = Number(value)
  return value !== undefined && Number.isSafeInteger(n) && n > 0 ? n : fallback
}

/**
 * A span processor in front of the SDK's BatchSpanProcessor that keeps its
 * queue's count (spans ended, minus spans handed to the exporter): a span
 * that would find the queue full is dropped here, and counted.
 */
class CountingProcessor implements SpanProcessor {
  queued = 0
  dropped = 0
  constructor(
    private readonly inner: SpanProcessor,
    private readonly maxQueue: number,
    private readonly onDrop: (dropped: number) => void,
  ) {}
  onStart(span: Span, context: Context): void {
    this.inner.onStart(span, context)
  }
  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & 1) === 0) return
    if (this.queued >= this.maxQueue) {
      this.dropped++
      this.onDrop(this.dropped)
      return
    }
    this.queued++
    this.inner.onEnd(span)
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush()
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown()
  }
}

/** An export's outcome as the SDK's exporters report it (`code` 0 is success). */
type ExportOutcome = { code: number; error?: Error }

/** Says the first failed export of `what` (spans, metrics) on the log, and the first success after failures. */
function exportReporter(what: string, log: (line: string) => void): (outcome: ExportOutcome) => void {
  let failing = false
  return (outcome) => {
    if (outcome.code !== 0 && !failing) {
      failing = true
      log(`OpenTelemetry: exporting ${what} failed: ${outcome.error?.message ?? 'no reason given'} (said once, until an export succeeds)`)
    } else if (outcome.code === 0 && failing) {
      failing = false
      log(`OpenTelemetry: exporting ${what} works again`)
    }
  }
}

/** An exporter that tells `counting` which spans left the queue, and `report` how each export went. */
function counted(exporter: SpanExporter, counting: () => CountingProcessor, report: (outcome: ExportOutcome) => void): SpanExporter {
  return {
    export(spans, done) {
      counting().queued = Math.max(0, counting().queued - spans.length)
      exporter.export(spans, (outcome) => {
        report(outcome)
        done(outcome)
      })
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
  }
}

/**
 * Starts the SDK the environment asks for and resolves with its shutdown
 * (flushes what is queued, bounded by the exporters' timeouts), or with
 * `undefined` when it asks for nothing. `log` gets one line per problem.
 */
export async function startOtel(env: Env, log: (line: string) => void): Promise<(() => Promise<void>) | undefined> {
  for (const variable of ['OTEL_TRACES_EXPORTER', 'OTEL_METRICS_EXPORTER']) {
    const unsupported = unsupportedExporters(env[variable])
    if (unsupported.length > 0)
      log(`OpenTelemetry: ${variable}=${env[variable]}: ${unsupported.join(', ')} is not supported here (otlp is)`)
  }
  const wanted = otelWanted(env)
  if (wanted === undefined) return undefined
  const json = wanted.protocol === 'http/json'
  if (env.OTEL_EXPORTER_OTLP_PROTOCOL !== undefined && !['http/json', 'http/protobuf'].includes(env.OTEL_EXPORTER_OTLP_PROTOCOL))
    log(`OpenTelemetry: OTEL_EXPORTER_OTLP_PROTOCOL=${env.OTEL_EXPORTER_OTLP_PROTOCOL} is not supported here: exporting with http/protobuf`)
  const [api, resources] = await Promise.all([import('@opentelemetry/api'), import('@opentelemetry/resources')])
  const resource = resources
    .resourceFromAttributes({ 'service.name': 'proto-mcp' })
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  const stops: Array<() => Promise<void>> = []
  let dropped: CountingProcessor | undefined
  if (wanted.traces) {
    const [node, exporters] = await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      json ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
    ])
    const maxQueueSize = intFrom(env.OTEL_BSP_MAX_QUEUE_SIZE, 2048)
    const batch = new node.BatchSpanProcessor(
      counted(new exporters.OTLPTraceExporter(), () => dropped!, exportReporter('spans', log)),
      {
        maxQueueSize,
        maxExportBatchSize: Math.min(maxQueueSize, intFrom(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512)),
        scheduledDelayMillis: intFrom(env.OTEL_BSP_SCHEDULE_DELAY, 5000),
        exportTimeoutMillis: intFrom(env.OTEL_BSP_EXPORT_TIMEOUT, 30000),
      },
    )
    let told = false
    dropped = new CountingProcessor(batch, maxQueueSize, () => {
      if (told) return
      told = true
      log(`OpenTelemetry: the span export queue is full (${maxQueueSize} spans): dropping spans, counted as proto_mcp.otel.dropped_spans`)
    })
    const provider = new node.NodeTracerProvider({ resource, spanProcessors: [dropped] })
    provider.register()
    stops.push(() => provider.shutdown())
  }
  if (wanted.metrics) {
    const [sdk, exporters] = await Promise.all([
      import('@opentelemetry/sdk-metrics'),
      json ? import('@opentelemetry/exporter-metrics-otlp-http') : import('@opentelemetry/exporter-metrics-otlp-proto'),
    ])
    const exporter = new exporters.OTLPMetricExporter()
    const report = exportReporter('metrics', log)
    const export_ = exporter.export.bind(exporter)
    exporter.export = (metrics, done) =>
      export_(metrics, (outcome) => {
        report(outcome)
        done(outcome)
      })
    const reader = new sdk.PeriodicExportingMetricReader({
      exporter,
      exportIntervalMillis: intFrom(env.OTEL_METRIC_EXPORT_INTERVAL, 60000),
      exportTimeoutMillis: Math.min(intFrom(env.OTEL_METRIC_EXPORT_TIMEOUT, 30000), intFrom(env.OTEL_METRIC_EXPORT_INTERVAL, 60000)),
    })
    const provider = new sdk.MeterProvider({ resource, readers: [reader] })
    api.metrics.setGlobalMeterProvider(provider)
    const counter = provider.getMeter('unplugin-proto-mcp').createObservableCounter('proto_mcp.otel.dropped_spans', {
      unit: '{span}',
      description: 'Spans dropped because the export queue was full',
    })
    counter.addCallback((result) => result.observe(dropped?.dropped ?? 0))
    stops.push(() => provider.shutdown())
  }
  return async () => {
    // The last export, bounded: a command told to stop does not wait out an endpoint's retries.
    let timer: ReturnType<typeof setTimeout> | undefined
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), SHUTDOWN_MS)))
    const stopped = await Promise.race([Promise.all(stops.map((stop) => stop().catch(() => {}))), late])
    clearTimeout(timer)
    if (stopped !== 'late') return
    log(`OpenTelemetry: the last export did not finish in ${SHUTDOWN_MS / 1000} s: stopping without it`)
    // Its request still holds the event loop: once the command has set its exit code, the process ends anyway.
    setTimeout(() => process.exit(), 200).unref()
  }
}

/** How long the command's stop waits for the last export. */
const SHUTDOWN_MS = 2000

/** The exporters the variable names that this command has none of (only `otlp`; `none` turns a signal off). */
function unsupportedExporters(variable: string | undefined): string[] {
  return (variable ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '' && e !== 'otlp' && e !== 'none')
}
