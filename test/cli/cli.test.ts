import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { dirname, join } from 'node:path'
import * as grpcJs from '@grpc/grpc-js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../proto/compile.ts'
import { COUNTER_PROTO, counterService, startGrpcServer, vibeService, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { progressBeforeResult, recordWire } from '../grpc/stream-transport.ts'
import { buildCli, REPO, runCli } from './run-cli.ts'

let cli: string
let grpcServer: GrpcTestServer
const vibe = vibeService({
  GetVibe: (call: grpcJs.ServerUnaryCall<unknown, unknown>, callback: grpcJs.sendUnaryData<unknown>) => {
    if (call.metadata.get('authorization')[0] === 'Bearer lost') callback({ code: grpcJs.status.NOT_FOUND, details: 'vibe not found' })
    else callback(null, { vibe: `seen ${String(call.metadata.get('authorization')[0] ?? 'nobody')}` })
  },
})

beforeAll(async () => {
  cli = await buildCli()
  grpcServer = await startGrpcServer([vibe])
}, 180_000)
afterAll(async () => {
  await grpcServer?.stop()
  if (cli) rmSync(dirname(cli), { recursive: true, force: true })
})

const text = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text

/** A v2 client on `proto-mcp serve <args>` over stdio. */
async function stdioClient(args: string[]): Promise<{ client: Client; stderr: () => string; wire: unknown[] }> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve', ...args], cwd: REPO, stderr: 'pipe' })
  let err = ''
  transport.stderr?.on('data', (chunk: Buffer) => { err += chunk.toString() })
  const client = new Client({ name: 'cli-test', version: '1.0.0' })
  await client.connect(transport)
  return { client, stderr: () => err, wire: recordWire(transport) }
}

describe('proto-mcp serve over stdio, forwarding to a real grpc-js server', () => {
  it('serves the Topeka tools and forwards every call', async () => {
    const { client, stderr } = await stdioClient(['fixtures/topeka/example.proto', '--grpc', grpcServer.address])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects'])
      expect(tools[0]!.outputSchema).toBeDefined()
      const before = vibe.received.length
      const result = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'radical' } })
      expect(result).toMatchObject({ isError: false, structuredContent: { previousVibe: 'chill', vibe: 'radical' } })
      expect(text(result)).toBe('{"previousVibe":"chill","vibe":"radical"}')
      expect(vibe.received.slice(before).map((c) => c.request)).toEqual([{ vibe: 'radical' }])
      const invalid = await client.callTool({ name: 'SetVibe', arguments: { vibe: 5 } })
      expect(text(invalid)).toBe('invalid arguments: /vibe: 5 is not of type "string"')
      expect(stderr()).toContain(`proto-mcp: serving 5 tools from fixtures/topeka/example.proto, forwarding to ${grpcServer.address} over stdio`)
    } finally {
      await client.close()
    }
  })

  it('--profile topeka gives no outputSchema; a backend that is down answers Unavailable', async () => {
    const down = await startGrpcServer([vibeService()])
    await down.stop()
    const { client } = await stdioClient([EXAMPLE_PROTO, '--grpc', down.address, '--profile', 'topeka', '--deadline', '2000'])
    try {
      const { tools } = await client.listTools()
      expect(tools.every((t) => t.outputSchema === undefined)).toBe(true)
      expect(text(await client.callTool({ name: 'GetVibe', arguments: {} }))).toMatch(/^rpc error: code = Unavailable desc = /)
    } finally {
      await client.close()
    }
  })

  it('server-streaming RPCs: progress per message through the gateway, then {"messages":[...]}', async () => {
    const counter = await startGrpcServer([counterService()])
    const { client, wire } = await stdioClient([COUNTER_PROTO, '--grpc', counter.address])
    try {
      const result = await client.callTool({ name: 'Count', arguments: { to: 3, label: 'c' } }, { onprogress: () => {} })
      const messages = [1, 2, 3].map((n) => ({ n, label: 'c', big: String(2n ** 60n + BigInt(n)) }))
      expect(result.structuredContent).toEqual({ messages })
      expect(progressBeforeResult(wire)).toEqual(messages.map((m, i) => [i + 1, JSON.stringify(m)]))
    } finally {
      await client.close()
      await counter.stop()
    }
  })

  it('-I adds import paths (repeatable)', async () => {
    const dir = writeProtos({
      'lib/a/common.proto': 'syntax = "proto3";\npackage lib;\nmessage Word { string text = 1; }\n',
      'lib/b/extra.proto': 'syntax = "proto3";\npackage extra;\nmessage Count { int32 n = 1; }\n',
      'api.proto': 'syntax = "proto3";\npackage api;\nimport "common.proto";\nimport "extra.proto";\nservice Api { rpc Say(lib.Word) returns (extra.Count); }\n',
    })
    const { client } = await stdioClient([join(dir, 'api.proto'), '--grpc', grpcServer.address, '-I', join(dir, 'lib/a'), '--import-path', join(dir, 'lib/b')])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => [t.name, t.inputSchema.properties])).toEqual([['Say', { text: { type: 'string' } }]])
    } finally {
      await client.close()
    }
  })
})

describe('proto-mcp serve --http', () => {
  it('serves Streamable HTTP and forwards the authorization header as metadata', async () => {
    const child = spawn(process.execPath, [cli, 'serve', EXAMPLE_PROTO, '--grpc', grpcServer.address, '--http', '0'], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString() })
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
        const match = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(stderr)
        if (match) resolve(match[1]!)
      })
      child.on('exit', (code) => reject(new Error(`exited with ${code}: ${stderr}`)))
    })
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
    const clients: Client[] = []
    try {
      for (const token of ['Bearer friend', 'Bearer lost']) {
        const client = new Client({ name: 'cli-http', version: '1.0.0' })
        clients.push(client)
        await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: token } } }))
      }
      expect(text(await clients[0]!.callTool({ name: 'GetVibe', arguments: {} }))).toBe('{"vibe":"seen Bearer friend"}')
      expect(text(await clients[1]!.callTool({ name: 'GetVibe', arguments: {} }))).toBe('rpc error: code = NotFound desc = vibe not found')
    } finally {
      for (const client of clients) await client.close()
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
    expect(stdout).toBe('')
  })
})

describe('proto-mcp: help and failures', () => {
  it('--help documents every flag and exits 0', async () => {
    const run = await runCli(cli, ['--help'])
    expect(run.code).toBe(0)
    for (const flag of ['serve <file.proto>', '--grpc <target>', '--http <port>', '--host <address>', '-I, --import-path <dir>', '--profile <name>', '--deadline <ms>', '--forward-header <name>', '-h, --help', '-v, --version']) {
      expect(run.stdout).toContain(flag)
    }
    expect(run.stderr).toBe('')
  })

  const failures: Array<[string, string[], number, RegExp]> = [
    ['a bad flag', ['serve', 'x.proto', '--grpc', 'a:1', '--bogus'], 2, /^proto-mcp: unknown option '--bogus'$/],
    ['a bad --http', ['serve', 'x.proto', '--grpc', 'a:1', '--http', 'eighty'], 2, /^proto-mcp: --http must be an integer from 0 to 65535, got "eighty"$/],
    ['no --grpc', ['serve', 'fixtures/topeka/example.proto'], 2, /^proto-mcp: --grpc <target> is required/],
    ['an unknown command', ['run', 'x.proto'], 2, /^proto-mcp: unknown command "run"/],
    ['an unreadable proto', ['serve', 'missing/nope.proto', '--grpc', 'a:1'], 1, /^proto-mcp: cannot read ".*missing\/nope\.proto": ENOENT/],
  ]
  for (const [what, args, code, line] of failures) {
    it(`${what} exits ${code} with a one-line reason`, async () => {
      const run = await runCli(cli, args)
      expect(run.code).toBe(code)
      expect(run.stderr.endsWith('\n')).toBe(true)
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(run.stderr.trimEnd()).toMatch(line)
      expect(run.stdout).toBe('')
    })
  }

  it('an invalid proto exits 1 with the file and line in one line', async () => {
    const dir = writeProtos({ 'bad.proto': 'syntax = "proto3";\npackage bad;\nmessage M {\n  string a = ;\n}\n' })
    const run = await runCli(cli, ['serve', join(dir, 'bad.proto'), '--grpc', 'a:1'])
    expect(run.code).toBe(1)
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(run.stderr).toMatch(/^proto-mcp: cannot parse ".*bad\.proto": .*\(line 4\)\n$/)
  })

  it('--version prints the package version', async () => {
    const run = await runCli(cli, ['--version'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
  })
})
