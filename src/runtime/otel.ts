/**
 * The OpenTelemetry API, loaded only when an application registered an
 * OpenTelemetry SDK (docs/guide/production.md). `@opentelemetry/api` keeps
 * what an SDK registers on one global (its `Symbol.for` key, per major
 * version); without it every check here is one property read, and the API
 * (some 25 ms to load) is never imported, so a server without an SDK starts
 * and calls as before. The first request after an SDK appears awaits the
 * import; afterwards the API is read synchronously.
 */
import type * as Api from '@opentelemetry/api'

export type OtelApi = typeof Api
export type { Attributes, Context, Histogram, Link, Span, SpanContext, SpanOptions } from '@opentelemetry/api'

/** The global key `@opentelemetry/api` 1.x registers its providers under. */
const API_KEY = Symbol.for('opentelemetry.js.api.1')

let api: OtelApi | undefined
let loading: Promise<OtelApi | undefined> | undefined

/** The API's global object, where a registered SDK's providers are (`undefined` before anything registered). */
const registered = (): { trace?: unknown; metrics?: unknown } | undefined =>
  (globalThis as Record<symbol, { trace?: unknown; metrics?: unknown } | undefined>)[API_KEY]

/** Whether an application registered an OpenTelemetry SDK (a tracer or a meter provider). */
export function otelRegistered(): boolean {
  // The API keeps its global object when an SDK is disabled (`trace.disable()`): what counts is a registered provider.
  const global = registered()
  return global !== undefined && (global.trace !== undefined || global.metrics !== undefined)
}

/** Whether a tracer provider is registered: without one, the API's tracer is a no-op and no span is worth starting. */
export function tracingRegistered(): boolean {
  return registered()?.trace !== undefined
}

/** Whether a meter provider is registered: without one, the API's instruments record nothing. */
export function meteringRegistered(): boolean {
  return registered()?.metrics !== undefined
}

/** The API when it is loaded and an SDK is registered, else `undefined` (never loads it). */
export function otelNow(): OtelApi | undefined {
  return api !== undefined && otelRegistered() ? api : undefined
}

/** The API when an SDK is registered (loading it the first time), else `undefined`. */
export function otel(): OtelApi | undefined | Promise<OtelApi | undefined> {
  if (!otelRegistered()) return undefined
  if (api !== undefined) return api
  loading ??= import('@opentelemetry/api').then(
    (loaded) => (api = loaded),
    () => undefined,
  )
  return loading
}

/** This library's instrumentation scope (tracer and meter name). */
export const INSTRUMENTATION_SCOPE = 'unplugin-proto-mcp'

let tracer: { provider: Api.TracerProvider; delegate: unknown; tracer: Api.Tracer } | undefined

/**
 * This library's tracer, looked up once per registered provider (not by
 * name on every span: docs/guide/production.md, "OpenTelemetry traces and metrics").
 */
export function tracerOf(loaded: OtelApi): Api.Tracer {
  // The API's global provider is a proxy over the SDK's; a new registration (after `trace.disable()`) is a new proxy.
  const provider = loaded.trace.getTracerProvider()
  const delegate = (provider as Partial<Api.ProxyTracerProvider>).getDelegate?.()
  if (tracer?.provider !== provider || tracer.delegate !== delegate) {
    tracer = { provider, delegate, tracer: provider.getTracer(INSTRUMENTATION_SCOPE) }
  }
  return tracer.tracer
}

let meter: { provider: Api.MeterProvider; meter: Api.Meter } | undefined

/** This library's meter, looked up once per registered provider; `meterOf(api) === meterOf(api)` until another registers. */
export function meterOf(loaded: OtelApi): Api.Meter {
  const provider = loaded.metrics.getMeterProvider()
  if (meter?.provider !== provider) meter = { provider, meter: provider.getMeter(INSTRUMENTATION_SCOPE) }
  return meter.meter
}

/**
 * The active span, where a tool call's stages go as events
 * (docs/guide/production.md); `undefined` without an SDK. A call looks it
 * up once for all its events: each lookup reads the context manager's
 * AsyncLocalStorage.
 */
export function activeSpan(): Api.Span | undefined {
  return otelNow()?.trace.getActiveSpan()
}

/** Why a request was refused, as the rejected-requests counter names it. */
export type RejectReason = 'auth' | 'rate_limit' | 'validation' | 'size'

/** The project's counter of refused requests (the conventions have none): `reason` says which check refused it. */
export const REJECTED_METRIC = 'proto_mcp.server.rejected_requests'

let rejected: { meter: Api.Meter; counter: Api.Counter } | undefined

/** Counts one refused request (a no-op without an SDK). */
export function countRejected(reason: RejectReason): void {
  const loaded = otelNow()
  if (loaded === undefined) return
  const current = meterOf(loaded)
  if (rejected?.meter !== current) {
    const counter = current.createCounter(REJECTED_METRIC, { unit: '{request}', description: 'MCP requests refused, by reason' })
    rejected = { meter: current, counter }
  }
  rejected.counter.add(1, { 'proto_mcp.reject.reason': reason })
}

/** A CLIENT span of an outgoing RPC and the trace context the callee is to receive. */
export interface ClientSpan {
  /** The W3C `traceparent` of the span (the callee's parent). */
  readonly traceparent: string
  readonly tracestate?: string
  /** Ends the span; `code` is the RPC status code (0 for OK). */
  end(code: number, error?: unknown): void
}

/**
 * Starts a CLIENT span for a gRPC call of `path` (`/pkg.Service/Method`) as
 * a child of the active span (the tool call's SERVER span), or `undefined`
 * when no SDK is registered or the span context is not valid.
 */
export function clientSpan(path: string, server?: string): ClientSpan | undefined {
  // Loaded by then: the SERVER span of the request awaited the API.
  const loaded = otelNow()
  if (loaded === undefined) return undefined
  const [service = '', method = ''] = path.slice(1).split('/')
  const span = tracerOf(loaded).startSpan(path.slice(1), {
    kind: loaded.SpanKind.CLIENT,
    attributes: {
      'rpc.system': 'grpc',
      'rpc.system.name': 'grpc',
      'rpc.service': service,
      'rpc.method': `${service}/${method}`,
      ...(server === undefined ? {} : { 'server.address': server }),
    },
  })
  const context = span.spanContext()
  if (!loaded.isSpanContextValid(context)) return undefined
  const flags = context.traceFlags.toString(16).padStart(2, '0')
  const tracestate = context.traceState?.serialize()
  return {
    traceparent: `00-${context.traceId}-${context.spanId}-${flags}`,
    ...(tracestate ? { tracestate } : {}),
    end(code, error) {
      span.setAttribute('rpc.response.status_code', String(code))
      span.setAttribute('rpc.grpc.status_code', code)
      if (code !== 0) {
        span.setAttribute('error.type', String(code))
        span.setStatus({ code: loaded.SpanStatusCode.ERROR, message: (error as Error | undefined)?.message ?? '' })
      }
      span.end()
    },
  }
}
