/**
 * `proto-mcp serve` in production (docs/guide/production.md): the
 * standard OTEL_* environment exports traces and metrics with the official
 * SDK to an OTLP/HTTP receiver this test runs on loopback, the grpc-js
 * backend receives the CLIENT span's trace; an OTLP endpoint that never
 * answers does not hold up calls (spans dropped past the queue, said once);
 * `/healthz` and `/readyz`; `--rate-limit` and `--audit`, and their usage errors.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCli } from '../../src/cli/args.ts'
import { otelWanted } from '../../src/cli/otel-sdk.ts'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { startGrpcServer, vibeService, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { builtCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

let cli: string
let grpcServer: GrpcTestServer
const vibe = vibeService()

beforeAll(async () => {
  cli = builtCli()
  grpcServer = await startGrpcServer([vibe])
}, 180_000)
afterAll(async () => {
  await grpcServer?.stop()
})

/** An OTLP/HTTP (JSON) receiver: what it was sent, by path. `hang`: it never answers. */
async function receiver(hang = false): Promise<{ url: string; bodies: Map<string, any[]>; server: HttpServer }> {
  const bodies = new Map<string, any[]>()
  const server = createServer((req, res) => {
    let text = ''
    req.on('data', (chunk: Buffer) => (text += chunk.toString()))
    req.on('end', () => {
      if (hang) return
      const list = bodies.get(req.url ?? '') ?? []
      list.push(JSON.parse(text))
      bodies.set(req.url ?? '', list)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server }
}

/** Starts the command over HTTP with `env`; resolves with its URL once it serves. */
async function serve(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [cli, 'serve', EXAMPLE_PROTO, '--grpc', grpcServer.address, '--http', '0', ...args], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  let stderr = ''
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
      const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)
      if (match) resolve(match[1]!)
    })
    child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)))
  })
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
  return { url, child, exited, stderr: () => stderr }
}

async function stop(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  child.kill('SIGTERM')
  return exited
}

const spansIn = (bodies: any[] | undefined) =>
  (bodies ?? []).flatMap((b) =>
    b.resourceSpans.flatMap((r: any) => r.scopeSpans.flatMap((s: any) => s.spans.map((span: any) => ({ ...span, resource: r.resource })))),
  )
const attr = (item: any, key: string) => {
  const found = item.attributes?.find((a: any) => a.key === key)?.value
  return found === undefined ? undefined : (found.stringValue ?? found.intValue ?? found.boolValue)
}

describe('the OTEL_* environment', () => {
  it('asks for the SDK only when it names an endpoint or an otlp exporter', () => {
    expect(otelWanted({})).toBeUndefined()
    expect(otelWanted({ OTEL_SERVICE_NAME: 'x' })).toBeUndefined()
    expect(otelWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toEqual({ traces: true, metrics: true, protocol: 'http/protobuf' })
    expect(otelWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_METRICS_EXPORTER: 'none' })).toMatchObject({
      traces: true,
      metrics: false,
    })
    expect(otelWanted({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toMatchObject({
      traces: true,
      protocol: 'http/json',
    })
    expect(otelWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined()
  })

  it('exports the tools/call span and the duration metric to the OTLP receiver; the backend sees the CLIENT span', async () => {
    const otlp = await receiver()
    const { url, child, exited } = await serve([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'vibes-gateway',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '200',
    })
    try {
      const client = new Client({ name: 'otel-cli', version: '0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      const before = vibe.received.length
      expect(await client.callTool({ name: 'SetVibe', arguments: { vibe: 'exported' } })).toMatchObject({ isError: false })
      const traceparent = String(vibe.received[before]!.metadata.get('traceparent')[0])
      await client.close()
      let spans = spansIn(otlp.bodies.get('/v1/traces'))
      for (let i = 0; i < 100 && !spans.some((s) => s.name === 'examples.v1.VibeService/SetVibe'); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        spans = spansIn(otlp.bodies.get('/v1/traces'))
      }
      const server = spans.find((s) => s.name === 'tools/call SetVibe')
      const forward = spans.find((s) => s.name === 'examples.v1.VibeService/SetVibe')
      expect(server?.kind).toBe(2) // SERVER in OTLP's enum
      expect(forward?.kind).toBe(3) // CLIENT
      expect(attr(server, 'gen_ai.tool.name')).toBe('SetVibe')
      expect(attr(server.resource, 'service.name')).toBe('vibes-gateway')
      expect(forward.parentSpanId).toBe(server.spanId)
      expect(traceparent).toBe(`00-${forward.traceId}-${forward.spanId}-01`)
      let metrics: any[] = []
      for (let i = 0; i < 100 && metrics.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50))
        metrics = (otlp.bodies.get('/v1/metrics') ?? [])
          .flatMap((b) => b.resourceMetrics.flatMap((r: any) => r.scopeMetrics.flatMap((s: any) => s.metrics)))
          .filter((m: any) => m.name === 'mcp.server.operation.duration')
      }
      expect(metrics[0]).toMatchObject({ name: 'mcp.server.operation.duration', unit: 's' })
      expect(metrics[0].histogram).toBeDefined()
    } finally {
      expect(await stop(child, exited)).toBe(0)
      otlp.server.close()
    }
  })

  it('an OTLP endpoint that never answers does not hold up calls: spans past the queue are dropped and counted', async () => {
    const dead = await receiver(true)
    const { url, child, exited, stderr } = await serve([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: dead.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_MAX_QUEUE_SIZE: '4',
      OTEL_BSP_SCHEDULE_DELAY: '10',
      OTEL_EXPORTER_OTLP_TIMEOUT: '60000',
      OTEL_METRICS_EXPORTER: 'none',
    })
    try {
      const client = new Client({ name: 'otel-dead', version: '0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      for (let i = 0; i < 30; i++) expect(await client.callTool({ name: 'GetVibe', arguments: {} })).toMatchObject({ isError: false })
      await client.close()
      expect(stderr()).toContain(
        'OpenTelemetry: the span export queue is full (4 spans): dropping spans, counted as proto_mcp.otel.dropped_spans',
      )
    } finally {
      child.kill('SIGKILL')
      await exited
      dead.server.closeAllConnections()
      dead.server.close()
    }
  })
})

describe('an OTLP endpoint that fails', () => {
  it('a refused endpoint: one line saying exports fail; an exporter it does not have: one line naming it', async () => {
    const closed = await receiver()
    await new Promise<void>((resolve) => closed.server.close(() => resolve()))
    const { url, child, exited, stderr } = await serve([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: closed.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '10',
      OTEL_EXPORTER_OTLP_TIMEOUT: '300',
      OTEL_METRICS_EXPORTER: 'otlp,zipkin',
    })
    try {
      const client = new Client({ name: 'otel-refused', version: '0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      expect(await client.callTool({ name: 'GetVibe', arguments: {} })).toMatchObject({ isError: false })
      await client.close()
      for (let i = 0; i < 100 && !stderr().includes('exporting spans failed'); i++) await new Promise((r) => setTimeout(r, 50))
      const lines = stderr().split('\n')
      expect(lines.filter((l) => l.includes('OpenTelemetry: exporting spans failed: '))).toHaveLength(1)
      expect(lines).toContain('proto-mcp: OpenTelemetry: OTEL_METRICS_EXPORTER=otlp,zipkin: zipkin is not supported here (otlp is)')
    } finally {
      child.kill('SIGKILL')
      await exited
    }
  })

  it('told to stop, the command waits for the last export 2 s at most, and says so', async () => {
    const dead = await receiver(true)
    const { url, child, exited, stderr } = await serve([], {
      OTEL_EXPORTER_OTLP_ENDPOINT: dead.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_TIMEOUT: '60000',
      OTEL_METRICS_EXPORTER: 'none',
    })
    try {
      const client = new Client({ name: 'otel-stop', version: '0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      expect(await client.callTool({ name: 'GetVibe', arguments: {} })).toMatchObject({ isError: false })
      await client.close()
      expect(await stop(child, exited)).toBe(0)
      expect(stderr()).toContain('OpenTelemetry: the last export did not finish in 2 s: stopping without it')
    } finally {
      child.kill('SIGKILL')
      dead.server.closeAllConnections()
      dead.server.close()
    }
  })
})

describe('health, rate limits and audit of the command', () => {
  it('/healthz, /readyz; --rate-limit answers 429; --audit writes a JSON line per call on stderr', async () => {
    const { url, child, exited, stderr } = await serve(['--rate-limit', 'perCaller=1/2', '--audit'], {})
    try {
      const origin = new URL(url).origin
      expect(await (await fetch(`${origin}/healthz`)).json()).toEqual({ status: 'ok' })
      const ready = await fetch(`${origin}/readyz`)
      expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', checks: { tools: 'ok', backends: 'ok' } }])
      const client = new Client({ name: 'limited-cli', version: '0' })
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      await client.callTool({ name: 'GetVibe', arguments: {} })
      await client.callTool({ name: 'GetVibe', arguments: {} })
      await expect(client.callTool({ name: 'GetVibe', arguments: {} })).rejects.toThrow(/429|rate limit/)
      await client.close()
      const audit = stderr()
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l))
      expect(audit.filter((a) => a.tool === 'GetVibe' && a.outcome === 'ok')).toHaveLength(2)
    } finally {
      expect(await stop(child, exited)).toBe(0)
    }
  })

  it('a --rate-limit that cannot work is a usage error naming it', () => {
    const base = ['serve', 'x.proto', '--grpc', '127.0.0.1:1']
    expect(() => parseCli([...base, '--rate-limit', 'perCaller=0'])).toThrow('--rate-limit perCaller must be more than 0 calls per second')
    expect(() => parseCli([...base, '--rate-limit', 'global=-3'])).toThrow('--rate-limit global must be')
    expect(() => parseCli([...base, '--rate-limit', 'perTool=NaN'])).toThrow('--rate-limit perTool must be')
    expect(() => parseCli([...base, '--rate-limit', 'perTool=5/0'])).toThrow('--rate-limit perTool must be')
    expect(() => parseCli([...base, '--rate-limit', 'each=5'])).toThrow('--rate-limit must be perCaller, perTool or global')
    expect(() => parseCli([...base, '--rate-limit', 'perCaller=5', '--rate-limit', 'perCaller=10'])).toThrow(
      '--rate-limit perCaller is given twice',
    )
    expect(parseCli([...base, '--rate-limit', 'perCaller=10/20', '--rate-limit', 'global=100'])).toMatchObject({
      rateLimit: { perCaller: { rate: 10, burst: 20 }, global: { rate: 100 } },
    })
  })
})
