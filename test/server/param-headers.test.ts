/**
 * Tool parameters mirrored into HTTP headers (SEP-2243): a declaration
 * breaking the SEP's rules fails when the tool is added; over HTTP a
 * 2026-07-28 `tools/call` whose `Mcp-Param-*` header is missing, not valid
 * Base64 in its sentinel, or different from the argument is refused with
 * HTTP 400 and `-32020` before the handler runs, on `serveHttp()` and
 * `fetch()`; the SDK v2 client, which mirrors the parameters itself, is served.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { join } from 'node:path'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'

const REGION_PROTO = `syntax = "proto3";
package geo.v1;
import "proto_mcp/options.proto";
message LookupRequest { string region = 1 [(proto_mcp.field) = { header: "Region" }]; int32 limit = 2; }
message LookupReply { string region = 1; }
service Geo { rpc Lookup(LookupRequest) returns (LookupReply); }
`

const ok = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const SCHEMA = {
  type: 'object',
  properties: {
    region: { type: 'string', 'x-mcp-header': 'Region' },
    limit: { type: 'integer', 'x-mcp-header': 'Limit' },
    options: { type: 'object', properties: { dry: { type: 'boolean', 'x-mcp-header': 'Dry-Run' } } },
  },
}

let calls = 0
let http: HttpHandle
let server: Server

beforeAll(async () => {
  const geo = createProtoServer(specFromProto(join(writeProtos({ 'geo.proto': REGION_PROTO }), 'geo.proto'))).implement('Geo', {
    Lookup: (req: { region?: string }) => ({ region: req.region ?? '' }),
  })
  server = Server.builder('headers')
    .logging({ logger: false })
    .include(geo)
    .tool({ name: 'Deploy', inputSchema: SCHEMA }, (args) => {
      calls++
      return ok(JSON.stringify(args))
    })
    .tool({ name: 'Secret', inputSchema: SCHEMA, requires: { scopes: ['admin'] } }, () => ok('secret'))
    .build()
  http = await server.serveHttp({ port: 0 })
})

afterAll(() => http?.close())

describe('declarations are checked when the tool is added', () => {
  const add =
    (property: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    () =>
      Server.builder('x')
        .tool({ name: 'T', inputSchema: { type: 'object', properties: { p: property, ...extra } } }, () => ok(''))
        .build()

  it.each([
    ['an object property', { type: 'object', 'x-mcp-header': 'P' }, 'only a string, integer or boolean property may be mirrored'],
    ['a number property', { type: 'number', 'x-mcp-header': 'P' }, 'only a string, integer or boolean property may be mirrored'],
    ['a name with a space', { type: 'string', 'x-mcp-header': 'Bad Name' }, 'is not a header name (an RFC 9110 token)'],
    ['an empty name', { type: 'string', 'x-mcp-header': '' }, 'is not a header name'],
    [
      'a property inside array items',
      { type: 'array', items: { type: 'string', 'x-mcp-header': 'P' } },
      'reached through "properties" alone',
    ],
    ['a property under anyOf', { anyOf: [{ type: 'string', 'x-mcp-header': 'P' }] }, 'reached through "properties" alone'],
  ])('%s is refused', (_what, property, message) => {
    expect(add(property)).toThrow(message)
  })

  it('two names equal but for case are refused, naming where the first is', () => {
    expect(add({ type: 'string', 'x-mcp-header': 'Region' }, { q: { type: 'string', 'x-mcp-header': 'REGION' } })).toThrow(
      'x-mcp-header "REGION" at "q": the name is already used at "p" (names ignore case)',
    )
  })

  it('the declaration is listed as written', () => {
    expect(server.listTools().find((t) => t.name === 'Deploy')!.inputSchema).toEqual(SCHEMA)
  })
})

describe('2026-07-28 tools/call over HTTP', () => {
  const call = (args: Record<string, unknown>, headers: Record<string, string> = {}, name = 'Deploy', target = http.url) =>
    modernRequest(target, 'tools/call', { name, arguments: args }, { headers })

  it('headers that agree with the arguments are served (numbers compare as numbers, a sentinel is decoded)', async () => {
    const served = await call(
      { region: 'eu-west', limit: 42, options: { dry: true } },
      { 'Mcp-Param-Region': 'eu-west', 'Mcp-Param-Limit': '42.0', 'Mcp-Param-Dry-Run': 'true' },
    )
    expect(served.status).toBe(200)
    expect(served.body.result?.isError).toBeFalsy()
    const sentinel = await call({ region: 'Zürich' }, { 'Mcp-Param-Region': `=?base64?${Buffer.from('Zürich').toString('base64')}?=` })
    expect(sentinel.body.result?.content[0].text).toBe('{"region":"Zürich"}')
  })

  it('an argument left out needs no header, and a header sent anyway is ignored', async () => {
    expect((await call({})).status).toBe(200)
    expect((await call({ limit: 1 }, { 'Mcp-Param-Limit': '1', 'Mcp-Param-Region': 'anything' })).status).toBe(200)
  })

  it.each([
    ['missing', { region: 'eu' }, {}, 'arguments.region is "eu" but the Mcp-Param-Region header is missing'],
    ['different', { region: 'eu' }, { 'Mcp-Param-Region': 'us' }, 'arguments.region is "eu" but the Mcp-Param-Region header says "us"'],
    ['a nested one different', { options: { dry: false } }, { 'Mcp-Param-Dry-Run': 'true' }, 'arguments.options.dry is false'],
    ['bad Base64 padding', { region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVsbG8?=' }, 'is not valid Base64 of UTF-8 text'],
    ['Base64 with foreign characters', { region: 'Hello' }, { 'Mcp-Param-Region': '=?base64?SGVs!!!bG8=?=' }, 'is not valid Base64'],
  ])('a header %s: 400 and -32020 before the handler runs', async (_what, args, headers, message) => {
    calls = 0
    const refused = await call(args, headers)
    expect(refused.status).toBe(400)
    expect(refused.body.error?.code).toBe(-32020)
    expect(refused.body.error?.message).toContain(message)
    expect(refused.body.id).toEqual(expect.any(Number))
    expect(calls).toBe(0)
  })

  it('a value without the sentinel is literal text', async () => {
    const literal = `=?base64?${Buffer.from('x').toString('base64')}`
    expect((await call({ region: literal }, { 'Mcp-Param-Region': literal })).status).toBe(200)
  })

  it('a tool hidden from the caller is answered as unknown, not by its headers', async () => {
    const hidden = await call({ region: 'eu' }, {}, 'Secret')
    expect(hidden.body.error).toMatchObject({ code: -32602, message: 'Tool Secret not found' })
  })

  it('a proto tool whose request field has (proto_mcp.field).header is checked the same', async () => {
    expect(server.listTools().find((t) => t.name === 'Lookup')!.inputSchema.properties).toMatchObject({
      region: { type: 'string', 'x-mcp-header': 'Region' },
    })
    expect((await call({ region: 'eu' }, {}, 'Lookup')).body.error?.code).toBe(-32020)
    const served = await call({ region: 'eu' }, { 'Mcp-Param-Region': 'eu' }, 'Lookup')
    expect(JSON.parse(served.body.result?.content[0].text)).toEqual({ region: 'eu' })
  })

  it('server.fetch() checks the same', async () => {
    const handler = async (request: Request) => server.fetch(request)
    const { createServer } = await import('node:http')
    const { toNodeHandler } = await import('@modelcontextprotocol/node')
    const node = createServer(toNodeHandler({ fetch: handler } as never))
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
    try {
      const target = `http://127.0.0.1:${(node.address() as { port: number }).port}/mcp`
      expect((await call({ region: 'eu' }, {}, 'Deploy', target)).status).toBe(400)
      expect((await call({ region: 'eu' }, { 'Mcp-Param-Region': 'eu' }, 'Deploy', target)).status).toBe(200)
    } finally {
      node.closeAllConnections()
      await new Promise((resolve) => node.close(resolve))
    }
  })

  it('the SDK v2 client mirrors the parameters itself and is served', async () => {
    const client = new ClientV2({ name: 'h', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new HttpV2(new URL(http.url)))
    try {
      await client.listTools()
      const result = await client.callTool({ name: 'Deploy', arguments: { region: 'ap-south', limit: 3 } })
      expect((result.content as Array<{ text: string }>)[0]!.text).toBe('{"region":"ap-south","limit":3}')
    } finally {
      await client.close()
    }
  })
})
