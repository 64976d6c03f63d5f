/**
 * The type tool and its resources as a server carries them (docs/profiles.md,
 * "Token budget"): `replaceTools(server)` swaps both, a tool list drops
 * both; `include()` of several budgeted servers gives one type tool that
 * answers for all of them, with every server's resources.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { Server } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { text as textOf } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const dir = mkdtempSync(join(tmpdir(), 'type-detail-'))
const closers = new Closer()
afterAll(async () => {
  await closers.close()
  rmSync(dir, { recursive: true, force: true })
})

/** `n` string fields named `<prefix>_0`.. (two such messages pass a budget of 100 tokens, one fits). */
const fields = (prefix: string, n: number, from = 1): string =>
  Array.from({ length: n }, (_, i) => `string ${prefix}_${i} = ${from + i};`).join(' ')

/** A budgeted server (budget 100) built from `source`, written as `<name>.proto`. */
function budgeted(name: string, source: string): Server {
  const file = join(dir, `${name}.proto`)
  writeFileSync(file, `syntax = "proto3";\n${source}\n`)
  return createProtoServer(buildServerSpec(file, { toolTokenBudget: 100 }).spec)
}

async function connect(server: Server): Promise<{ client: Client; heard: string[] }> {
  const http = await server.serveHttp({ port: 0 })
  closers.push(() => http.close())
  const client = new Client({ name: 'type-detail-test', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } })
  const heard: string[] = []
  for (const kind of ['tools', 'resources'] as const) {
    client.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
      heard.push(kind)
    })
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)))
  closers.push(() => client.close())
  await client.listen({ toolsListChanged: true, resourcesListChanged: true })
  return { client, heard }
}

const describeType = async (client: Client, type: string) => textOf(await client.callTool({ name: 'describe_type', arguments: { type } }))
const uris = async (client: Client) => (await client.listResources()).resources.map((r) => r.uri).sort()
const read = async (client: Client, uri: string) => ((await client.readResource({ uri })).contents[0] as { text: string }).text

describe('replaceTools swaps the type tool and its resources together', () => {
  it("a rebuilt server's type detail replaces the old one; a list of tools drops it, resources added by hand stay", async () => {
    const v1 = `package hot.v1;\nmessage Leaf { ${fields('leaf', 6)} }\nmessage Gone { ${fields('gone', 6)} }\nmessage Req { Leaf leaf = 1; Gone gone = 2; }\nservice S { rpc Get(Req) returns (Req); }`
    const v2 = `package hot.v1;\nmessage Leaf { ${fields('leaf', 6)} string added_field = 7; }\nmessage Other { ${fields('other', 6)} }\nmessage Req { Leaf leaf = 1; Other other = 2; }\nservice S { rpc Get(Req) returns (Req); }`
    const served = budgeted('hot', v1)
    served.handle().addResource({ uri: 'memo://mine', name: 'mine' }, () => 'by hand')
    const { client, heard } = await connect(served)
    const leaf = 'proto-mcp://hot/types/hot.v1.Leaf'
    expect(await uris(client)).toEqual(expect.arrayContaining([leaf, 'proto-mcp://hot/types/hot.v1.Gone', 'memo://mine']))
    expect(await read(client, leaf)).not.toContain('addedField')

    served.handle().replaceTools(budgeted('hot', v2))
    await expect.poll(() => [...heard].sort()).toEqual(['resources', 'tools'])
    const after = await uris(client)
    expect(after).toEqual(expect.arrayContaining([leaf, 'proto-mcp://hot/types/hot.v1.Other', 'memo://mine']))
    expect(after).not.toContain('proto-mcp://hot/types/hot.v1.Gone')
    // The tool and the resource give the same, new answer.
    expect(await read(client, leaf)).toContain('addedField')
    expect(await describeType(client, 'hot.v1.Leaf')).toBe(await read(client, leaf))
    expect(await describeType(client, 'hot.v1.Gone')).toContain('no schema of "hot.v1.Gone" here')

    served
      .handle()
      .replaceTools([
        { tool: { name: 'Only', inputSchema: { type: 'object' } }, handler: () => ({ content: [{ type: 'text', text: 'only' }] }) },
      ])
    await expect.poll(() => heard.filter((k) => k === 'resources')).toHaveLength(2)
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Only'])
    expect(await uris(client)).toEqual(['memo://mine'])
  })
})

describe('include() of several budgeted servers', () => {
  const a = () =>
    budgeted(
      'alpha',
      `package alpha.v1;\nmessage Leaf { ${fields('a', 6)} }\nmessage Stem { ${fields('s', 6)} }\nmessage Req { Leaf leaf = 1; Stem stem = 2; }\nservice A { rpc GetA(Req) returns (Req); }`,
    )
  const b = () =>
    budgeted(
      'beta',
      `package beta.v1;\nmessage Twig { ${fields('b', 6)} }\nmessage Bud { ${fields('u', 6)} }\nmessage Req { Twig twig = 1; Bud bud = 2; }\nservice B { rpc PutB(Req) returns (Req); }`,
    )

  it("lists one type tool that answers for every included server's types and tools, with every server's resources", async () => {
    const both = Server.builder('both').include(a(), b()).build()
    const { client } = await connect(both)
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['GetA', 'describe_type', 'PutB'])
    expect(await describeType(client, 'alpha.v1.Leaf')).toContain('"a5"')
    expect(await describeType(client, 'beta.v1.Twig')).toContain('"b5"')
    expect(JSON.parse(await describeType(client, 'PutB'))).toMatchObject({ tool: 'PutB', type: 'beta.v1.Req' })
    expect(await describeType(client, 'beta.v1.Twog')).toContain('did you mean "beta.v1.Twig"?')
    const listed = await uris(client)
    expect(listed).toEqual(expect.arrayContaining(['proto-mcp://alpha/types/alpha.v1.Leaf', 'proto-mcp://beta/types/beta.v1.Twig']))
    expect(await read(client, 'proto-mcp://beta/types/beta.v1.Twig')).toBe(await describeType(client, 'beta.v1.Twig'))
    // The call of an included tool still says where its schema is.
    const wrong = await client.callTool({ name: 'PutB', arguments: { twig: { b0: 1 } } })
    expect(textOf(wrong)).toContain('beta.v1.Twig; schema: describe_type')
  })

  it('a hand-written tool of that name is still a clash', () => {
    expect(() =>
      Server.builder('clash')
        .tool({ name: 'describe_type', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'mine' }] }))
        .include(a())
        .build(),
    ).toThrow('tool "describe_type" is defined twice, by tool() and by include(alpha)')
  })
})
