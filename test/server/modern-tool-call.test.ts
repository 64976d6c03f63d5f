/**
 * The fast path of plain 2026-07-28 `tools/call`s on Node HTTP
 * (src/server/http/modern-tool-call.ts) answers exactly what the SDK's path answers:
 * each request is sent to `serveHttp()` (fast path) and to the same
 * server's `fetch()` (the SDK's `createMcpHandler`, no fast path), and the
 * two answers compared (status and JSON; a sealed requestState is random,
 * so only its presence is). The requests the fast path must leave to the
 * SDK reach it, and it is taken when it should be.
 */
import { createServer } from 'node:http'
import { fileURLToPath } from 'node:url'
import { toNodeHandler } from '@modelcontextprotocol/node'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { implementCount } from '../conformance/everything.ts'
import { modernRequest, type ModernRequestOptions, type ModernResponse } from '../helpers/modern-wire.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'

const ok = (text: string) => ({ content: [{ type: 'text' as const, text }] })
let calls = 0
let fast: HttpHandle
let sdk: { url: string; close: () => Promise<void> }

beforeAll(async () => {
  const proto = implementCount(
    createProtoServer(specFromProto(fileURLToPath(new URL('../conformance/conformance.proto', import.meta.url)))),
  )
  const server = Server.builder('fast')
    .logging({ logger: false })
    .include(proto)
    .tool(
      { name: 'Add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
      (args: { a: number; b: number }) => {
        calls++
        return ok(String(args.a + args.b))
      },
    )
    .tool({ name: 'Structured', inputSchema: { type: 'object' }, outputSchema: { type: 'object' } }, () => ({
      content: [],
      structuredContent: { x: 1 },
    }))
    .tool({ name: 'ListOnly', inputSchema: { type: 'object' } }, () => ({ structuredContent: [1, 2] }) as never)
    .tool({ name: 'Failing', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: 'no' }], isError: true }))
    .tool({ name: 'Throws', inputSchema: { type: 'object' } }, () => {
      throw Object.assign(new Error('refused'), { code: -32602, data: { why: 'test' } })
    })
    .tool({ name: 'Bad', inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'nonsense' }] }))
    .tool({ name: 'Asks', inputSchema: { type: 'object' } }, async (_a, ctx) => {
      const [a, b] = await Promise.all([
        ctx.elicit!({ message: 'A?', requestedSchema: { type: 'object', properties: {} } }, { key: 'a' }),
        ctx.sample!({ messages: [{ role: 'user', content: { type: 'text', text: 'B?' } }], maxTokens: 1 }, { key: 'b' }),
      ])
      return ok(`${a.action} ${b.model}`)
    })
    .tool({ name: 'Roots', inputSchema: { type: 'object' } }, async (_a, ctx) => ok(String((await ctx.listRoots!()).roots.length)))
    .tool({ name: 'Secret', inputSchema: { type: 'object' }, requires: { scopes: ['admin'] } }, () => ok('secret'))
    .tool({ name: 'Later', inputSchema: { type: 'object' }, execution: { taskSupport: 'optional' } }, () => ok('later'))
    .build()
  fast = await server.serveHttp({ port: 0 })
  const node = createServer(toNodeHandler({ fetch: (request: Request) => server.fetch(request) } as never))
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
  sdk = {
    url: `http://127.0.0.1:${(node.address() as { port: number }).port}/mcp`,
    close: () => new Promise((resolve) => (node.closeAllConnections(), node.close(() => resolve()))),
  }
})

afterAll(async () => {
  await fast?.close()
  await sdk?.close()
})

/** The answer as compared: status and JSON, a requestState only by presence. */
function comparable(response: ModernResponse): unknown {
  const body = JSON.parse(JSON.stringify(response.body))
  delete body.id
  if (typeof body.result?.requestState === 'string') body.result.requestState = '(sealed)'
  return { status: response.status, body }
}

async function both(name: string, args: unknown, options: ModernRequestOptions = {}): Promise<[unknown, unknown]> {
  const params = { name, arguments: args }
  return [
    comparable(await modernRequest(fast.url, 'tools/call', params, options)),
    comparable(await modernRequest(sdk.url, 'tools/call', params, options)),
  ]
}

describe('the fast path answers what the SDK answers', () => {
  it.each([
    ['a text result', 'Add', { a: 2, b: 3 }, {}],
    ['a proto tool (structuredContent)', 'Count', { n: 2 }, {}],
    ['an object structuredContent with empty content', 'Structured', {}, {}],
    ['structuredContent that is not an object, no content', 'ListOnly', {}, {}],
    ['a tool error', 'Failing', {}, {}],
    ['invalid arguments (a tool error)', 'Add', { a: 'x' }, {}],
    ['a JSON-RPC error the handler throws', 'Throws', {}, {}],
    ['a result that is not a CallToolResult', 'Bad', {}, {}],
    ['two questions, both declared', 'Asks', {}, { capabilities: { elicitation: {}, sampling: {} } }],
    ['a question the client did not declare', 'Asks', {}, { capabilities: { elicitation: {} } }],
    ['a roots question, declared', 'Roots', {}, { capabilities: { roots: {} } }],
    ['a roots question, undeclared', 'Roots', {}, {}],
    ['an unknown tool', 'Nope', {}, {}],
    ['a hidden tool', 'Secret', {}, {}],
    ['a tool that may run as a task, from a client that cannot take one', 'Later', {}, {}],
    // clientInfo is a SHOULD of the revision: without it a call is served (on the fast path); malformed, refused.
    ['a call without clientInfo', 'Add', { a: 2, b: 3 }, { meta: { 'io.modelcontextprotocol/clientInfo': undefined } }],
    ['a call with a clientInfo that is no Implementation', 'Add', { a: 2, b: 3 }, { meta: { 'io.modelcontextprotocol/clientInfo': 'me' } }],
  ])('%s', async (_what, name, args, options) => {
    const [viaFast, viaSdk] = await both(name as string, args, options as ModernRequestOptions)
    expect(viaFast).toEqual(viaSdk)
  })

  it('the fast path is taken for a plain call, and is what makes it answer (a call counts once either way)', async () => {
    calls = 0
    const response = await modernRequest(fast.url, 'tools/call', { name: 'Add', arguments: { a: 1, b: 1 } })
    expect(response.body.result).toEqual({
      content: [{ type: 'text', text: '2' }],
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fast', version: '0.0.0' } },
    })
    expect(calls).toBe(1)
    // A header the fast path does not read (a Base64 Mcp-Name) takes the SDK's path: the same answer.
    const viaSdk = await modernRequest(
      fast.url,
      'tools/call',
      { name: 'Add', arguments: { a: 1, b: 1 } },
      { headers: { 'mcp-name': `=?base64?${Buffer.from('Add').toString('base64')}?=` } },
    )
    expect(viaSdk.body.result).toEqual(response.body.result)
    expect(calls).toBe(2)
  })

  it('what it leaves to the SDK gets the SDK’s answers: a mismatched Mcp-Name, a missing envelope key, a progress token', async () => {
    const mismatch = await modernRequest(
      fast.url,
      'tools/call',
      { name: 'Add', arguments: { a: 1, b: 1 } },
      { headers: { 'mcp-name': 'Other' } },
    )
    expect(mismatch.status).toBe(400)
    expect(mismatch.body.error?.code).toBe(-32020)
    const noCaps = await fetch(fast.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'Add',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 9,
        method: 'tools/call',
        params: {
          name: 'Add',
          arguments: { a: 1, b: 1 },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' },
          },
        },
      }),
    })
    expect(noCaps.status).toBe(400)
    expect(((await noCaps.json()) as { error: { code: number } }).error.code).toBe(-32602)
    const progress = await modernRequest(fast.url, 'tools/call', { name: 'Count', arguments: { n: 2 } }, { meta: { progressToken: 'p' } })
    expect(progress.messages.filter((m) => m.method === 'notifications/progress')).toHaveLength(2)
  })

  it('the next round of a question (requestState and answers) is served, whichever path sealed it', async () => {
    const first = await modernRequest(
      fast.url,
      'tools/call',
      { name: 'Asks', arguments: {} },
      { capabilities: { elicitation: {}, sampling: {} } },
    )
    const second = await modernRequest(
      fast.url,
      'tools/call',
      {
        name: 'Asks',
        arguments: {},
        requestState: first.body.result!.requestState,
        inputResponses: {
          a: { action: 'accept', content: {} },
          b: { role: 'assistant', content: { type: 'text', text: 'k' }, model: 'm1' },
        },
      },
      { capabilities: { elicitation: {}, sampling: {} } },
    )
    expect(second.body.result?.content).toEqual([{ type: 'text', text: 'accept m1' }])
  })
})

it("the call's signal aborts when its response closes: the client gone before the answer, or after a whole answer (as on the SDK's path)", async () => {
  const signals: Record<string, AbortSignal> = {}
  let started!: () => void
  const waiting = new Promise<void>((resolve) => (started = resolve))
  const server = Server.builder('signals')
    .logging({ logger: false })
    .tool({ name: 'Quick', inputSchema: { type: 'object' } }, (_a, ctx) => {
      signals.quick = ctx.signal!
      return ok('done')
    })
    .tool({ name: 'Waits', inputSchema: { type: 'object' } }, async (_a, ctx) => {
      signals.waits = ctx.signal!
      started()
      await new Promise((resolve) => ctx.signal!.addEventListener('abort', resolve))
      return ok('gone')
    })
    .build()
  const served = await server.serveHttp({ port: 0 })
  try {
    const quick = await modernRequest(served.url, 'tools/call', { name: 'Quick', arguments: {} })
    expect(quick.body.result?.content).toEqual([{ type: 'text', text: 'done' }])
    // Left running after the answer, work on the signal stops.
    await vi.waitFor(() => expect(signals.quick!.aborted).toBe(true))
    expect((signals.quick!.reason as Error).name).toBe('AbortError')
    const gone = new AbortController()
    const pending = modernRequest(served.url, 'tools/call', { name: 'Waits', arguments: {} }, { signal: gone.signal })
    await waiting
    expect(signals.waits!.aborted).toBe(false)
    gone.abort()
    await expect(pending).rejects.toThrow()
    await vi.waitFor(() => expect(signals.waits!.aborted).toBe(true))
    expect((signals.waits!.reason as Error).name).toBe('AbortError')
  } finally {
    await served.close()
  }
})
