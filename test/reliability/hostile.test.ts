/**
 * Hostile input: prototype keys in arguments and map keys (in process, with
 * and without generated codecs, and over HTTP), JSON nested 10 000 deep over
 * HTTP (a clear answer, no stack overflow), a 5 MiB body on every HTTP
 * entry point, and malformed JSON-RPC of many shapes. Each is followed by a
 * normal call that must still be answered. (In-process nesting, the
 * serveHttp and session 413s and unparsable JSON are in test/runtime/ and
 * test/server/.)
 */
import { createServer, type Server as NodeHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { MAX_BODY_BYTES } from '../../src/contract/index.ts'
import type { HttpHandle, Server } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { ProtoServerSpec } from '../../src/runtime/types.ts'
import { loadCodecs } from '../codegen/codec-harness.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { text } from '../helpers/result.ts'

const BAG_PROTO = `syntax = "proto3";
package bag.v1;
import "google/protobuf/struct.proto";
message Inner { string v = 1; }
message Bag {
  map<string, string> labels = 1;
  map<string, Inner> inners = 2;
  Inner inner = 3;
  string name = 4;
  google.protobuf.Struct extra = 5;
}
service BagService {
  rpc Put(Bag) returns (Bag);
}
`
const file = join(writeProtos({ 'bag.proto': BAG_PROTO }), 'bag.proto')
const plainSpec = specFromProto(file)
const codecs = loadCodecs(file).codecs
const codecSpec: ProtoServerSpec = {
  ...plainSpec,
  tools: plainSpec.tools.map((t) => ({ ...t, decode: codecs.get(t.requestType), encode: codecs.get(t.responseType) })),
}

/** A Bag server whose backend echoes the request and records what it got. */
function bagServer(spec: ProtoServerSpec): { server: Server; seen: unknown[] } {
  const seen: unknown[] = []
  const server = createProtoServer(spec).implement('BagService', {
    Put: (request: unknown) => {
      seen.push(request)
      return request
    },
  })
  return { server, seen }
}

const own = (value: unknown, key: string): unknown => Object.getOwnPropertyDescriptor(value, key)?.value
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort()

/** Object.prototype as it was: no added or changed keys, and no key an attack names. */
function expectCleanPrototype(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES)
  const probe = {} as Record<string, unknown>
  expect([probe.polluted, probe.v, probe.x]).toEqual([undefined, undefined, undefined])
}

/** Arguments as a client's JSON delivers them: `__proto__` and friends as own keys. */
const MAP_ATTACK = JSON.parse(`{
  "labels": { "__proto__": "p", "constructor": "c", "prototype": "t" },
  "inners": { "__proto__": { "v": "inner-p" }, "constructor": { "v": "inner-c" } },
  "extra": { "__proto__": { "polluted": true }, "constructor": { "prototype": { "polluted": true } } }
}`) as Record<string, unknown>
const FIELD_ATTACKS = [
  '{"__proto__": {"polluted": true}}',
  '{"constructor": {"prototype": {"polluted": true}}}',
  '{"prototype": {"polluted": true}}',
  '{"inner": {"__proto__": {"v": "x"}}}',
  '{"inner": {"constructor": {"prototype": {"x": 1}}}}',
].map((json) => JSON.parse(json) as Record<string, unknown>)

describe.each([
  ['reflection', plainSpec],
  ['generated codecs', codecSpec],
])('prototype keys (%s)', (_label, spec) => {
  it("as map keys land as map entries, in the backend's request and in the result", async () => {
    const { server, seen } = bagServer(spec)
    const result = await server.call('Put', MAP_ATTACK)
    expect(result.isError, text(result)).toBe(false)
    const request = seen[0] as Record<string, Record<string, unknown>>
    for (const [key, value] of [
      ['__proto__', 'p'],
      ['constructor', 'c'],
      ['prototype', 't'],
    ] as const) {
      expect(own(request.labels, key)).toBe(value)
      expect(own(result.structuredContent!.labels, key)).toBe(value)
    }
    expect(own(own(request.inners, '__proto__'), 'v')).toBe('inner-p')
    expect(own(own(request.extra, '__proto__'), 'polluted')).toBe(true)
    // The text is the same JSON: the keys survive serialisation as keys.
    expect(JSON.parse(text(result)).labels).toEqual(JSON.parse('{"__proto__":"p","constructor":"c","prototype":"t"}'))
    expectCleanPrototype()
  })

  // Without the Struct field, which a generated codec leaves to reflection: here the codec reads the whole message.
  it('as map keys of a message without well-known fields land as map entries too', async () => {
    const { server, seen } = bagServer(spec)
    const args = JSON.parse('{"labels":{"__proto__":"p","constructor":"c"},"inners":{"__proto__":{"v":"inner-p"}}}') as Record<
      string,
      unknown
    >
    const result = await server.call('Put', args)
    expect(result.isError, text(result)).toBe(false)
    const request = seen[0] as Record<string, Record<string, unknown>>
    expect([own(request.labels, '__proto__'), own(request.labels, 'constructor')]).toEqual(['p', 'c'])
    expect(own(own(request.inners, '__proto__'), 'v')).toBe('inner-p')
    expect(JSON.parse(text(result))).toEqual(args)
    expectCleanPrototype()
  })

  it.each(FIELD_ATTACKS.map((args) => [JSON.stringify(args), args]))(
    'as field names are rejected before the backend: %s',
    async (_json, args) => {
      const { server, seen } = bagServer(spec)
      const result = await server.call('Put', args)
      expect(result.isError).toBe(true)
      expect(text(result)).toMatch(/^invalid arguments: .*(__proto__|constructor|prototype)/)
      expect(seen).toEqual([])
      expectCleanPrototype()
    },
  )
})

describe('deeply nested values in process', () => {
  it('a rejected value nested 10 000 deep is a tool error (its text used to overflow the stack, rejecting server.call)', async () => {
    const { server, seen } = bagServer(plainSpec)
    const deep = JSON.parse(`{"inner":${'{"v":"x","inner":'.repeat(10_000)}{}${'}'.repeat(10_000)}}`) as unknown
    const result = await server.call('Put', deep)
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('invalid arguments: /inner/inner: unknown field')
    // A keyword whose text shows the value: the value is named, not printed.
    const wrongType = JSON.parse(`{"name":${'['.repeat(10_000)}${']'.repeat(10_000)}}`) as unknown
    expect(text(await server.call('Put', wrongType))).toBe(
      'invalid arguments: /name: (a value nested too deeply to show) is not of type "string"',
    )
    expect(seen).toEqual([])
  })
})

describe('over HTTP', () => {
  let handle: HttpHandle
  let server: Server
  let seen: unknown[]
  beforeAll(async () => {
    ;({ server, seen } = bagServer(codecSpec))
    handle = await server.serveHttp({ port: 0 })
  })
  afterAll(async () => {
    await handle?.close()
  })

  const post = (body: string, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(handle.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    })
  const call = (id: number, args: unknown): string =>
    JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'Put', arguments: args } })

  /** The JSON-RPC message of a response (plain JSON or the first SSE `data:` line). */
  async function message(res: Response): Promise<any> {
    const body = await res.text()
    const data = body.split('\n').find((line) => line.startsWith('data: '))
    return JSON.parse(data ? data.slice(6) : body)
  }

  /** A normal call still gets its normal answer. */
  async function expectStillServing(): Promise<void> {
    const res = await post(call(99, { name: 'ok' }), { 'mcp-protocol-version': '2025-06-18' })
    expect(res.status).toBe(200)
    expect((await message(res)).result).toMatchObject({ isError: false, structuredContent: { name: 'ok' } })
  }

  it('prototype keys sent by a real client land as map entries or are refused; Object.prototype stays clean', async () => {
    const client = new ClientV2({ name: 'hostile', version: '0' })
    await client.connect(new HttpV2(new URL(handle.url)))
    try {
      const result = await client.callTool({ name: 'Put', arguments: MAP_ATTACK })
      expect(result.isError).toBe(false)
      expect(own((result.structuredContent as Record<string, unknown>).labels, '__proto__')).toBe('p')
      expect(own((seen.at(-1) as Record<string, unknown>).labels, 'constructor')).toBe('c')
      for (const args of FIELD_ATTACKS) {
        const before = seen.length
        const answer = await client.callTool({ name: 'Put', arguments: args })
        if (answer.isError) {
          expect(text(answer as any)).toMatch(/^invalid arguments: /)
          expect(seen.length).toBe(before)
        } else {
          // The SDK's request parsing copies `arguments` key by key, which drops a top-level
          // "__proto__" before the server sees it: the backend gets a plain object without it.
          expect(Object.keys(args)).toEqual(['__proto__'])
          const request = seen.at(-1) as object
          expect(Object.getPrototypeOf(request)).toBe(Object.prototype)
          expect(Object.getOwnPropertyNames(request)).toEqual([])
        }
      }
      expectCleanPrototype()
    } finally {
      await client.close()
    }
  })

  it.each([
    ['a message field', '{"inner":', '{"v":"x","inner":', '{}'],
    ['a Struct', '{"extra":', '{"a":', '{}'],
  ])('arguments nested 10 000 deep in %s get a clear error, not a crash', async (_label, open, level, leaf) => {
    // Built as text: a JSON.stringify of the value would itself overflow the test's stack.
    const args = `${open}${level.repeat(10_000)}${leaf}${'}'.repeat(10_000)}}`
    const before = seen.length
    const res = await post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"Put","arguments":${args}}}`, {
      'mcp-protocol-version': '2025-06-18',
    })
    expect(res.status).toBeLessThan(500)
    const answer = await message(res)
    // A tool error naming the problem (it used to be -32603 "Maximum call stack size exceeded").
    expect(answer.result?.isError, JSON.stringify(answer).slice(0, 300)).toBe(true)
    expect(text(answer.result)).toMatch(/^(invalid|decoding) arguments: /)
    expect(text(answer.result)).not.toMatch(/call stack/)
    expect(seen.length).toBe(before)
    await expectStillServing()
  })

  it('a 5 MiB body gets 413 on serveHttp, nodeHandler and fetch', async () => {
    const big = call(5, { name: 'x'.repeat(5 * 1024 * 1024) })
    expect(Buffer.byteLength(big)).toBeGreaterThan(MAX_BODY_BYTES)
    expect((await post(big)).status).toBe(413)

    const mounted: NodeHttpServer = createServer(server.nodeHandler({ path: '/mcp' }))
    await new Promise<void>((resolve) => mounted.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(mounted.address() as AddressInfo).port}/mcp`
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: big,
      })
      expect(res.status).toBe(413)
    } finally {
      mounted.closeAllConnections()
      await new Promise((resolve) => mounted.close(resolve))
    }

    const viaFetch = await server.fetch(
      new Request('http://127.0.0.1/mcp', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: big,
      }),
    )
    expect(viaFetch.status).toBe(413)
    await expectStillServing()
  })

  it.each([
    ['an empty batch', '[]'],
    ['a bare string', '"tools/list"'],
    ['a number', '42'],
    ['null', 'null'],
    ['no jsonrpc member', '{"id":1,"method":"tools/list"}'],
    ['jsonrpc 1.0', '{"jsonrpc":"1.0","id":1,"method":"tools/list"}'],
    ['a numeric method', '{"jsonrpc":"2.0","id":1,"method":5}'],
    ['an object id', '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}'],
    ['params as an array', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["Put",{}]}'],
    ['a numeric tool name', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":5}}'],
    ['arguments as a string', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"Put","arguments":"{}"}}'],
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"tools/ca'],
  ])('malformed JSON-RPC (%s) gets a protocol error, then the server answers', async (_label, body) => {
    for (const version of ['2025-06-18', '2026-07-28']) {
      const res = await post(body, { 'mcp-protocol-version': version })
      // 4xx for what is not a JSON-RPC request; 200 carrying the error for a request with bad params.
      expect(res.status, `${version}: ${body}`).toBeLessThan(500)
      const answer = await message(res)
      expect(answer.jsonrpc).toBe('2.0')
      expect(answer.error.code, `${version}: ${JSON.stringify(answer)}`).toBeLessThan(0)
      expect(answer.result).toBeUndefined()
    }
    await expectStillServing()
  })
})
