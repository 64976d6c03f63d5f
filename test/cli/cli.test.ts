import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import * as grpcJs from '@grpc/grpc-js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { COUNTER_PROTO, counterService, startGrpcServer, vibeService, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { progressBeforeResult, recordWire } from '../grpc/stream-transport.ts'
import { CLI_OPTIONS } from '../../src/cli/args.ts'
import { text } from '../helpers/result.ts'
import { builtCli, runCli, serveClient, startCli } from '../helpers/cli.ts'

let cli: string
let grpcServer: GrpcTestServer
const vibe = vibeService({
  GetVibe: (call: grpcJs.ServerUnaryCall<unknown, unknown>, callback: grpcJs.sendUnaryData<unknown>) => {
    if (call.metadata.get('authorization')[0] === 'Bearer lost') callback({ code: grpcJs.status.NOT_FOUND, details: 'vibe not found' })
    else callback(null, { vibe: `seen ${String(call.metadata.get('authorization')[0] ?? 'nobody')}` })
  },
})

beforeAll(async () => {
  cli = builtCli()
  grpcServer = await startGrpcServer([vibe])
}, 180_000)
afterAll(async () => {
  await grpcServer?.stop()
})

/** A v2 client on `proto-mcp serve <args>` over stdio. */
async function stdioClient(args: string[]): Promise<{ client: Client; stderr: () => string; wire: unknown[] }> {
  const { client, transport, stderr } = await serveClient(cli, args, 'cli-test')
  return { client, stderr, wire: recordWire(transport) }
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
      expect(stderr()).toContain(
        `proto-mcp: serving 5 tools from fixtures/topeka/example.proto, forwarding to ${grpcServer.address} over stdio`,
      )
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
      expect(tools.filter((t) => t.outputSchema !== undefined)).toEqual([])
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
      'api.proto':
        'syntax = "proto3";\npackage api;\nimport "common.proto";\nimport "extra.proto";\nservice Api { rpc Say(lib.Word) returns (extra.Count); }\n',
    })
    const { client } = await stdioClient([
      join(dir, 'api.proto'),
      '--grpc',
      grpcServer.address,
      '-I',
      join(dir, 'lib/a'),
      '--import-path',
      join(dir, 'lib/b'),
    ])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => [t.name, t.inputSchema.properties])).toEqual([['Say', { text: { type: 'string' } }]])
    } finally {
      await client.close()
    }
  })
})

describe('proto-mcp serve: naming and the verbose report', () => {
  const TWO_SERVICES =
    'syntax = "proto3";\npackage two.v1;\nmessage M { string s = 1; }\nservice A { rpc Ping(M) returns (M); }\nservice B { rpc Ping(M) returns (M); }\n'

  it('--shorten-tool-names and --tool-name-budget: the budget warning names the flag, and the flag shortens', async () => {
    const LONG =
      'syntax = "proto3";\npackage long.v1;\nmessage M { string s = 1; }\nservice A { rpc ReadTheWholeInventoryOfEveryWarehouseInTheRegion(M) returns (M); }\n'
    const dir = writeProtos({ 'long.proto': LONG })
    const file = join(dir, 'long.proto')
    const plain = await runCli(cli, ['serve', file, '--grpc', grpcServer.address, '--tool-name-budget', '40'])
    expect(plain.stderr).toMatch(
      /^proto-mcp: warning: server "long" \+ tool "ReadTheWholeInventoryOfEveryWarehouseInTheRegion" is 52 characters, over the name budget of 40: .*\(pass --shorten-tool-names, a shorter --tool-names, or set \(proto_mcp\.tool\)\.name\)$/m,
    )
    const { client, stderr } = await stdioClient([file, '--grpc', grpcServer.address, '--tool-name-budget', '40', '--shorten-tool-names'])
    try {
      const [tool] = (await client.listTools()).tools
      expect(tool!.name.length).toBe(40 - 'long'.length)
      expect(tool!.name.endsWith('WarehouseInTheRegion')).toBe(true)
      await vi.waitFor(() => expect(stderr()).toContain('proto-mcp: serving 1 tool'))
      expect(stderr()).not.toContain('over the name budget')
    } finally {
      await client.close()
    }
    const none = await runCli(cli, ['serve', file, '--grpc', grpcServer.address, '--tool-name-budget', '0'])
    expect(none.stderr).toContain('--tool-name-budget')
  })

  it('--tool-names service names tools Service_Method, and the collision warning is gone', async () => {
    const dir = writeProtos({ 'two.proto': TWO_SERVICES })
    const plain = await runCli(cli, ['serve', join(dir, 'two.proto'), '--grpc', grpcServer.address])
    expect(plain.stderr).toMatch(
      /^proto-mcp: warning: tool "Ping" is declared by both two\.v1\.A and two\.v1\.B; .*\(pass --tool-names service or qualified to keep every RPC\)$/m,
    )
    const { client, stderr } = await stdioClient([join(dir, 'two.proto'), '--grpc', grpcServer.address, '--tool-names', 'service'])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['A_Ping', 'B_Ping'])
      await vi.waitFor(() => expect(stderr()).toContain('proto-mcp: serving 2 tools'))
      expect(stderr()).not.toContain('warning')
    } finally {
      await client.close()
    }
  })

  it('--verbose prints the rules the schemas leave out; without it they stay quiet', async () => {
    const dir = writeProtos({
      'cel.proto':
        'syntax = "proto3";\npackage cel.v1;\nimport "buf/validate/validate.proto";\n' +
        'message M { int32 a = 1 [(buf.validate.field).cel = { id: "pos", expression: "this > 0" }]; }\n' +
        'service S { rpc Do(M) returns (M); }\n',
    })
    // stdin is closed at once (runCli ignores it), so the server starts, logs, and ends with stdin.
    const verbose = await runCli(cli, ['serve', join(dir, 'cel.proto'), '--grpc', grpcServer.address, '--verbose'])
    expect(verbose.code).toBe(0)
    expect(verbose.stderr).toContain(
      'proto-mcp: note: cel.v1.M.a: (buf.validate.field).cel is left out of the input schema (a CEL expression)\n',
    )
    const quiet = await runCli(cli, ['serve', join(dir, 'cel.proto'), '--grpc', grpcServer.address])
    expect(quiet.code).toBe(0)
    expect(quiet.stderr).not.toContain('note:')
  })
})

describe('proto-mcp serve: --discovery', () => {
  it('search lists the meta-tools and --verbose says so; call_tool reaches the gRPC server; a bad mode is a usage error', async () => {
    const dir = writeProtos({
      'two.proto': 'syntax = "proto3";\npackage one.v1;\nmessage M { string s = 1; }\nservice A { rpc Ping(M) returns (M); }\n',
    })
    const plain = await runCli(cli, ['serve', join(dir, 'two.proto'), '--grpc', grpcServer.address, '--verbose'])
    expect(plain.stderr).toContain('proto-mcp: note: discovery auto: tools (lists all 1 tool)\n')
    // One server for the verbose note and the calls: the note is printed before it serves.
    const { client, stderr } = await stdioClient([
      join(dir, 'two.proto'),
      '--grpc',
      grpcServer.address,
      '--verbose',
      '--discovery',
      'search',
    ])
    try {
      await vi.waitFor(() => expect(stderr()).toContain('proto-mcp: serving'))
      expect(stderr()).toContain(
        'proto-mcp: note: discovery search: search (lists search_tools, describe_tool, call_tool instead of the 1 tools)\n',
      )
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['search_tools', 'describe_tool', 'call_tool'])
      const found = await client.callTool({ name: 'search_tools', arguments: { query: 'ping' } })
      expect((found.structuredContent as { tools: Array<{ name: string }> }).tools[0]!.name).toBe('Ping')
      const through = await client.callTool({ name: 'call_tool', arguments: { name: 'Ping', arguments: { s: 'x' } } })
      expect(through).toEqual(await client.callTool({ name: 'Ping', arguments: { s: 'x' } }))
    } finally {
      await client.close()
    }
    const bad = await runCli(cli, ['serve', join(dir, 'two.proto'), '--grpc', grpcServer.address, '--discovery', 'some'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--discovery must be one of auto, tools, search, got "some"')
  })
})

describe('proto-mcp serve: RPC selection and the token budget', () => {
  const NESTED =
    'syntax = "proto3";\npackage deep.v1;\n' +
    '// A leaf.\nmessage Leaf { string name = 1; int64 count = 2; string color = 3; string shape = 4; string owner = 5; bool hidden = 6; }\n' +
    'message Mid { Leaf leaf = 1; repeated Leaf leaves = 2; }\n' +
    'message Req { Mid mid = 1; string id = 2; }\n' +
    'service S { rpc GetThing(Req) returns (Req); rpc ListThings(Req) returns (Req); rpc DropThing(Req) returns (Req); }\n'

  it('--include-method/--exclude-method choose the tools; a pattern matching nothing warns, naming it', async () => {
    const dir = writeProtos({ 'deep.proto': NESTED })
    const out = await runCli(cli, [
      'serve',
      join(dir, 'deep.proto'),
      '--grpc',
      grpcServer.address,
      '--include-method',
      'deep.v1.S.*Thing',
      '--exclude-method',
      'deep.v1.S.Drop*',
      '--exclude-method',
      'deep.v1.Nope.*',
      '--verbose',
    ])
    expect(out.code).toBe(0)
    expect(out.stderr).toContain('proto-mcp: warning: methods pattern "deep.v1.Nope.*" matches no RPC')
    expect(out.stderr).toContain('proto-mcp: built 1 tool')
    // The verbose report: each tool's token count and the rule sets that reject it.
    expect(out.stderr).toMatch(/proto-mcp: note: tool "GetThing": \d+ tokens; rejected by openai-strict, anthropic-strict\n/)
  })

  it("--include-method takes a method's own name; a filter leaving no RPC says what to write", async () => {
    const dir = writeProtos({ 'deep.proto': NESTED })
    const short = await runCli(cli, [
      'serve',
      join(dir, 'deep.proto'),
      '--grpc',
      grpcServer.address,
      '--include-method',
      'GetThing',
      '--verbose',
    ])
    expect(short.code).toBe(0)
    expect(short.stderr).toContain('proto-mcp: built 1 tool')
    expect(short.stderr).not.toContain('matches no RPC')
    const none = await runCli(cli, ['serve', join(dir, 'deep.proto'), '--grpc', grpcServer.address, '--include-method', 'deep.v1.S.Nope'])
    expect(none.code).toBe(1)
    expect(none.stderr).toContain("is left to serve after --include-method/--exclude-method: write a method's name (GetDocument)")
    expect(none.stderr).not.toContain('this server has no services')
  })

  it('--tool-token-budget cuts nested messages; the describe_type tool gives their schemas and a deep call validates whole', async () => {
    const dir = writeProtos({ 'deep.proto': NESTED })
    const { client } = await stdioClient([join(dir, 'deep.proto'), '--grpc', grpcServer.address, '--tool-token-budget', '100'])
    try {
      const { tools } = await client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['GetThing', 'ListThings', 'DropThing', 'describe_type'])
      const mid = (tools[0]!.inputSchema as unknown as { properties: Record<string, { properties: Record<string, unknown> }> }).properties
        .mid!
      // Mid fits the budget; its Leaf fields do not: placeholders, the field's comment kept.
      expect(mid.properties.leaf).toEqual({ type: 'string', description: 'A leaf. (JSON text of deep.v1.Leaf; schema: describe_type)' })
      const answer = await client.callTool({ name: 'describe_type', arguments: { type: 'deep.v1.Leaf' } })
      expect(JSON.parse(text(answer))).toMatchObject({
        type: 'deep.v1.Leaf',
        schema: { type: 'object', properties: { owner: { type: 'string' } } },
      })
      const bad = await client.callTool({ name: 'GetThing', arguments: { mid: { leaf: { name: 5 } } } })
      expect(text(bad)).toBe(
        'invalid arguments: /mid/leaf/name: 5 is not of type "string" (/mid/leaf is deep.v1.Leaf; schema: describe_type)',
      )
      const good = await client.callTool({ name: 'GetThing', arguments: { mid: { leaf: { name: 'n', count: 3 } } } })
      // Valid whole: it reaches the gRPC server (which has no deep.v1.S).
      expect(text(good)).toMatch(/^rpc error: code = Unimplemented/)
    } finally {
      await client.close()
    }
  })
})

describe('proto-mcp serve --http', () => {
  it('serves Streamable HTTP and forwards the authorization header as metadata', async () => {
    const running = await startCli(cli, ['serve', EXAMPLE_PROTO, '--grpc', grpcServer.address, '--http', '0'])
    const { child, url, exited } = running
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
    expect(running.stdout()).toBe('')
  })
})

describe('proto-mcp: help and failures', () => {
  it('--help documents every flag the parser accepts and exits 0', async () => {
    const run = await runCli(cli, ['--help'])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain('proto-mcp serve <file.proto> --grpc <target>')
    const options = Object.entries(CLI_OPTIONS) as Array<[string, { type: string; short?: string }]>
    expect(options.length).toBeGreaterThanOrEqual(12)
    for (const [name, option] of options) {
      // Each flag on a line of its own: `  -I, --import-path <dir>` or `  --verbose   ...`.
      const spelled = `${option.short ? `-${option.short}, ` : ''}--${name}${option.type === 'string' ? ' <' : ' '}`
      expect(run.stdout.split('\n'), spelled).toContainEqual(expect.toSatisfy((line: string) => line.startsWith(`  ${spelled}`)))
    }
    expect(run.stderr).toBe('')
    // `proto-mcp help` prints the same; a word after it is no command.
    const asCommand = await runCli(cli, ['help'])
    expect([asCommand.code, asCommand.stdout]).toEqual([0, run.stdout])
    expect((await runCli(cli, ['help', 'serve'])).code).toBe(2)
  })

  const failures: Array<[string, string[], number, RegExp]> = [
    ['a bad flag', ['serve', 'x.proto', '--grpc', 'a:1', '--bogus'], 2, /^proto-mcp: unknown option '--bogus'$/],
    [
      'a mistyped flag',
      ['serve', 'x.proto', '--grpc', 'a:1', '--include-methd', 'Get'],
      2,
      /^proto-mcp: unknown option '--include-methd' \(did you mean '--include-method'\?\)$/,
    ],
    [
      'a bad --http',
      ['serve', 'x.proto', '--grpc', 'a:1', '--http', 'eighty'],
      2,
      /^proto-mcp: --http must be an integer from 0 to 65535, got "eighty"$/,
    ],
    [
      'a bad --tool-names',
      ['serve', 'x.proto', '--grpc', 'a:1', '--tool-names', 'full'],
      2,
      /^proto-mcp: --tool-names must be method, service or qualified, got "full"$/,
    ],
    ['no --grpc', ['serve', 'fixtures/topeka/example.proto'], 2, /^proto-mcp: --grpc <target> is required/],
    ['an unknown command', ['run', 'x.proto'], 2, /^proto-mcp: unknown command "run"/],
    [
      'an unreadable proto',
      ['serve', 'missing/nope.proto', '--grpc', 'a:1'],
      1,
      /^proto-mcp: cannot read ".*missing\/nope\.proto": ENOENT/,
    ],
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
    // One place, 1-based: the column the message names is the one after the file and line.
    expect(run.stderr).toBe(`proto-mcp: ${join(dir, 'bad.proto')}:4:14: illegal id at column 14\n`)
  })

  it('a missing import exits 1 naming the -I flag, not the library option', async () => {
    const dir = writeProtos({ 'main.proto': 'syntax = "proto3";\npackage m;\nimport "shared/types.proto";\n' })
    const run = await runCli(cli, ['serve', join(dir, 'main.proto'), '--grpc', 'a:1'])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(
      `proto-mcp: ${join(dir, 'main.proto')}:3:1: import "shared/types.proto" not found next to the importing file, next to the served file ` +
        'or in an -I directory (pass the directory it is relative to with -I <dir>)\n',
    )
  })

  it('a proto without a service exits 1 with a one-line reason, not after building 0 tools', async () => {
    const dir = writeProtos({ 'types.proto': 'syntax = "proto3";\npackage t;\nmessage M {\n  string a = 1;\n}\n' })
    const run = await runCli(cli, ['serve', join(dir, 'types.proto'), '--grpc', 'a:1'])
    expect(run.code).toBe(1)
    expect(run.stderr).toMatch(
      /^proto-mcp: cannot serve ".*types\.proto": it declares no service, so it builds no tools \(give the \.proto that declares the service\)\n$/,
    )
  })

  it('an HTTP port in use exits 1 with a one-line reason saying what to do', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = (taken.address() as AddressInfo).port
    try {
      const run = await runCli(cli, ['serve', EXAMPLE_PROTO, '--grpc', grpcServer.address, '--http', String(port)])
      expect(run.code).toBe(1)
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(run.stderr).toMatch(
        new RegExp(`^proto-mcp: cannot serve HTTP on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE.*pick another --http port`),
      )
    } finally {
      await new Promise((resolve) => taken.close(resolve))
    }
  })

  it('--version prints the package version', async () => {
    const run = await runCli(cli, ['--version'])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^\d+\.\d+\.\d+\n$/)
  })
})
