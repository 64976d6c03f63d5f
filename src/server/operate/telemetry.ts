/**
 * Traces and metrics of MCP requests (docs/guide/production.md), after the
 * OpenTelemetry MCP semantic conventions: one SERVER span per request,
 * named `{mcp.method.name} {target}`, the `mcp.server.operation.duration`
 * and `mcp.server.session.duration` histograms (seconds). Everything goes
 * through `@opentelemetry/api` as runtime/otel.ts loads it: with no SDK
 * registered, {@link traceRequest} runs the request as it is.
 */
import { booleanRule, type OptionRule } from '../../runtime/check-options.ts'
import { meterOf, meteringRegistered, otel, otelNow, tracerOf, tracingRegistered, type OtelApi } from '../../runtime/otel.ts'
import type { Attributes, Context, Histogram, Link, Span, SpanContext, SpanOptions } from '../../runtime/otel.ts'

/** What the instrumentation records beyond the conventions' defaults (`Server.telemetry()`). */
export interface TelemetryOptions {
  /** Record a tool call's arguments as `gen_ai.tool.call.arguments` (JSON). @default false */
  recordArguments?: boolean
  /** Record a tool call's result as `gen_ai.tool.call.result` (JSON). @default false */
  recordResults?: boolean
}

/** The option rules of `telemetry()`. */
export const TELEMETRY_RULES: Record<keyof TelemetryOptions, OptionRule> = { recordArguments: booleanRule, recordResults: booleanRule }

/** What a transport knows of one MCP request. */
export interface RequestFacts {
  readonly method: string
  readonly params: Record<string, unknown> | undefined
  readonly id: string | number | undefined
  /** `pipe` (stdio) or `tcp` (HTTP). */
  readonly transport: 'pipe' | 'tcp'
  readonly sessionId?: string
  readonly protocolVersion?: string
  /** The HTTP request's headers (their `traceparent` is the parent when `_meta` has none). */
  readonly headers?: Readonly<Record<string, string | string[] | undefined>>
  readonly clientAddress?: string
}

/** Bucket boundaries the conventions advise for the duration histograms (seconds). */
const DURATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-|$)/

/** The span context a W3C `traceparent` (and `tracestate`) names, or `undefined` for a malformed one (then a new trace starts). */
export function parseTraceparent(api: OtelApi, traceparent: unknown, tracestate: unknown): SpanContext | undefined {
  if (typeof traceparent !== 'string') return undefined
  const match = TRACEPARENT.exec(traceparent.trim())
  // Version ff is invalid; version 00 has exactly four fields.
  if (match === null || match[1] === 'ff' || (match[1] === '00' && traceparent.trim().length !== 55)) return undefined
  const context: SpanContext = { traceId: match[2]!, spanId: match[3]!, traceFlags: parseInt(match[4]!, 16) & 1, isRemote: true }
  if (!api.isSpanContextValid(context)) return undefined
  if (typeof tracestate === 'string' && tracestate !== '') {
    try {
      context.traceState = api.createTraceState(tracestate)
    } catch {
      // A tracestate that does not parse is dropped; the trace goes on.
    }
  }
  return context
}

/** The first value of a header. */
function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** The parent of a request: `params._meta.traceparent` (SEP-414), else the HTTP `traceparent` header. */
function parentOf(api: OtelApi, facts: RequestFacts): Context {
  const meta = facts.params?._meta as Record<string, unknown> | undefined
  const headers = facts.headers
  const remote =
    parseTraceparent(api, meta?.traceparent, meta?.tracestate) ??
    (headers === undefined ? undefined : parseTraceparent(api, first(headers.traceparent), first(headers.tracestate)))
  const active = api.context.active()
  return remote === undefined ? active : api.trace.setSpanContext(active, remote)
}

/** The low-cardinality target of a method: the tool or prompt name. */
function targetOf(facts: RequestFacts): string | undefined {
  if (facts.method !== 'tools/call' && facts.method !== 'prompts/get') return undefined
  const name = facts.params?.name
  return typeof name === 'string' ? name : undefined
}

/** The conventions' attributes of a request, shared by its span and its duration; `target` is {@link targetOf} it. */
function attributesOf(facts: RequestFacts, target: string | undefined): Attributes {
  const attributes: Attributes = {
    'mcp.method.name': facts.method,
    'network.transport': facts.transport,
  }
  if (facts.transport === 'tcp') attributes['network.protocol.name'] = 'http'
  if (facts.protocolVersion !== undefined) attributes['mcp.protocol.version'] = facts.protocolVersion
  if (facts.method === 'tools/call' && target !== undefined) {
    attributes['gen_ai.tool.name'] = target
    attributes['gen_ai.operation.name'] = 'execute_tool'
  }
  if (facts.method === 'prompts/get' && target !== undefined) attributes['gen_ai.prompt.name'] = target
  return attributes
}

/** Per server state: the options given and the links of tasks to the spans that created them. */
interface Telemetry {
  options: TelemetryOptions
}

const telemetries = new WeakMap<object, Telemetry>()

/** Sets what the instrumentation of `state`'s requests records. */
export function setTelemetry(state: object, options: TelemetryOptions): void {
  telemetries.set(state, { options: { ...options } })
}

/** The creating span of each task still known here (bounded: the oldest go first). */
const taskSpans = new Map<string, SpanContext>()
const MAX_TASK_LINKS = 10_000

/** Remembers that task `taskId` was created under the active span (tasks.ts, when a call becomes a task). */
export function noteTaskCreated(taskId: string): void {
  const span = otelNow()?.trace.getActiveSpan()
  if (span === undefined) return
  taskSpans.set(taskId, span.spanContext())
  if (taskSpans.size > MAX_TASK_LINKS) taskSpans.delete(taskSpans.keys().next().value!)
}

/** Records the end of task `taskId` as a span linked to the span that created it. */
export function noteTaskEnded(taskId: string, tool: string, status: string): void {
  const api = otelNow()
  const created = taskSpans.get(taskId)
  if (api === undefined || created === undefined) return
  const span = tracerOf(api).startSpan(
    `task ${tool}`,
    {
      kind: api.SpanKind.INTERNAL,
      links: [{ context: created }],
      attributes: { 'gen_ai.tool.name': tool, 'mcp.task.id': taskId, 'mcp.task.status': status },
    },
    api.trace.setSpanContext(api.ROOT_CONTEXT, created),
  )
  if (status === 'failed') span.setStatus({ code: api.SpanStatusCode.ERROR })
  span.end()
}

interface Instruments {
  meter: unknown
  operation: Histogram
  session: Histogram
}
let instruments: Instruments | undefined

/** The duration histograms, made once per registered meter provider. */
function instrumentsOf(api: OtelApi): Instruments {
  const meter = meterOf(api)
  if (instruments?.meter === meter) return instruments
  const advice = { explicitBucketBoundaries: DURATION_BUCKETS }
  instruments = {
    meter,
    operation: meter.createHistogram('mcp.server.operation.duration', {
      unit: 's',
      description: 'MCP request or notification duration as observed on the receiver',
      advice,
    }),
    session: meter.createHistogram('mcp.server.session.duration', {
      unit: 's',
      description: 'The duration of the MCP session as observed on the MCP server',
      advice,
    }),
  }
  return instruments
}

/** Records a session's duration when it ends (initialize era: a stdio connection or an HTTP session). */
export function recordSession(startedAt: number, attributes: Attributes): void {
  const api = otelNow()
  if (api === undefined) return
  instrumentsOf(api).session.record((performance.now() - startedAt) / 1000, attributes)
}

/**
 * What a request's outcome (its `result`, or its `error` when it failed)
 * adds to its attributes (`error.type`, and `rpc.response.status_code` for
 * a JSON-RPC error; shared by the span and the duration) and to its span's
 * status.
 */
function settle(api: OtelApi, span: Span | undefined, attributes: Attributes, result: unknown, error: unknown, record: boolean): void {
  let type: string | undefined
  let status: string | undefined
  if (error !== undefined) {
    const code = (error as { code?: unknown })?.code
    type = typeof code === 'number' ? String(code) : ((error as Error)?.name ?? 'Error')
    if (typeof code === 'number') status = type
    span?.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as Error)?.message ?? String(error) })
  } else if ((result as { isError?: unknown } | undefined)?.isError === true) {
    type = 'tool_error'
    span?.setStatus({ code: api.SpanStatusCode.ERROR })
  }
  if (type !== undefined) {
    attributes['error.type'] = type
    span?.setAttribute('error.type', type)
  }
  if (status !== undefined) {
    attributes['rpc.response.status_code'] = status
    span?.setAttribute('rpc.response.status_code', status)
  }
  if (record && result !== undefined && error === undefined) span?.setAttribute('gen_ai.tool.call.result', safeJson(result))
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return ''
  }
}

/** A link to the span that created the task a `tasks/*` request names, when this instance knows it. */
function taskLink(facts: RequestFacts): Link[] | undefined {
  if (!facts.method.startsWith('tasks/')) return undefined
  const id = facts.params?.taskId
  const created = typeof id === 'string' ? taskSpans.get(id) : undefined
  return created === undefined ? undefined : [{ context: created, attributes: { 'mcp.task.id': id as string } }]
}

/**
 * Runs one MCP request (`run`) in its SERVER span, and records its
 * duration. Without an OpenTelemetry SDK it is `run()` itself.
 */
export function traceRequest<R>(state: object, facts: RequestFacts, run: () => Promise<R>): Promise<R> {
  const api = otel()
  if (api === undefined) return run()
  if (api instanceof Promise) return api.then((loaded) => (loaded === undefined ? run() : traced(loaded, state, facts, run)))
  return traced(api, state, facts, run)
}

const NO_OPTIONS: TelemetryOptions = {}

/**
 * The request's SERVER span, started under `parent` with every attribute
 * known before it runs (the shared ones of `attributes` and the span's own).
 */
function startServerSpan(
  api: OtelApi,
  options: TelemetryOptions,
  facts: RequestFacts,
  target: string | undefined,
  attributes: Attributes,
  parent: Context,
): Span {
  // Copied with Object.assign: on Node 20 a spread followed by more keys (`{ ...attributes, key: value }`)
  // takes some 5 µs for these dotted names, Object.assign and the keys set after it 0.1 µs.
  const spanAttributes: Attributes = Object.assign({}, attributes)
  spanAttributes['jsonrpc.protocol.version'] = '2.0'
  if (facts.id !== undefined) spanAttributes['jsonrpc.request.id'] = String(facts.id)
  if (facts.sessionId !== undefined) spanAttributes['mcp.session.id'] = facts.sessionId
  if (facts.clientAddress !== undefined) spanAttributes['client.address'] = facts.clientAddress
  const uri = facts.params?.uri
  if (typeof uri === 'string') spanAttributes['mcp.resource.uri'] = uri
  if (options.recordArguments && facts.method === 'tools/call')
    spanAttributes['gen_ai.tool.call.arguments'] = safeJson(facts.params?.arguments ?? {})
  const spanOptions: SpanOptions = { kind: api.SpanKind.SERVER, attributes: spanAttributes }
  const links = taskLink(facts)
  if (links !== undefined) spanOptions.links = links
  return tracerOf(api).startSpan(target === undefined ? facts.method : `${facts.method} ${target}`, spanOptions, parent)
}

/**
 * One request in its SERVER span (when a tracer provider is registered)
 * with its duration recorded (when a meter provider is): each half costs
 * nothing without its provider. Not an async function: its one promise is
 * the reaction that ends the span (on Node 20 every promise is dearer once
 * the SDK's context manager runs: docs/guide/production.md, "OpenTelemetry traces and metrics").
 */
function traced<R>(api: OtelApi, state: object, facts: RequestFacts, run: () => Promise<R>): Promise<R> {
  const started = performance.now()
  const options = telemetries.get(state)?.options ?? NO_OPTIONS
  const target = targetOf(facts)
  const attributes = attributesOf(facts, target)
  let span: Span | undefined
  let pending: Promise<R>
  try {
    if (tracingRegistered()) {
      const parent = parentOf(api, facts)
      span = startServerSpan(api, options, facts, target, attributes, parent)
      pending = api.context.with(api.trace.setSpan(parent, span), run)
    } else {
      pending = run()
    }
  } catch (error) {
    ended(api, facts, options, span, attributes, started, undefined, error ?? new Error('rejected'))
    return Promise.reject(error as Error)
  }
  return Promise.resolve(pending).then(
    (result) => {
      ended(api, facts, options, span, attributes, started, result, undefined)
      return result
    },
    (error: unknown) => {
      ended(api, facts, options, span, attributes, started, undefined, error ?? new Error('rejected'))
      throw error
    },
  )
}

/** Ends a request {@link traced} began: its outcome on the span and the duration, the span's end, the duration's record. */
function ended(
  api: OtelApi,
  facts: RequestFacts,
  options: TelemetryOptions,
  span: Span | undefined,
  attributes: Attributes,
  started: number,
  result: unknown,
  error: unknown,
): void {
  const record = span !== undefined && facts.method === 'tools/call' && options.recordResults === true
  settle(api, span, attributes, result, error, record)
  span?.end()
  if (meteringRegistered()) instrumentsOf(api).operation.record((performance.now() - started) / 1000, attributes)
}
