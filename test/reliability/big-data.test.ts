/**
 * Nothing lost with big data (issue 22), through the transports the
 * problems were found on: `proto-mcp serve --http` and `proto-mcp serve`
 * (stdio) forwarding to a real grpc-js backend on loopback, and in process.
 * - a server stream is bounded in bytes as well as messages: past the byte
 *   cap the call answers the messages that fit, marked as cut, the backend
 *   stream is cancelled, and the gateway's peak RSS stays near the cap (the
 *   issue: 300 × 1 MB answered nothing at 2.0 GB RSS);
 * - a bytes reply of 3.4 MiB and base64 arguments of 4.9 M (stdio) and 8 M
 *   (in process) characters are
 *   served (the base64 regular expressions overflowed the stack);
 * - 64-bit numbers past 2^53 reach the backend as the client wrote them, or
 *   are refused, in every profile; exponent strings are exact or refused;
 * - a stdio line past the limit, or not JSON, is that message's error and
 *   the server goes on; a broken stdout ends it with exit code 1;
 * - a failed call is a (throttled) line on the gateway's stderr;
 * - a result no transport can write is answered as a tool error.
 * Counts and sizes are bounded in `npm test`; `npm run soak` streams the
 * issue's 300 × 1 MiB, ten calls at once, at the default cap.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import * as grpcJs from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { Server } from '../../src/entries/runtime.ts'
import type { Profile } from '../../src/runtime/types.ts'
import { serviceDefinition, startGrpcServer, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { INITIALIZE } from '../helpers/raw-http.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { scaled, SOAK } from './scale.ts'
import { text } from '../helpers/result.ts'
import { builtCli, startCli, type RunningCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

const BIGDATA_PROTO = fileURLToPath(new URL('../../fixtures/protos/reliability/bigdata.proto', import.meta.url))
const MiB = 1024 * 1024
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }

/** What the backend saw: Echo requests (64-bit values as proto-loader's strings), and each Stream call's fate. */
const received: Array<Record<string, unknown>> = []
const streams: Array<{ written: number; cancelled: boolean }> = []

const impl: grpcJs.UntypedServiceImplementation = {
  Stream: async (call: grpcJs.ServerWritableStream<any, any>) => {
    const { count, size } = call.request as { count: number; size: number }
    const seen = { written: 0, cancelled: false }
    streams.push(seen)
    call.on('cancelled', () => (seen.cancelled = true))
    for (let i = 0; i < count && !call.cancelled; i++) {
      // Flow control: the backend writes as fast as the gateway reads, no faster.
      if (!call.write({ data: Buffer.alloc(size, i % 251), index: i })) await once(call, 'drain')
      seen.written++
    }
    if (!call.cancelled) call.end()
  },
  Unary: (call: grpcJs.ServerUnaryCall<any, any>, callback: grpcJs.sendUnaryData<any>) =>
    callback(null, { data: Buffer.alloc(call.request.size, 7), index: 1 }),
  Echo: (call: grpcJs.ServerUnaryCall<any, any>, callback: grpcJs.sendUnaryData<any>) => {
    received.push(call.request)
    callback(null, call.request)
  },
}

let cli: string
let backend: GrpcTestServer
const gateways: RunningCli[] = []

beforeAll(async () => {
  cli = builtCli()
  backend = await startGrpcServer([{ definition: serviceDefinition(BIGDATA_PROTO, 'bigdata.v1.BigDataService'), impl }])
}, 180_000)

afterAll(async () => {
  for (const gateway of gateways) await gateway.stop()
  await backend?.stop()
})

/** A deadline no call here should meet, even on a loaded machine (these calls move megabytes through protobufjs). */
const DEADLINE = ['--deadline', '300000']

/** The gateways started so far, by their arguments: tests asking for the same serve one another. */
const started = new Map<string, Promise<RunningCli>>()

/** `proto-mcp serve bigdata.proto --http 0` with `args` (one process for the same arguments), stopped after the file. */
function gateway(args: string[] = [], target = backend.address): Promise<RunningCli> {
  const argv = ['serve', BIGDATA_PROTO, '--grpc', target, '--http', '0', ...DEADLINE, ...args]
  const key = JSON.stringify(argv)
  let running = started.get(key)
  if (!running) {
    running = startCli(cli, argv, REPO)
    started.set(key, running)
    running.then(
      (gateway) => gateways.push(gateway),
      () => {},
    )
  }
  return running
}

/** The peak resident set of a process, from Linux's /proc (VmHWM). */
function peakRss(pid: number): number {
  const line = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(line![1]) * 1024
}

interface Reply {
  id: number
  result?: { content: Array<{ type: string; text: string }>; isError?: boolean; structuredContent?: any }
  error?: { code: number; message: string }
}

/** The JSON-RPC message answering `id` in a JSON or SSE response body. */
function replyOf(body: string, id: number): Reply | undefined {
  const messages = body.startsWith('{') ? [body] : [...body.matchAll(/^data: (.*)$/gm)].map((m) => m[1]!)
  for (const text of messages) {
    const message = JSON.parse(text) as Reply
    if (message.id === id) return message
  }
  return undefined
}

/** An initialize-era session on a gateway, calling tools with argument JSON written by hand (numbers as literals). */
async function session(url: string) {
  const init = await fetch(url, { method: 'POST', headers: HEADERS, body: INITIALIZE })
  await init.text()
  const id = init.headers.get('mcp-session-id')!
  const headers = { ...HEADERS, 'mcp-session-id': id }
  await (await fetch(url, { method: 'POST', headers, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })).text()
  let next = 1
  return {
    /** Calls `name` with `args`, JSON text, and resolves with the reply (rejects when none comes within `timeoutMs`). */
    async call(name: string, args: string, timeoutMs = 60_000): Promise<Reply> {
      const n = ++next
      const body = `{"jsonrpc":"2.0","id":${n},"method":"tools/call","params":{"name":${JSON.stringify(name)},"arguments":${args}}}`
      const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(timeoutMs) })
      const reply = replyOf(await response.text(), n)
      if (reply === undefined) throw new Error(`no answer to call ${n} (HTTP ${response.status})`)
      return reply
    },
  }
}

const textOf = (reply: Reply): string => reply.result?.content[0]?.text ?? `(JSON-RPC error ${JSON.stringify(reply.error)})`

describe('the HTTP gateway, a real grpc-js backend', () => {
  it(
    'a server stream past the byte cap answers the messages that fit, marked as cut; the backend stream is cancelled; peak RSS stays near the cap',
    { timeout: 600_000 },
    async () => {
      // npm test proves the cap with 300 × 256 KiB against a 1 MiB cap; the soak streams the 300 × 1 MiB at the default 4 MiB, ten at once.
      const cap = scaled(MiB, 4 * MiB)
      const size = scaled(256 * 1024, MiB)
      const concurrent = scaled(3, 10)
      const running = await gateway(SOAK ? [] : ['--stream-byte-cap', String(cap)])
      const client = await session(running.url)
      const before = streams.length
      const replies = await Promise.all(
        Array.from({ length: concurrent }, () => client.call('Stream', `{"count":300,"size":${size}}`, 300_000)),
      )
      for (const reply of replies) {
        expect(reply.result?.isError, textOf(reply)).toBe(false)
        const messages = (JSON.parse(reply.result!.content[0]!.text) as { messages: unknown[] }).messages
        const kept = messages.length
        const bytes = Buffer.byteLength(JSON.stringify(messages)) - 2
        // Every message that fits, and not one more: the next would pass the cap.
        expect(kept).toBeGreaterThan(0)
        expect(bytes).toBeLessThanOrEqual(cap)
        expect(bytes + bytes / kept).toBeGreaterThan(cap)
        expect(reply.result!.content[1]!.text).toBe(
          `stream cut at ${kept} ${kept === 1 ? 'message' : 'messages'}: the next one would pass the stream byte cap (${cap} bytes of JSON); ` +
            'the remaining messages were not collected and the stream was cancelled',
        )
        expect(reply.result!.structuredContent.messages).toHaveLength(kept)
      }
      const ours = streams.slice(before)
      expect(ours).toHaveLength(concurrent)
      await expect.poll(() => ours.every((s) => s.cancelled)).toBe(true)
      for (const s of ours) expect(s.written).toBeLessThan(300)
      const peak = peakRss(running.child.pid!)
      process.stdout.write(
        `[big-data] ${concurrent} × 300 × ${size} B streams at a ${cap} B cap: gateway peak RSS ${(peak / MiB).toFixed(0)} MiB\n`,
      )
      // The gateway peaked at 2.0 GB for one call (5.9 GB for ten); a Node process serving this starts near 100 MiB.
      expect(peak).toBeLessThan(scaled(400, 1024) * MiB)
    },
  )

  it("a bytes reply of 3.4 MiB (under gRPC's 4 MiB) is answered in full", { timeout: 120_000 }, async () => {
    const client = await session((await gateway()).url)
    const size = Math.floor(3.4 * MiB)
    const reply = await client.call('Unary', `{"size":${size}}`)
    expect(reply.result?.isError, textOf(reply)).toBe(false)
    // Compared as buffers: a deep equality of 3.5 M elements takes a minute.
    const data = Buffer.from(reply.result!.structuredContent.data as string, 'base64')
    expect(data.length).toBe(size)
    expect(data.equals(Buffer.alloc(size, 7))).toBe(true)
  })

  it(
    '64-bit numbers past 2^53 reach the backend as the client wrote them, in every profile; out of range, the text shows the number sent',
    { timeout: 180_000 },
    async () => {
      for (const profile of ['portable', 'strict', 'full', 'topeka'] as const) {
        // portable is the default: the gateway the other tests use.
        const client = await session((await gateway(profile === 'portable' ? [] : ['--profile', profile])).url)
        const at = received.length
        const exact = await client.call(
          'Echo',
          '{"i64":9007199254740993,"u64":18446744073709551615,"s64":-9223372036854775808,"f64":12345678901234567891,"list":[9007199254740993,1e18],"labels":{"a":9223372036854775807}}',
        )
        expect(exact.result?.isError, `${profile}: ${textOf(exact)}`).toBe(false)
        const got = received.slice(at)
        expect(got, profile).toHaveLength(1)
        expect(got[0], profile).toMatchObject({
          i64: '9007199254740993',
          u64: '18446744073709551615',
          s64: '-9223372036854775808',
          f64: '12345678901234567891',
          list: ['9007199254740993', '1000000000000000000'],
        })
        expect((got[0]!.labels as Record<string, string>).a, profile).toBe('9223372036854775807')
        // One past the largest int64: the number as sent, not a string the client never wrote.
        const past = await client.call('Echo', '{"i64":9223372036854775808}')
        expect(textOf(past), profile).toBe('decoding arguments: i64: out of range for int64: 9223372036854775808')
        expect(received, profile).toHaveLength(at + 1)
      }
    },
  )

  it('a 2026-07-28 call (the HTTP fast path) reads a number past 2^53 as the client wrote it too', { timeout: 120_000 }, async () => {
    const { url } = await gateway()
    const at = received.length
    const meta =
      '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}'
    const body = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Echo","arguments":{"i64":9007199254740993,"u64":18446744073709551615},"_meta":${meta}}}`
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'Echo',
    }
    const response = await fetch(url, { method: 'POST', headers, body })
    const reply = replyOf(await response.text(), 7)
    expect(reply?.result?.isError, JSON.stringify(reply)).toBe(false)
    expect(received.slice(at)).toMatchObject([{ i64: '9007199254740993', u64: '18446744073709551615' }])
  })

  it('a call that fails is a line on stderr, and a flood of them is throttled', { timeout: 120_000 }, async () => {
    // Nothing listens on port 1: every call is Unavailable.
    const running = await gateway(['--deadline', '5000'], '127.0.0.1:1')
    const client = await session(running.url)
    const replies = await Promise.all(Array.from({ length: 30 }, () => client.call('Unary', '{"size":1}')))
    for (const reply of replies) expect(textOf(reply)).toMatch(/^rpc error: code = Unavailable desc = /)
    // grpc-js ends these texts with an empty "Resolution note: "; it goes.
    for (const reply of replies) expect(textOf(reply)).not.toMatch(/Resolution note: $/)
    const lines = running
      .stderr()
      .split('\n')
      .filter((line) => line.includes('call to tool "Unary" failed: rpc error: code = Unavailable'))
    expect(lines.length).toBeGreaterThan(0)
    // At most ten lines of a kind in ten seconds; the rest are told in one line when the window ends.
    expect(lines.length).toBeLessThanOrEqual(10)
  })
})

/** `proto-mcp serve bigdata.proto` over stdio, written to and read line by line. */
function stdioGateway(args: string[] = []) {
  const child = spawn(process.execPath, [cli, 'serve', BIGDATA_PROTO, '--grpc', backend.address, ...DEADLINE, ...args], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'pipe'],
  }) as ChildProcessWithoutNullStreams
  let buffer = ''
  const replies = new Map<unknown, Reply>()
  const waiting = new Map<unknown, (reply: Reply) => void>()
  child.stdout.setEncoding('utf8')
  child.stdout.on('data', (chunk: string) => {
    buffer += chunk
    for (let end = buffer.indexOf('\n'); end >= 0; end = buffer.indexOf('\n')) {
      const message = JSON.parse(buffer.slice(0, end)) as Reply
      buffer = buffer.slice(end + 1)
      if (waiting.has(message.id)) waiting.get(message.id)!(message)
      else replies.set(message.id, message)
    }
  })
  let stderr = ''
  child.stderr.on('data', (chunk) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    exited,
    stderr: () => stderr,
    write: (line: string) => child.stdin.write(`${line}\n`),
    reply: (id: unknown): Promise<Reply> =>
      replies.has(id)
        ? Promise.resolve(replies.get(id)!)
        : new Promise((resolve, reject) => {
            waiting.set(id, resolve)
            exited.then((code) => reject(new Error(`exited with ${code} before answering ${String(id)}: ${stderr}`)))
          }),
  }
}

const STDIO_INITIALIZE = INITIALIZE.replace('"id":1', '"id":"init"')

describe('the stdio gateway', () => {
  it(
    'a line past the limit or not JSON is answered with its id and the server goes on; a base64 argument of 4.9 M characters is served',
    { timeout: 180_000 },
    async () => {
      const gateway = stdioGateway()
      gateway.write(STDIO_INITIALIZE)
      await gateway.reply('init')
      gateway.write('{"jsonrpc":"2.0","method":"notifications/initialized"}')
      // 11 MiB, past the 10 MiB default; the id last, where the SDK's client writes it.
      gateway.write(
        `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"Echo","arguments":{"data":"${'A'.repeat(11 * MiB)}"}},"id":7}`,
      )
      expect(await gateway.reply(7)).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32000, message: 'message too large: a stdio line may be at most 10485760 bytes' },
      })
      gateway.write('{"jsonrpc":"2.0","id":8,"method":"tools/list","params":')
      expect((await gateway.reply(8)).error).toEqual({ code: -32700, message: 'Parse error: the line is not valid JSON' })
      // 3.5 MiB of bytes (under the backend's 4 MiB), 4.9 M characters of base64: past the 4.47 M where the regular expressions overflowed.
      const data = Buffer.alloc(3.5 * MiB, 3).toString('base64')
      gateway.write(JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'Echo', arguments: { data } } }))
      const echoed = await gateway.reply(9)
      expect(echoed.result?.isError, textOf(echoed)).toBe(false)
      expect(echoed.result!.structuredContent.data).toBe(data)
      // A number past 2^53 is read as the line wrote it.
      const at = received.length
      gateway.write('{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"Echo","arguments":{"u64":9007199254740993}}}')
      expect((await gateway.reply(10)).result?.isError).toBe(false)
      expect(received.slice(at)).toMatchObject([{ u64: '9007199254740993' }])
      gateway.child.stdin.end()
      expect(await gateway.exited).toBe(0)
    },
  )

  it('--max-line sets the limit; a broken stdout ends the server with exit code 1', { timeout: 120_000 }, async () => {
    const gateway = stdioGateway(['--max-line', '65536'])
    gateway.write(STDIO_INITIALIZE)
    await gateway.reply('init')
    gateway.write(
      `{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"Echo","arguments":{"data":"${'A'.repeat(70_000)}"}}}`,
    )
    expect((await gateway.reply('big')).error).toEqual({
      code: -32000,
      message: 'message too large: a stdio line may be at most 65536 bytes',
    })
    // The client goes away without closing stdin: the next answer cannot be written.
    gateway.child.stdout.destroy()
    gateway.write('{"jsonrpc":"2.0","id":11,"method":"tools/list"}')
    expect(await gateway.exited).toBe(1)
    expect(gateway.stderr()).toMatch(/proto-mcp: stdio failed: .*EPIPE/)
  })
})

describe('in process', () => {
  const servers = new Map<Profile, ReturnType<typeof createProtoServer>>()
  const calls: unknown[] = []
  const serverFor = (profile: Profile) => {
    if (!servers.has(profile)) {
      const server = createProtoServer(specFromProto(BIGDATA_PROTO, { profile }))
      server.implement('BigDataService', {
        Echo: (request: unknown) => (calls.push(request), request),
        Unary: (request: { size: number }) => ({ data: Buffer.alloc(request.size, 9) }),
      })
      servers.set(profile, server)
    }
    return servers.get(profile)!
  }

  it('a number past 2^53 given as a JavaScript number is refused in every profile, with the fix; the backend is not called', async () => {
    for (const profile of ['portable', 'strict', 'full', 'topeka'] as const) {
      const before = calls.length
      const result = await serverFor(profile).call('Echo', { i64: 2 ** 53 + 2 })
      expect(text(result), profile).toBe(
        'decoding arguments: i64: 9007199254740994 is beyond ±2^53 as a JSON number, where numbers lose digits: send 64-bit integers as decimal strings',
      )
      const listed = await serverFor(profile).call('Echo', { list: ['1', 2 ** 60] })
      expect(text(listed), profile).toMatch(/^decoding arguments: list\[1\]: 1152921504606846976 is beyond ±2\^53/)
      expect(calls, profile).toHaveLength(before)
    }
  })

  it('topeka reads 64-bit strings with an exponent or a fraction exactly, or refuses them', async () => {
    const server = serverFor('topeka')
    const cases: Array<[string, string]> = [
      ['1e3', '1000'],
      ['1.5e1', '15'],
      ['9007199254740993.0', '9007199254740993'],
      ['-92233720368547758.08e2', '-9223372036854775808'],
    ]
    for (const [sent, read] of cases) {
      const before = calls.length
      expect(await server.call('Echo', { i64: sent }), sent).toMatchObject({ isError: false })
      expect(calls.slice(before), sent).toEqual([{ i64: read }])
    }
    expect(text(await server.call('Echo', { i64: '123456789012345678901e-3' }))).toBe(
      'decoding arguments: i64: not an integer: "123456789012345678901e-3"',
    )
    expect(text(await server.call('Echo', { u64: '1.8446744073709551616e19' }))).toBe(
      'decoding arguments: u64: out of range for uint64: "1.8446744073709551616e19"',
    )
  })

  it('over fetch(), a number past 2^53 is read as the request body wrote it', async () => {
    const server = serverFor('portable')
    const before = calls.length
    const body = '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"Echo","arguments":{"i64":-9007199254740993}}}'
    const response = await server.fetch(new Request('http://localhost/mcp', { method: 'POST', headers: HEADERS, body }))
    const reply = replyOf(await response.text(), 3)!
    expect(reply.result?.isError, textOf(reply)).toBe(false)
    expect(calls.slice(before)).toEqual([{ i64: '-9007199254740993' }])
  })

  it('a Struct nested 10 000 deep says so in every profile (strict listed every property it had still to fill)', async () => {
    let deep: Record<string, unknown> = { leaf: 1 }
    for (let i = 0; i < 10_000; i++) deep = { a: deep }
    for (const profile of ['strict', 'portable', 'full', 'topeka'] as const)
      expect(text(await serverFor(profile).call('Echo', { meta: deep })), profile).toBe('decoding arguments: meta: max depth exceeded')
  })

  it('a map given twice the same key is refused, as Go does, not taken last-wins', async () => {
    const result = await serverFor('portable').call('Echo', {
      labels: [
        { key: 'a', value: '1' },
        { key: 'a', value: '2' },
      ],
    })
    expect(text(result)).toBe('decoding arguments: labels: duplicate map key "a"')
  })

  it('a bytes reply of 3.4 MiB and a bytes argument of 8 M base64 characters pass in every profile', async () => {
    const data = Buffer.alloc(6 * MiB, 5).toString('base64')
    for (const profile of ['portable', 'full', 'topeka'] as const) {
      const reply = await serverFor(profile).call('Unary', { size: Math.floor(3.4 * MiB) })
      expect(reply.isError, `${profile}: ${text(reply).slice(0, 200)}`).toBe(false)
      const echoed = await serverFor(profile).call('Echo', { data })
      expect(echoed.isError, `${profile}: ${text(echoed).slice(0, 200)}`).toBe(false)
      expect(text(echoed)).toBe(`{"data":"${data}"}`)
    }
    // Malformed, it is refused with a short text: its start and its length, not 8 M characters.
    const bad = await serverFor('full').call('Echo', { data: `QQ=A${data}` })
    expect(text(bad)).toBe(`decoding arguments: data: invalid base64: "QQ=A${data.slice(0, 60)}"... (8388612 characters)`)
  })

  it(
    'a hand-written result no transport could write is a tool error, over HTTP and stdio, and a log line',
    { timeout: 60_000 },
    async () => {
      const lines: string[] = []
      const server = Server.builder('unsendable')
        .logging({ logger: { warn: (line) => lines.push(line), error: (line) => lines.push(line) } })
        .tool({ name: 'Big', inputSchema: { type: 'object' } }, () => ({
          content: [{ type: 'text', text: 'n' }],
          structuredContent: { n: 1n },
        }))
        .build()
      const expected = 'the result could not be sent: Do not know how to serialize a BigInt'
      const http = await server.serveHttp({ port: 0 })
      try {
        const reply = await (await session(http.url)).call('Big', '{}', 10_000)
        expect(reply.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expected }] })
      } finally {
        await http.close()
      }
      const stdin = new PassThrough()
      const stdout = new PassThrough()
      let out = ''
      stdout.on('data', (chunk) => (out += chunk))
      const serving = server.serveStdio({ stdin, stdout })
      stdin.write(`${STDIO_INITIALIZE}\n`)
      stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
      stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"Big","arguments":{}}}\n')
      await expect.poll(() => out.split('\n').filter(Boolean).length, { timeout: 10_000 }).toBe(2)
      expect(replyOf(out.split('\n')[1]!, 2)?.result).toMatchObject({ isError: true, content: [{ text: expected }] })
      stdin.end()
      await serving
      expect(lines.filter((line) => line === `unsendable: call to tool "Big" failed: ${expected}`)).toHaveLength(2)
    },
  )
})
