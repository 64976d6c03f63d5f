/**
 * Server.builder: hand-written tools from JSON Schema 2020-12 compiled at
 * registration, typed state, include() of ?mcp servers; visibility by scope
 * and feature (hidden = unknown, byte for byte); requestState sealing.
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { isRuntimeError, Server, type InputRequiredResult } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const closers = new Closer()
afterAll(() => closers.close())

const ok = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: false })
const info = { name: 'builder-test', version: '0.0.0' }

describe('hand-written tools', () => {
  it('a bad schema fails at registration, naming the tool and the schema path', () => {
    let error: unknown
    try {
      Server.builder('bad').tool({ name: 'Broken', inputSchema: { type: 'object', properties: { a: { type: 'strin' } } } }, () => ok(''))
    } catch (e) {
      error = e
    }
    expect(isRuntimeError(error, 'BAD_SPEC')).toBe(true)
    expect((error as Error).message).toMatch(/^tool "Broken": invalid inputSchema at "\/properties\/a\/type": /)
    expect(() => Server.builder('bad').tool({ name: 'Dangling', inputSchema: { $ref: '#/$defs/missing' } }, () => ok(''))).toThrow(
      /^tool "Dangling": cannot compile inputSchema: .*#\/\$defs\/missing/,
    )
  })

  it("if/then/else, $defs with $anchor, allOf and anyOf validate as 2020-12 says, with the proto tools' texts", async () => {
    const seen: unknown[] = []
    const server = Server.builder('schemas')
      .tool(
        {
          name: 'Shape',
          description: 'if/then/else',
          inputSchema: {
            type: 'object',
            properties: { kind: { enum: ['circle', 'square'] }, radius: { type: 'number' }, side: { type: 'number' } },
            required: ['kind'],
            if: { properties: { kind: { const: 'circle' } } },
            then: { required: ['radius'] },
            else: { required: ['side'] },
          },
        },
        (args) => {
          seen.push(args)
          return ok('shaped')
        },
      )
      .tool(
        {
          name: 'Count',
          inputSchema: {
            $defs: { positive: { $anchor: 'positive', type: 'integer', minimum: 1 } },
            type: 'object',
            properties: { n: { $ref: '#positive' }, tag: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
            allOf: [{ required: ['n'] }],
            additionalProperties: false,
          },
        },
        (args: { n: number }) => ok(`n=${args.n}`),
      )
      .build()
    expect(text(await server.call('Shape', { kind: 'circle', radius: 1 }))).toBe('shaped')
    expect(text(await server.call('Shape', { kind: 'square', side: 2 }))).toBe('shaped')
    expect(await server.call('Shape', { kind: 'circle', side: 2 })).toEqual({
      content: [{ type: 'text', text: 'invalid arguments: : "radius" is a required property' }],
      isError: true,
    })
    expect(text(await server.call('Shape', { kind: 'square' }))).toBe('invalid arguments: : "side" is a required property')
    expect(text(await server.call('Shape', { kind: 'oval', side: 1 }))).toBe(
      'invalid arguments: /kind: "oval" is not one of "circle" or "square"',
    )
    expect(seen).toEqual([
      { kind: 'circle', radius: 1 },
      { kind: 'square', side: 2 },
    ])

    expect(text(await server.call('Count', { n: 3, tag: null }))).toBe('n=3')
    expect(text(await server.call('Count', { n: 0 }))).toBe('invalid arguments: /n: 0 is less than the minimum of 1')
    expect(text(await server.call('Count', { n: 1.5 }))).toBe('invalid arguments: /n: 1.5 is not of type "integer"')
    expect(text(await server.call('Count', { n: 1, tag: 5 }))).toBe(
      "invalid arguments: /tag: 5 is not valid under any of the schemas listed in the 'anyOf' keyword",
    )
    expect(text(await server.call('Count', {}))).toBe('invalid arguments: : "n" is a required property')
    expect(text(await server.call('Count', { n: 1, x: 1 }))).toBe(
      "invalid arguments: : Additional properties are not allowed ('x' was unexpected)",
    )
    // Null arguments are {} (docs/calls.md, "The pipeline").
    expect(text(await server.call('Count', null))).toBe('invalid arguments: : "n" is a required property')
  })

  it('handlers return their result; a throw is a tool error; typed state reaches them; user text stays a value', async () => {
    const server = Server.builder('state')
      .version('2.0.0')
      .state({ count: 0 })
      .tool(
        { name: 'Bump', inputSchema: { type: 'object', properties: { label: { type: 'string' } } } },
        (args: { label?: string }, ctx) => {
          ctx.state.count++
          return {
            content: [{ type: 'text', text: `${args.label ?? ''} ${ctx.state.count}` }],
            isError: false,
            structuredContent: { label: args.label, count: ctx.state.count },
          }
        },
      )
      .tool({ name: 'Fail', inputSchema: { type: 'object' } }, () => {
        throw Object.assign(new Error('no luck'), { code: 'NotFound' })
      })
      .build()
    expect(String(server)).toBe('Server(state@2.0.0, 2 tools)')
    expect(await server.call('Bump', { label: '"quoted" \\ label' })).toEqual({
      content: [{ type: 'text', text: '"quoted" \\ label 1' }],
      isError: false,
      structuredContent: { label: '"quoted" \\ label', count: 1 },
    })
    expect(text(await server.call('Bump', {}))).toBe(' 2')
    expect(await server.call('Fail', {})).toEqual({
      content: [{ type: 'text', text: 'rpc error: code = NotFound desc = no luck' }],
      isError: true,
    })
    expect(server.listTools().map((t) => t.name)).toEqual(['Bump', 'Fail'])
  })

  it('include() takes ?mcp servers with their backends; a name collision fails build()', async () => {
    const spec = specFromProto(EXAMPLE_PROTO)
    const vibe = createProtoServer(spec).implement('VibeService', { GetVibe: () => ({ vibe: 'included' }) })
    const server = Server.builder('combined')
      .include(vibe)
      .tool({ name: 'Extra', inputSchema: { type: 'object' } }, () => ok('extra'))
      .build()
    expect(server.listTools().map((t) => t.name)).toEqual([
      'SetVibe',
      'GetVibe',
      'SetVibeDetails',
      'SetVibeArray',
      'SetVibeObjects',
      'Extra',
    ])
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"included"}')
    server.implement('VibeService', { GetVibe: () => ({ vibe: 'rebound' }) })
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"rebound"}')
    // The included server keeps its own backend.
    expect(text(await vibe.call('GetVibe', {}))).toBe('{"vibe":"included"}')

    const twice = Server.builder('twice').include(vibe, createProtoServer(spec))
    expect(() => twice.build()).toThrow(
      'tool "SetVibe" is defined twice, by include(example) and by include(example): tool names must be unique',
    )
    const clash = Server.builder('clash')
      .tool({ name: 'GetVibe', inputSchema: { type: 'object' } }, () => ok(''))
      .include(vibe)
    expect(() => clash.build()).toThrow('tool "GetVibe" is defined twice, by tool() and by include(example)')
    expect(() => Server.builder('x').include({} as never)).toThrow('include() takes Servers')
  })

  it('a server with nothing is a real state', async () => {
    const empty = Server.builder('empty').build()
    expect(String(empty)).toBe('Server(empty@0.0.0, 0 tools)')
    expect(empty.listTools()).toEqual([])
    await expect(empty.call('Anything')).rejects.toMatchObject({ code: -32602 })
  })
})

/** A server with a scope-gated and a feature-gated tool, served by `nodeHandler` behind a test auth middleware. */
async function serveGated(features: string[], withSecret = true): Promise<string> {
  let builder = Server.builder('gated')
    .features(...features)
    .tool({ name: 'Open', inputSchema: { type: 'object' } }, () => ok('open'))
    .tool({ name: 'Beta', inputSchema: { type: 'object' }, requires: { features: ['beta'] } }, () => ok('beta'))
  if (withSecret) {
    builder = builder.tool({ name: 'Secret', inputSchema: { type: 'object' }, requires: { scopes: ['admin'] } }, () => ok('secret'))
  }
  const handler = builder.build().nodeHandler({ path: '/mcp' })
  const http = createServer((req, res) => {
    const scopes = req.headers['x-test-scopes']
    // What an auth middleware does: validated auth info on `req.auth`.
    if (typeof scopes === 'string') Object.assign(req, { auth: { token: 't', clientId: 'c', scopes: scopes.split(' ') } })
    handler(req, res)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  closers.push(async () => {
    await handler.close()
    http.closeAllConnections()
    await new Promise((resolve) => http.close(resolve))
  })
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`
}

/** A raw initialize-era POST (stateless, no session); the raw body as the client receives it. */
async function rawRpc(url: string, method: string, params: unknown, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method, params }),
  })
  return res.text()
}

const rpcOf = (body: string): any =>
  JSON.parse(
    body
      .split('\n')
      .find((l) => l.startsWith('data: '))
      ?.slice(6) ?? body,
  )

describe('visibility', () => {
  it('a hidden tool is absent from tools/list and its call is answered byte for byte like an unknown tool', async () => {
    const gated = await serveGated([])
    const without = await serveGated([], false)
    expect(rpcOf(await rawRpc(gated, 'tools/list', {})).result.tools.map((t: { name: string }) => t.name)).toEqual(['Open'])
    const hidden = await rawRpc(gated, 'tools/call', { name: 'Secret', arguments: {} })
    const unknown = await rawRpc(without, 'tools/call', { name: 'Secret', arguments: {} })
    expect(rpcOf(hidden).error.code).toBe(-32602)
    expect(hidden).toBe(unknown)
    expect(await rawRpc(gated, 'tools/call', { name: 'Beta', arguments: {} })).toBe(
      await rawRpc(without, 'tools/call', { name: 'Beta', arguments: {} }),
    )

    const admin = { 'x-test-scopes': 'read admin' }
    expect(rpcOf(await rawRpc(gated, 'tools/list', {}, admin)).result.tools.map((t: { name: string }) => t.name)).toEqual([
      'Open',
      'Secret',
    ])
    expect(rpcOf(await rawRpc(gated, 'tools/call', { name: 'Secret', arguments: {} }, admin)).result).toEqual(ok('secret'))
    expect(rpcOf(await rawRpc(gated, 'tools/call', { name: 'Secret', arguments: {} }, { 'x-test-scopes': 'read' })).error.code).toBe(-32602)
  })

  it('a server feature switched on shows its tools; call() in process applies the same rule', async () => {
    const beta = await serveGated(['beta'])
    expect(rpcOf(await rawRpc(beta, 'tools/list', {})).result.tools.map((t: { name: string }) => t.name)).toEqual(['Open', 'Beta'])
    const server = Server.builder('p')
      .tool({ name: 'Secret', inputSchema: { type: 'object' }, requires: { scopes: ['admin'] } }, () => ok('s'))
      .build()
    const hidden = await server.call('Secret').catch((e: Error) => e)
    const unknown = await Server.builder('p')
      .build()
      .call('Secret')
      .catch((e: Error) => e)
    expect(hidden).toMatchObject({ code: -32602 })
    expect([(hidden as Error).message, (hidden as unknown as { code: number }).code]).toEqual([
      (unknown as Error).message,
      (unknown as unknown as { code: number }).code,
    ])
    expect(server.listTools()).toEqual([])
    expect(server.listTools({ authInfo: { scopes: ['admin'] } }).map((t) => t.name)).toEqual(['Secret'])
    expect(text(await server.call('Secret', {}, { authInfo: { scopes: ['admin'] } }))).toBe('s')
  })
})

describe('requestState', () => {
  /** A tool that asks for a second round, carrying sealed state; `runs` counts handler entries. */
  function confirmServer(key?: string) {
    const runs: unknown[] = []
    let builder = Server.builder('mrtr')
    if (key) builder = builder.requestStateKey(key)
    const server = builder
      .tool({ name: 'Confirm', inputSchema: { type: 'object' } }, async (_args, ctx) => {
        runs.push(ctx.requestState)
        if (ctx.requestState === undefined) {
          return { resultType: 'input_required', requestState: await ctx.sealRequestState!({ step: 1 }) } satisfies InputRequiredResult
        }
        return ok(`confirmed ${JSON.stringify(ctx.requestState)}`)
      })
      .build()
    return { server, runs }
  }

  it('round trip: a 2026-07-28 client retries with the sealed state and the handler reads it verified', async () => {
    const { server, runs } = confirmServer()
    const http = await server.serveHttp({ port: 0 })
    closers.push(() => http.close())
    const client = new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    expect(text(await client.callTool({ name: 'Confirm', arguments: {} }))).toBe('confirmed {"step":1}')
    expect(runs).toEqual([undefined, { step: 1 }])
  })

  it('a tampered or expired state is refused before the handler runs', async () => {
    const { server, runs } = confirmServer('k'.repeat(32))
    const http = await server.serveHttp({ port: 0 })
    closers.push(() => http.close())
    const client = new ClientV2(info, { versionNegotiation: { mode: 'auto' }, inputRequired: { autoFulfill: false } })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    const first = (await client.callTool(
      { name: 'Confirm', arguments: {} },
      { allowInputRequired: true },
    )) as unknown as InputRequiredResult
    expect(first.resultType).toBe('input_required')
    const state = first.requestState!
    const [version, body, mac] = state.split('.')
    const payload = JSON.parse(Buffer.from(body!, 'base64url').toString())
    const forged = [version, Buffer.from(JSON.stringify({ ...payload, p: { step: 99 } })).toString('base64url'), mac].join('.')

    await expect(client.callTool({ name: 'Confirm', arguments: {}, requestState: forged } as never)).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Invalid or expired requestState'),
    })
    expect(runs).toEqual([undefined])
    expect(text(await client.callTool({ name: 'Confirm', arguments: {}, requestState: state } as never))).toBe('confirmed {"step":1}')

    vi.useFakeTimers({ toFake: ['Date'] })
    try {
      vi.setSystemTime(Date.now() + 2 * 3600_000)
      await expect(client.callTool({ name: 'Confirm', arguments: {}, requestState: state } as never)).rejects.toMatchObject({
        code: -32602,
      })
    } finally {
      vi.useRealTimers()
    }
    expect(runs).toEqual([undefined, { step: 1 }])
  })
})
