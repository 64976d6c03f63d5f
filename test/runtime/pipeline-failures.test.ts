/**
 * Failures that used to escape the pipeline as protocol errors or read
 * badly: deep nesting (validator, decoder, locator), hostile thrown and
 * returned values, capped validation texts, oneof and int64 decode texts.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { MAX_RENDERED_ERRORS, renderValidationErrors } from '../../src/runtime/validation-text.ts'
import type { ProtoServerSpec, ValidationError } from '../../src/runtime/types.ts'
import { ECHO_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { text } from '../helpers/result.ts'

const TREE_PROTO = `syntax = "proto3";
package tree.v1;
message Node {
  string name = 1;
  Node child = 2;
  repeated Node kids = 3;
}
message Numbers {
  int64 i64 = 1;
  uint64 u64 = 2;
  repeated sint64 s64s = 3;
  oneof contact {
    string email = 4;
    string phone = 5;
  }
  Numbers inner = 6;
}
service TreeService {
  rpc Tree(Node) returns (Node);
  rpc Nums(Numbers) returns (Numbers);
  rpc Items(Items) returns (Node);
}
message Items { repeated int32 values = 1; }
`

let treeSpec: ProtoServerSpec | undefined
function treeServer(impl: Record<string, (req: any) => unknown> = {}) {
  treeSpec ??= specFromProto(join(writeProtos({ 'tree.proto': TREE_PROTO }), 'tree.proto'))
  const calls: unknown[] = []
  const server = createProtoServer(treeSpec)
  server.implement('TreeService', {
    Tree: (req: unknown) => (calls.push(req), impl.Tree ? impl.Tree(req) : {}),
    Nums: (req: unknown) => (calls.push(req), impl.Nums ? impl.Nums(req) : {}),
    Items: (req: unknown) => (calls.push(req), {}),
  })
  return { server, calls }
}

/** `{"child":{"child":...{"name":"leaf"}}}`, `levels` messages below the root. */
function nested(levels: number): unknown {
  let node: Record<string, unknown> = { name: 'leaf' }
  for (let i = 0; i < levels; i++) node = { child: node }
  return node
}

describe('deeply nested arguments', () => {
  it('10,000 levels overflowing the validator are a tool error, not a rejected call', async () => {
    const { server, calls } = treeServer()
    const result = await server.call('Tree', nested(10_000))
    expect(result).toEqual({ content: [{ type: 'text', text: 'invalid arguments: : arguments are nested too deeply' }], isError: true })
    expect(calls).toHaveLength(0)
    // Still serving.
    expect(text(await server.call('Tree', { name: 'a' }))).toBe('{}')
  })

  it("3,000 levels past the validator do not overflow locateFailure: the decoder's reason, with the path", async () => {
    const { server, calls } = treeServer()
    const result = await server.call('Tree', nested(3_000))
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('decoding arguments: child: max depth exceeded')
    expect(calls).toHaveLength(0)
  })

  it('101 levels report the decoder\'s max depth, not "cannot decode"', async () => {
    const { server, calls } = treeServer()
    expect(text(await server.call('Tree', nested(100)))).toBe('{}')
    expect(calls).toHaveLength(1)
    const result = await server.call('Tree', { kids: [{ name: 'ok' }, nested(101)] })
    expect(text(result)).toBe('decoding arguments: kids[1]: max depth exceeded')
    expect(text(await server.call('Tree', nested(101)))).toBe('decoding arguments: child: max depth exceeded')
    expect(calls).toHaveLength(1)
  })
})

describe('hostile values from handlers are tool errors', () => {
  it('throwing Object.create(null)', async () => {
    const { server } = treeServer({
      Tree: () => {
        throw Object.create(null)
      },
    })
    const result = await server.call('Tree', {})
    expect(result).toEqual({ content: [{ type: 'text', text: 'rpc error: code = Unknown desc = [object Object]' }], isError: true })
  })

  it('throwing an object whose message getter throws', async () => {
    const hostile = {
      get message(): string {
        throw new Error('boom')
      },
      get code(): number {
        throw new Error('boom')
      },
    }
    const { server } = treeServer({
      Tree: () => {
        throw hostile
      },
    })
    const result = await server.call('Tree', {})
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('rpc error: code = Unknown desc = [object Object]')
  })

  it('throwing a revoked proxy', async () => {
    const { proxy, revoke } = Proxy.revocable({}, {})
    revoke()
    const { server } = treeServer({
      Tree: () => {
        throw proxy
      },
    })
    expect(text(await server.call('Tree', {}))).toBe('rpc error: code = Unknown desc = [object Object]')
  })

  it('returning a value whose getter throws', async () => {
    const { server } = treeServer({
      Tree: () => ({
        get name(): string {
          throw new Error('getter failed')
        },
      }),
    })
    expect(await server.call('Tree', {})).toEqual({ content: [{ type: 'text', text: 'encoding response: getter failed' }], isError: true })
  })

  it('throwing {code: 5} without a message gives an empty desc', async () => {
    const { server } = treeServer({
      Tree: () => {
        throw { code: 5 }
      },
    })
    expect(text(await server.call('Tree', {}))).toBe('rpc error: code = NotFound desc = ')
    const named = treeServer({
      Tree: () => {
        throw { code: 'NOT_FOUND', message: 'gone' }
      },
    })
    expect(text(await named.server.call('Tree', {}))).toBe('rpc error: code = NotFound desc = gone')
  })

  it('returning a cyclic value', async () => {
    const { server } = treeServer({
      Tree: () => {
        const node: Record<string, unknown> = { name: 'loop' }
        node.child = node
        return node
      },
    })
    const result = await server.call('Tree', {})
    expect(result).toEqual({ content: [{ type: 'text', text: 'encoding response: child: cyclic value' }], isError: true })
    expect(text(await server.call('Nums', {}))).toBe('{}')
  })

  it('returning a value nested too deeply for the fix-ups', async () => {
    const { server } = treeServer({ Tree: () => ({ ...(nested(200_000) as object), extra: Number.NaN }) })
    const result = await server.call('Tree', {})
    expect(result.isError).toBe(true)
    expect(text(result)).toBe('encoding response: value nested too deeply')
  })
})

describe('validation texts are capped', () => {
  it(`renders at most ${MAX_RENDERED_ERRORS} errors, then counts the rest`, async () => {
    const { server, calls } = treeServer()
    const result = await server.call('Items', { values: Array.from({ length: 30_000 }, () => 'x') })
    const t = text(result)
    expect(t.length).toBeLessThan(10_000)
    const head = 'invalid arguments: /values/0: "x" is not of type "integer"; /values/1: '
    expect(t.slice(0, head.length)).toBe(head)
    expect(t).toContain(`/values/${MAX_RENDERED_ERRORS - 1}: "x" is not of type "integer"; ... and `)
    expect(t).not.toContain(`/values/${MAX_RENDERED_ERRORS}:`)
    const more = Number(/\.\.\. and (\d+) more errors$/.exec(t)![1])
    expect(more).toBeGreaterThanOrEqual(30_000 - MAX_RENDERED_ERRORS)
    expect(calls).toHaveLength(0)
  })

  it('keeps the exact text up to the cap and says "1 more error" just past it', () => {
    const error = (i: number): ValidationError => ({
      instancePath: `/v/${i}`,
      schemaPath: '#/type',
      keyword: 'type',
      params: { type: 'integer' },
      schema: 'integer',
      data: 'x',
    })
    const all = (n: number) => Array.from({ length: n }, (_, i) => error(i))
    const exact = renderValidationErrors(all(MAX_RENDERED_ERRORS))
    expect(exact).toBe(
      `invalid arguments: ${all(MAX_RENDERED_ERRORS)
        .map((e) => `${e.instancePath}: "x" is not of type "integer"`)
        .join('; ')}`,
    )
    expect(renderValidationErrors(all(MAX_RENDERED_ERRORS + 1))).toBe(`${exact}; ... and 1 more error`)
  })
})

describe('decode texts', () => {
  it('two members of one oneof name the second member and the oneof', async () => {
    const { server, calls } = treeServer()
    expect(text(await server.call('Nums', { email: 'a', phone: 'b' }))).toBe(
      'decoding arguments: phone: multiple values for oneof "contact"',
    )
    expect(text(await server.call('Nums', { inner: { phone: 'b', email: 'a' } }))).toBe(
      'decoding arguments: inner.email: multiple values for oneof "contact"',
    )
    expect(calls).toHaveLength(0)
  })

  it('an int64 too large to convert is out of range, like the other range errors', async () => {
    const { server, calls } = treeServer()
    expect(text(await server.call('Nums', { i64: 1e30 }))).toBe('decoding arguments: i64: out of range for int64: 1e+30')
    expect(text(await server.call('Nums', { s64s: [1, -1e30] }))).toBe('decoding arguments: s64s[1]: out of range for sint64: -1e+30')
    expect(text(await server.call('Nums', { inner: { u64: 1e25 } }))).toBe('decoding arguments: inner.u64: out of range for uint64: 1e+25')
    expect(calls).toHaveLength(0)
  })

  it("the echo fixture's oneof", async () => {
    const server = createProtoServer(specFromProto(ECHO_PROTO))
    server.implement('EchoService', { Echo: () => ({}) })
    expect(text(await server.call('Echo', { name: 'a', number: 1 }))).toBe('decoding arguments: number: multiple values for oneof "choice"')
  })
})
