/**
 * OpenTelemetry traces and metrics of a served server (docs/guide/production.md)
 * with the real OpenTelemetry JS SDK (in-memory span exporter, a metric
 * reader collected on demand): SERVER spans after the MCP conventions for
 * SDK v1 and v2 clients, stdio and HTTP, both eras; the gRPC forward's
 * CLIENT span, whose trace the grpc-js backend receives; parents from
 * `_meta.traceparent` and the HTTP header, a malformed one ignored; a task's
 * polls and end linked to the span that created it; the durations and the
 * rejected-requests counter.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { context, metrics, propagation, trace } from '@opentelemetry/api'
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node'
import { AggregationTemporality, MeterProvider, MetricReader, type ResourceMetrics } from '@opentelemetry/sdk-metrics'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { grpc } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { Server } from '../../src/entries/runtime.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { startGrpcServer, vibeService } from '../grpc/grpc-server.ts'
import { streamPair } from '../grpc/stream-transport.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { Closer } from '../helpers/closer.ts'

class CollectingReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE })
  }
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const exporter = new InMemorySpanExporter()
const reader = new CollectingReader()
const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
const meterProvider = new MeterProvider({ readers: [reader] })
const closers = new Closer()
const spec = specFromProto(EXAMPLE_PROTO)
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const PARENT_TRACE = '0af7651916cd43dd8448eb211c80319c'
const PARENT_SPAN = 'b7ad6b7169203331'

beforeAll(() => {
  provider.register()
  metrics.setGlobalMeterProvider(meterProvider)
})
afterAll(async () => {
  await closers.close()
  await provider.shutdown()
  await meterProvider.shutdown()
  trace.disable()
  metrics.disable()
  context.disable()
  propagation.disable()
})
afterEach(async () => {
  await closers.close()
  exporter.reset()
})

/** A server forwarding VibeService to a real grpc-js server; what the backend received. */
async function forwarded() {
  const vibe = vibeService()
  const grpcServer = await startGrpcServer([vibe])
  const backend = grpc(grpcServer.address)
  closers.push(
    () => grpcServer.stop(),
    () => backend.close(),
  )
  const server = createProtoServer(spec).forward('VibeService', backend).logging({ logger: false })
  return { server, received: vibe.received }
}

const spans = (): ReadableSpan[] => exporter.getFinishedSpans()
const serverSpans = (name?: string) => spans().filter((s) => s.kind === 1 && (name === undefined || s.name === name))
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId

async function httpV2(url: string, headers: Record<string, string> = {}) {
  const client = new ClientV2({ name: 'otel-v2', version: '0.0.0' })
  await client.connect(new HttpV2(new URL(url), { requestInit: { headers } }))
  closers.push(() => client.close())
  return client
}

/** Checks that the backend got the CLIENT span's context and that the CLIENT span is the SERVER span's child. */
function expectForwardedChild(server: ReadableSpan, received: Array<{ metadata: { get(k: string): unknown[] } }>) {
  const client = spans().find((s) => s.kind === 2 && s.name === 'examples.v1.VibeService/SetVibe')!
  expect(client).toBeDefined()
  expect(client.attributes).toMatchObject({
    'rpc.system': 'grpc',
    'rpc.method': 'examples.v1.VibeService/SetVibe',
    'rpc.grpc.status_code': 0,
  })
  expect(parentOf(client)).toBe(server.spanContext().spanId)
  const traceparent = String(received.at(-1)!.metadata.get('traceparent')[0])
  expect(traceparent).toBe(`00-${server.spanContext().traceId}-${client.spanContext().spanId}-01`)
}

describe('HTTP, SDK v2 client and 2026-07-28 requests', () => {
  it('tools/call: a SERVER span after the conventions, its parent the traceparent header; the backend sees the CLIENT child', async () => {
    const { server, received } = await forwarded()
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const client = await httpV2(handle.url, { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` })
    const result = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'traced' } })
    expect(result.isError).toBe(false)
    const [span] = serverSpans('tools/call SetVibe')
    expect(span).toBeDefined()
    expect(span!.spanContext().traceId).toBe(PARENT_TRACE)
    expect(parentOf(span!)).toBe(PARENT_SPAN)
    expect(span!.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'gen_ai.tool.name': 'SetVibe',
      'gen_ai.operation.name': 'execute_tool',
      'jsonrpc.protocol.version': '2.0',
      'network.transport': 'tcp',
      'network.protocol.name': 'http',
    })
    expect(typeof span!.attributes['jsonrpc.request.id']).toBe('string')
    expect(span!.attributes['mcp.protocol.version']).toBe(client.getNegotiatedProtocolVersion())
    expect(span!.attributes['error.type']).toBeUndefined()
    // Validation, decoding, the backend call and encoding are events of the span.
    expect(span!.events.map((e) => e.name)).toEqual(['proto_mcp.validate', 'proto_mcp.decode', 'proto_mcp.backend', 'proto_mcp.encode'])
    // Arguments and results are opt-in.
    expect(span!.attributes['gen_ai.tool.call.arguments']).toBeUndefined()
    expectForwardedChild(span!, received)

    await client.listTools()
    expect(serverSpans('tools/list')).toHaveLength(1)
    // The SDK's path over Node HTTP knows the client's address too (its web request carries none).
    expect(serverSpans('tools/list')[0]!.attributes['client.address']).toBe('127.0.0.1')
  })

  it('a tool error is error.type tool_error; an unknown tool the JSON-RPC code; a malformed traceparent starts a new trace', async () => {
    const { server } = await forwarded()
    server.telemetry({ recordArguments: true, recordResults: true })
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const client = await httpV2(handle.url, { traceparent: '00-not-a-trace-01' })
    const failed = await client.callTool({ name: 'SetVibe', arguments: { vibe: 5 } })
    expect(failed.isError).toBe(true)
    await expect(client.callTool({ name: 'Nope', arguments: {} })).rejects.toMatchObject({ code: -32602 })
    const [bad] = serverSpans('tools/call SetVibe')
    expect(bad!.attributes['error.type']).toBe('tool_error')
    expect(bad!.status.code).toBe(2)
    expect(bad!.parentSpanContext).toBeUndefined()
    expect(bad!.attributes['gen_ai.tool.call.arguments']).toBe('{"vibe":5}')
    expect(String(bad!.attributes['gen_ai.tool.call.result'])).toContain('invalid arguments')
    const [unknown] = serverSpans('tools/call Nope')
    expect(unknown!.attributes).toMatchObject({ 'error.type': '-32602', 'rpc.response.status_code': '-32602' })
  })

  it('2026-07-28 through the SDK: the parent from params._meta.traceparent, no session id', async () => {
    const { server, received } = await forwarded()
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const answer = await modernRequest(
      handle.url,
      'tools/call',
      { name: 'SetVibe', arguments: { vibe: 'meta' } },
      { meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01`, tracestate: 'vendor=1' } },
    )
    expect(answer.body.result?.isError).toBe(false)
    const [span] = serverSpans('tools/call SetVibe')
    expect(span!.spanContext().traceId).toBe(PARENT_TRACE)
    expect(parentOf(span!)).toBe(PARENT_SPAN)
    expect(span!.attributes['mcp.protocol.version']).toBe('2026-07-28')
    expect(span!.attributes['mcp.session.id']).toBeUndefined()
    expect(span!.attributes['client.address']).toBe('127.0.0.1')
    expectForwardedChild(span!, received)
    expect(received.at(-1)!.metadata.get('tracestate')).toEqual(['vendor=1'])
  })

  it('the plain 2026-07-28 fast path: its span, and the parent from the header', async () => {
    const { server, received } = await forwarded()
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const answer = await modernRequest(
      handle.url,
      'tools/call',
      { name: 'SetVibe', arguments: { vibe: 'fast' } },
      { headers: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` } },
    )
    expect(answer.body.result?.isError).toBe(false)
    const [span] = serverSpans('tools/call SetVibe')
    expect(span!.spanContext().traceId).toBe(PARENT_TRACE)
    expect(span!.attributes['client.address']).toBe('127.0.0.1')
    expectForwardedChild(span!, received)
  })

  it('a task: its polls and its end are linked to the span that created it', async () => {
    const server = Server.builder('otel-tasks')
      .logging({ logger: false })
      .tasks({ pollIntervalMs: 20, startAfterMs: 0 })
      .tool({ name: 'Slow', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }, async () => {
        await new Promise((resolve) => setTimeout(resolve, 50))
        return { content: [{ type: 'text' as const, text: 'done' }] }
      })
      .build()
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const created = (await modernRequest(handle.url, 'tools/call', { name: 'Slow', arguments: {} }, { capabilities: TASKS })).body.result!
    expect(created.resultType).toBe('task')
    let status = 'working'
    for (let i = 0; i < 100 && status === 'working'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      status = (await modernRequest(handle.url, 'tasks/get', { taskId: created.taskId }, { capabilities: TASKS })).body.result!.status
    }
    expect(status).toBe('completed')
    const [creating] = serverSpans('tools/call Slow')
    const polls = serverSpans('tasks/get')
    expect(polls.length).toBeGreaterThan(0)
    for (const poll of polls) expect(poll.links.map((l) => l.context.spanId)).toEqual([creating!.spanContext().spanId])
    const end = spans().find((s) => s.name === 'task Slow')!
    expect(end.links.map((l) => l.context.spanId)).toEqual([creating!.spanContext().spanId])
    expect(end.attributes).toMatchObject({ 'mcp.task.status': 'completed', 'mcp.task.id': created.taskId })
  })
})

describe('HTTP, SDK v1 client (initialize era)', () => {
  it('spans carry the session id; the session duration is recorded when it closes', async () => {
    const { server, received } = await forwarded()
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const client = new ClientV1({ name: 'otel-v1', version: '0.0.0' })
    const transport = new HttpV1(new URL(handle.url))
    await client.connect(transport)
    await client.callTool({ name: 'SetVibe', arguments: { vibe: 'v1' } })
    const [span] = serverSpans('tools/call SetVibe')
    expect(span!.attributes['mcp.session.id']).toBe(transport.sessionId)
    expect(span!.attributes['mcp.protocol.version']).toMatch(/^20\d\d-/)
    // The session's call (its fast path) and its initialize (the SDK's path) both know the client's address.
    expect(span!.attributes['client.address']).toBe('127.0.0.1')
    expect(serverSpans('initialize')[0]!.attributes['client.address']).toBe('127.0.0.1')
    expectForwardedChild(span!, received)
    expect(serverSpans('initialize')).toHaveLength(1)
    await transport.terminateSession()
    await client.close()
    const collected = await reader.collect()
    const session = metric(collected.resourceMetrics, 'mcp.server.session.duration')
    expect(session?.descriptor.unit).toBe('s')
    expect(session?.dataPoints.some((p) => p.attributes['network.transport'] === 'tcp')).toBe(true)
  })
})

describe('stdio', () => {
  for (const [era, ClientClass] of [
    ['v2 client', ClientV2],
    ['v1 client (initialize era)', ClientV1],
  ] as const) {
    it(`${era}: the parent from params._meta.traceparent (SEP-414), network.transport pipe`, async () => {
      const { server, received } = await forwarded()
      const { stdin, stdout, transport } = streamPair()
      const serving = server.serveStdio({ stdin, stdout })
      const client = new ClientClass({ name: 'otel-stdio', version: '0.0.0' })
      await client.connect(transport as never)
      await client.callTool({
        name: 'SetVibe',
        arguments: { vibe: 'piped' },
        _meta: { traceparent: `00-${PARENT_TRACE}-${PARENT_SPAN}-01` },
      })
      await client.close()
      await serving
      const [span] = serverSpans('tools/call SetVibe')
      expect(span!.attributes['network.transport']).toBe('pipe')
      expect(span!.spanContext().traceId).toBe(PARENT_TRACE)
      expect(parentOf(span!)).toBe(PARENT_SPAN)
      expectForwardedChild(span!, received)
    })
  }
})

function metric(resourceMetrics: ResourceMetrics, name: string) {
  for (const scope of resourceMetrics.scopeMetrics) for (const m of scope.metrics) if (m.descriptor.name === name) return m
  return undefined
}

describe('metrics', () => {
  it('mcp.server.operation.duration in seconds with the conventions attributes; refused requests counted by reason', async () => {
    const { server } = await forwarded()
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const client = await httpV2(handle.url)
    await client.callTool({ name: 'SetVibe', arguments: { vibe: 'measured' } })
    await client.callTool({ name: 'SetVibe', arguments: { vibe: 7 } })
    const big = await fetch(handle.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: 'x'.repeat(5 * 1024 * 1024),
    })
    expect(big.status).toBe(413)
    const { resourceMetrics } = await reader.collect()
    const duration = metric(resourceMetrics, 'mcp.server.operation.duration')!
    expect(duration.descriptor).toMatchObject({ unit: 's', type: 'HISTOGRAM' })
    const point = duration.dataPoints.find(
      (p) => p.attributes['gen_ai.tool.name'] === 'SetVibe' && p.attributes['error.type'] === undefined,
    )
    expect(point?.attributes).toMatchObject({
      'mcp.method.name': 'tools/call',
      'network.transport': 'tcp',
      'gen_ai.operation.name': 'execute_tool',
    })
    const rejected = metric(resourceMetrics, 'proto_mcp.server.rejected_requests')!
    const by = (reason: string) => rejected.dataPoints.find((p) => p.attributes['proto_mcp.reject.reason'] === reason)?.value
    expect(by('validation')).toBeGreaterThanOrEqual(1)
    expect(by('size')).toBeGreaterThanOrEqual(1)
  })

  it('a meter without a tracer provider records the duration and starts no span; a tracer without a meter, the span alone', async () => {
    const server = createProtoServer(spec)
      .implement('VibeService', { GetVibe: () => ({ vibe: 'untraced' }) })
      .logging({ logger: false })
    const handle = await server.serveHttp({ port: 0 })
    closers.push(() => handle.close())
    const count = async () => {
      const duration = metric((await reader.collect()).resourceMetrics, 'mcp.server.operation.duration')
      const point = duration?.dataPoints.find((p) => p.attributes['gen_ai.tool.name'] === 'GetVibe')
      return (point?.value as { count?: number } | undefined)?.count ?? 0
    }
    const before = await count()
    trace.disable()
    try {
      expect((await modernRequest(handle.url, 'tools/call', { name: 'GetVibe', arguments: {} })).status).toBe(200)
    } finally {
      provider.register()
    }
    expect(await count()).toBe(before + 1)
    expect(spans()).toEqual([])
    // And with the tracer back, the same call has its span.
    expect((await modernRequest(handle.url, 'tools/call', { name: 'GetVibe', arguments: {} })).status).toBe(200)
    expect(serverSpans('tools/call GetVibe')).toHaveLength(1)
    expect(await count()).toBe(before + 2)
    // A tracer without a meter provider: the span, no duration.
    metrics.disable()
    try {
      expect((await modernRequest(handle.url, 'tools/call', { name: 'GetVibe', arguments: {} })).status).toBe(200)
    } finally {
      metrics.setGlobalMeterProvider(meterProvider)
    }
    expect(serverSpans('tools/call GetVibe')).toHaveLength(2)
    expect(await count()).toBe(before + 2)
  })

  it("fetch()'s 429s count as rate_limit refusals", async () => {
    const rateLimited = async () => {
      const points = metric((await reader.collect()).resourceMetrics, 'proto_mcp.server.rejected_requests')?.dataPoints ?? []
      return Number(points.find((p) => p.attributes['proto_mcp.reject.reason'] === 'rate_limit')?.value ?? 0)
    }
    const before = await rateLimited()
    const server = createProtoServer(spec)
      .implement('VibeService', { SetVibe: (request: { vibe: string }) => ({ vibe: request.vibe }) })
      .logging({ logger: false })
      .rateLimit({ global: { rate: 0.1, burst: 1 } })
    const statuses = []
    for (const vibe of ['a', 'b', 'c']) {
      const response = await server.fetch(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/call',
            'mcp-name': 'SetVibe',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: vibe,
            method: 'tools/call',
            params: {
              name: 'SetVibe',
              arguments: { vibe },
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientInfo': { name: 'telemetry', version: '0' },
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        }),
      )
      statuses.push(response.status)
      await response.text()
    }
    expect(statuses).toEqual([200, 429, 429])
    expect((await rateLimited()) - before).toBe(2)
  })
})
