/**
 * `proto-mcp serve --grpc <target> --reflect`: the built command against real
 * grpc-js servers answering server reflection (@grpc/reflection), driven by
 * real MCP clients over stdio and HTTP; re-discovery after a backend deploy;
 * the failures as one line and exit code 1.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import type * as grpcJs from '@grpc/grpc-js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { CLIENTS, connectStdio } from '../bundlers/mcp-clients.ts'
import { bufBuild } from '../helpers/descriptor-set.ts'
import { serviceDefinition, startGrpcServer, vibeService, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { startReflectionServer, type ReflectionTestServer } from '../reflection/reflection-server.ts'
import { text } from '../helpers/result.ts'
import { builtCli, runCli, serveClient, startCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

const TOPEKA = 'fixtures/topeka/example.proto'

let cli: string
let reflecting: ReflectionTestServer
let plain: GrpcTestServer
const vibe = vibeService()

beforeAll(async () => {
  cli = builtCli()
  reflecting = await startReflectionServer([vibe], { files: bufBuild('fixtures/topeka', 'example.proto') })
  plain = await startGrpcServer([vibeService()])
}, 180_000)
afterAll(async () => {
  await reflecting?.stop()
  await plain?.stop()
})

/** A v2 client on `proto-mcp serve <args>` over stdio. */
const stdioClient = (args: string[]) => serveClient(cli, args, 'reflect-test')

describe('proto-mcp serve --reflect', () => {
  it("over stdio: tools/list equals the file-based gateway's, and calls are forwarded", async () => {
    const reflected = await stdioClient(['--grpc', reflecting.address, '--reflect'])
    const file = await stdioClient([TOPEKA, '--grpc', reflecting.address])
    try {
      const tools = await reflected.client.listTools()
      expect(JSON.stringify(tools)).toBe(JSON.stringify(await file.client.listTools()))
      expect(tools.tools.map((t) => t.name)).toEqual(['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects'])
      const before = vibe.received.length
      const result = await reflected.client.callTool({ name: 'SetVibe', arguments: { vibe: 'reflected' } })
      expect(result).toMatchObject({ isError: false, structuredContent: { vibe: 'reflected' } })
      expect(vibe.received.slice(before).map((c) => c.request)).toEqual([{ vibe: 'reflected' }])
      expect(text(await reflected.client.callTool({ name: 'SetVibe', arguments: { vibe: 5 } }))).toBe(
        'invalid arguments: /vibe: 5 is not of type "string"',
      )
      expect(reflected.stderr()).toMatch(/^proto-mcp: built 5 tools in \d+ ms \(\d+ ms with discovery\)$/m)
      expect(reflected.stderr()).toContain(
        `proto-mcp: serving 5 tools from service examples.v1.VibeService (reflection), forwarding to ${reflecting.address} over stdio`,
      )
    } finally {
      await reflected.client.close()
      await file.client.close()
    }
  })

  for (const flavour of CLIENTS) {
    it(`over stdio with ${flavour}: lists and calls the reflected tools`, async () => {
      const session = await connectStdio(flavour, cli, ['serve', '--grpc', reflecting.address, '--reflect', '--service', 'VibeService'])
      try {
        expect((await session.listTools()).tools.map((t) => t.name)).toContain('SetVibeArray')
        const result = await session.callTool('SetVibe', { vibe: flavour })
        expect(result.isError).toBe(false)
        expect(text(result)).toContain(`"vibe":"${flavour}"`)
        if (flavour === 'sdk-v2-2026') expect(session.protocolVersion()).toBe('2026-07-28')
      } finally {
        await session.close()
      }
    })
  }

  it("--include-method and --exclude-method choose the reflected RPCs as they choose a .proto's", async () => {
    const { client } = await stdioClient([
      '--grpc',
      reflecting.address,
      '--reflect',
      '--include-method',
      'examples.v1.VibeService.*Vibe*',
      '--exclude-method',
      'examples.v1.VibeService.Set*',
    ])
    try {
      const names = (await client.listTools()).tools.map((t) => t.name)
      expect(names.length).toBeGreaterThan(0)
      expect(names.filter((n) => !(n.includes('Vibe') && !n.startsWith('Set')))).toEqual([])
      expect(names).toContain('GetVibe')
    } finally {
      await client.close()
    }
  })

  it('over HTTP, with --service and --profile: the tools of that service, forwarded', async () => {
    const running = await startCli(cli, [
      'serve',
      '--grpc',
      reflecting.address,
      '--reflect',
      '--service',
      'examples.v1.VibeService',
      '--profile',
      'full',
      '--http',
      '0',
    ])
    const { child } = running
    const url = running.url
    const exited = running.exited
    const client = new Client({ name: 'reflect-http', version: '1.0.0' })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      expect((await client.listTools()).tools).toHaveLength(5)
      await client.callTool({ name: 'SetVibe', arguments: { vibe: 'over http' } })
      expect(text(await client.callTool({ name: 'GetVibe', arguments: {} }))).toBe('{"vibe":"over http"}')
    } finally {
      await client.close()
      child.kill('SIGTERM')
    }
    expect(await exited).toBe(0)
  })

  /** A free port on 127.0.0.1. */
  async function freePort(): Promise<number> {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    return port
  }

  /**
   * A backend on `port` that can be redeployed: `deploy()` stops it and
   * starts the Topeka VibeService again with an extra RPC, `SayHello`.
   */
  async function deployable(port: number): Promise<{ deploy(): Promise<void>; stop(): Promise<void> }> {
    let backend = await startReflectionServer([vibeService()], { files: bufBuild('fixtures/topeka', 'example.proto') }, port)
    mkdirSync(join(REPO, '.tmp'), { recursive: true })
    const dir = mkdtempSync(join(REPO, '.tmp', 'deploy-'))
    cpSync(join(REPO, TOPEKA), join(dir, 'example.proto'))
    const source = readFileSync(join(dir, 'example.proto'), 'utf8')
    const extended = source.replace(
      /service VibeService \{/,
      'service VibeService {\n  // Says hello, added by the deploy.\n  rpc SayHello(GetVibeRequest) returns (GetVibeResponse);',
    )
    expect(extended).not.toBe(source)
    writeFileSync(join(dir, 'example.proto'), extended)
    return {
      deploy: async () => {
        await backend.stop()
        const next = vibeService({
          SayHello: (_call: grpcJs.ServerUnaryCall<unknown, unknown>, done: grpcJs.sendUnaryData<unknown>) =>
            done(null, { vibe: 'hello from the deploy' }),
        })
        backend = await startReflectionServer(
          [{ definition: serviceDefinition(join(dir, 'example.proto'), 'examples.v1.VibeService'), impl: next.impl }],
          { files: bufBuild(dir, 'example.proto') },
          port,
        )
      },
      stop: async () => {
        await backend.stop()
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }

  it('re-discovery: the backend restarts with an extra RPC; a stdio client hears list_changed and calls it', async () => {
    const port = await freePort()
    const backend = await deployable(port)
    const { client, stderr } = await stdioClient(['--grpc', `127.0.0.1:${port}`, '--reflect', '--watch-interval', '1'])
    let changed = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++
    })
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('SayHello')
      await backend.deploy()
      await vi.waitFor(() => expect(changed).toBeGreaterThan(0), { timeout: 30_000, interval: 100 })
      const tools = (await client.listTools()).tools
      expect(tools.find((t) => t.name === 'SayHello')?.description).toBe('Says hello, added by the deploy.')
      expect(text(await client.callTool({ name: 'SayHello', arguments: {} }))).toBe('{"vibe":"hello from the deploy"}')
      expect(stderr()).toContain("proto-mcp: the gRPC server's descriptors changed: now serving 6 tools")
    } finally {
      await client.close()
      await backend.stop()
    }
  }, 60_000)

  it('re-discovery over HTTP: an initialize-era session hears list_changed on its stream', async () => {
    const port = await freePort()
    const backend = await deployable(port)
    const running = await startCli(cli, ['serve', '--grpc', `127.0.0.1:${port}`, '--reflect', '--watch-interval', '1', '--http', '0'])
    const { child } = running
    const url = running.url
    const client = new Client({ name: 'reflect-http-watch', version: '1.0.0' })
    let changed = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++
    })
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      expect((await client.listTools()).tools).toHaveLength(5)
      await backend.deploy()
      await vi.waitFor(() => expect(changed).toBeGreaterThan(0), { timeout: 30_000, interval: 100 })
      expect(text(await client.callTool({ name: 'SayHello', arguments: {} }))).toBe('{"vibe":"hello from the deploy"}')
    } finally {
      await client.close()
      child.kill('SIGTERM')
      await backend.stop()
    }
  }, 60_000)
})

describe('proto-mcp serve --reflect: failures', () => {
  const expectOneLine = (run: { code: number | null; stderr: string; stdout: string }, code: number, line: RegExp): void => {
    expect(run.code).toBe(code)
    expect(run.stderr.endsWith('\n')).toBe(true)
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(run.stderr.trimEnd()).toMatch(line)
    expect(run.stdout).toBe('')
  }

  it('a server without reflection exits 1 with a one-line reason', async () => {
    const run = await runCli(cli, ['serve', '--grpc', plain.address, '--reflect'])
    expectOneLine(
      run,
      1,
      new RegExp(
        `^proto-mcp: the gRPC server at ${plain.address} does not offer server reflection \\(grpc\\.reflection\\.v1 or v1alpha\\)$`,
      ),
    )
  })

  it('a target that is down exits 1 with a one-line reason', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const run = await runCli(cli, ['serve', '--grpc', `127.0.0.1:${port}`, '--reflect'])
    expectOneLine(run, 1, new RegExp(`^proto-mcp: cannot reach the gRPC server at 127\\.0\\.0\\.1:${port}: .+`))
  })

  it('an unknown --service exits 1 naming the services there are', async () => {
    const run = await runCli(cli, ['serve', '--grpc', reflecting.address, '--reflect', '--service', 'NopeService'])
    expectOneLine(
      run,
      1,
      new RegExp(
        `^proto-mcp: service "NopeService" is not offered by the gRPC server at ${reflecting.address} \\(it offers examples\\.v1\\.VibeService\\)$`,
      ),
    )
  })

  const usage: Array<[string, string[], RegExp]> = [
    [
      'a file with --reflect',
      ['serve', TOPEKA, '--grpc', 'a:1', '--reflect'],
      /^proto-mcp: unexpected argument ".*example\.proto": --reflect reads no \.proto file$/,
    ],
    ['--service without --reflect', ['serve', TOPEKA, '--grpc', 'a:1', '--service', 'X'], /^proto-mcp: --service needs --reflect/],
    [
      '--watch-interval without --reflect',
      ['serve', TOPEKA, '--grpc', 'a:1', '--watch-interval', '5'],
      /^proto-mcp: --watch-interval needs --reflect/,
    ],
    [
      'a bad --watch-interval',
      ['serve', '--grpc', 'a:1', '--reflect', '--watch-interval', '0'],
      /^proto-mcp: --watch-interval must be an integer from 1 to 86400, got "0"$/,
    ],
    ['neither a file nor --reflect', ['serve', '--grpc', 'a:1'], /^proto-mcp: serve needs a \.proto file or --reflect/],
  ]
  for (const [what, args, line] of usage) {
    it(`${what} is a usage error (exit 2)`, async () => {
      expectOneLine(await runCli(cli, args), 2, line)
    })
  }
})
