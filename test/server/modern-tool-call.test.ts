/**
 * The fast path of plain 2026-07-28 `tools/call`s on Node HTTP
 * (src/server/http/modern-tool-call.ts) answers exactly what the SDK's path answers:
 * each request is sent to `serveHttp()` (fast path) and to the same
 * server's `fetch()` (the SDK's `createMcpHandler`, no fast path), and the
 * two answers compared (status and JSON; a sealed requestState is random,
 * so only its presence is), in the default mode and in search mode (its
 * meta-tools, and a call_tool, take the same steps: serving/tool-call.ts).
 * The requests the fast path must leave to the SDK reach it, and it is
 * taken when it should be.
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

/** Requests the fast path was handed, and those it handed on to the SDK path. */
const paths = vi.hoisted(() => ({ taken: 0, handedOn: 0 }))
vi.mock('../../src/server/http/modern-tool-call.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/server/http/modern-tool-call.ts')>()
  return {
    ...actual,
    serveFastCall: (...[state, req, res, body, era, next, log]: Parameters<typeof actual.serveFastCall>) => {
      paths.taken++
      return actual.serveFastCall(state, req, res, body, era, (again, read) => (paths.handedOn++, next(again, read)), log)
    },
  }
})

/** Which path answered the requests `run` makes: the fast path, or the SDK's. */
async function pathOf(run: () => Promise<unknown>): Promise<{ fast: number; sdk: number }> {
  const before = { ...paths }
  await run()
  const handedOn = paths.handedOn - before.handedOn
  return { fast: paths.taken - before.taken - handedOn, sdk: handedOn }
}

const ok = (text: string) => ({ content: [{ type: 'text' as const, text }] })
let calls = 0
let fast: HttpHandle
let sdk: { url: string; close: () => Promise<void> }
let searchFast: HttpHandle
let searchSdk: { url: string; close: () => Promise<void> }

/** The server's `fetch()` (the SDK's `createMcpHandler`, no fast path) on Node HTTP. */
async function sdkOnly(server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  const node = createServer(toNodeHandler({ fetch: (request: Request) => server.fetch(request) } as never))
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(node.address() as { port: number }).port}/mcp`,
    close: () => new Promise((resolve) => (node.closeAllConnections(), node.close(() => resolve()))),
  }
}

/** The tools both servers have, in `mode`. */
function builder(mode: 'tools' | 'search') {
  const proto = implementCount(
    createProtoServer(specFromProto(fileURLToPath(new URL('../conformance/conformance.proto', import.meta.url)))),
  )
  return Server.builder('fast')
    .discovery(mode)
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
    .tool({ name: 'ReturnsAsk', inputSchema: { type: 'object' } }, () => ({
      resultType: 'input_required' as const,
      inputRequests: { x: { method: 'elicitation/create', params: { mode: 'form', message: 'X?', requestedSchema: { type: 'object' } } } },
    }))
    .tool({ name: 'Context', inputSchema: { type: 'object' } }, (_a, ctx) => {
      // What a handler sees of its context, as far as JSON shows it (functions by name only), keys sorted.
      const { headers, signal, authInfo, ...rest } = ctx as unknown as Record<string, unknown>
      const shown = Object.fromEntries(
        Object.entries(rest)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, typeof v === 'function' ? 'function' : (v ?? null)]),
      )
      return ok(JSON.stringify({ ...shown, headers: typeof headers, signal: typeof signal, authInfo: authInfo ?? null }))
    })
    .tool({ name: 'ReturnsNoAsk', inputSchema: { type: 'object' } }, () => ({ resultType: 'input_required' as const }))
    .tool({ name: 'ReturnsOddAsk', inputSchema: { type: 'object' } }, () => ({
      resultType: 'input_required' as const,
      inputRequests: { x: { method: 'ping', params: {} }, y: 'elicit' },
    }))
    .tool({ name: 'AsksThenThrows', inputSchema: { type: 'object' } }, async (_a, ctx) => {
      await ctx.elicit!({ message: 'A?', requestedSchema: { type: 'object', properties: {} } }).catch(() => undefined)
      throw Object.assign(new Error('refused'), { code: -32602 })
    })
}

beforeAll(async () => {
  const server = builder('tools').build()
  fast = await server.serveHttp({ port: 0 })
  sdk = await sdkOnly(server)
  const searching = builder('search').build()
  searchFast = await searching.serveHttp({ port: 0 })
  searchSdk = await sdkOnly(searching)
})

afterAll(async () => {
  await fast?.close()
  await sdk?.close()
  await searchFast?.close()
  await searchSdk?.close()
})

/** The answer as compared: status and JSON, a requestState only by presence. */
function comparable(response: ModernResponse): unknown {
  const body = JSON.parse(JSON.stringify(response.body))
  delete body.id
  if (typeof body.result?.requestState === 'string') body.result.requestState = '(sealed)'
  return { status: response.status, body }
}

async function both(name: string, args: unknown, options: ModernRequestOptions = {}, search = false): Promise<[unknown, unknown]> {
  const params = { name, arguments: args }
  return [
    comparable(await modernRequest((search ? searchFast : fast).url, 'tools/call', params, options)),
    comparable(await modernRequest((search ? searchSdk : sdk).url, 'tools/call', params, options)),
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
    // The envelope as the SDK's classifier checks it (the edge classifies each body once with it).
    [
      'a clientInfo whose title is no string',
      'Add',
      { a: 2, b: 3 },
      { meta: { 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1', title: 5 } } },
    ],
    ['a capability that is no object', 'Add', { a: 2, b: 3 }, { capabilities: { elicitation: 5 } }],
    // A handler's own input_required result passes the SDK's check, as the rounds' results do.
    ['a returned question the client did not declare', 'ReturnsAsk', {}, {}],
    ['a returned question, declared', 'ReturnsAsk', {}, { capabilities: { elicitation: {} } }],
    ['an input_required result asking nothing', 'ReturnsNoAsk', {}, {}],
    ['an input_required result asking what is no question', 'ReturnsOddAsk', {}, { capabilities: { elicitation: {} } }],
    // The handler's context: what it holds on the fast path is what it holds on the SDK's.
    ['the context a handler sees', 'Context', {}, { capabilities: { elicitation: {} } }],
    // A question pending, whatever the handler made of it (a throw too): the client answers first.
    ['a throw after a question', 'AsksThenThrows', {}, { capabilities: { elicitation: {} } }],
  ])('%s', async (_what, name, args, options) => {
    const [viaFast, viaSdk] = await both(name as string, args, options as ModernRequestOptions)
    expect(viaFast).toEqual(viaSdk)
  })

  it.each([
    ['search_tools', 'search_tools', { query: 'add two numbers' }],
    ['describe_tool', 'describe_tool', { name: 'Count' }],
    ['call_tool of a proto tool', 'call_tool', { name: 'Count', arguments: { n: 2 } }],
    ['call_tool, its arguments as JSON text', 'call_tool', { name: 'Add', arguments: '{"a":1,"b":2}' }],
    ['call_tool of an unknown tool', 'call_tool', { name: 'Nope', arguments: {} }],
    ['call_tool of a hidden tool', 'call_tool', { name: 'Secret', arguments: {} }],
    ['call_tool whose handler asks', 'call_tool', { name: 'Asks', arguments: {} }],
    ['call_tool of a tool that may run as a task', 'call_tool', { name: 'Later', arguments: {} }],
    ['call_tool: the context a handler sees', 'call_tool', { name: 'Context', arguments: {} }],
    ['a tool by its own name', 'Add', { a: 2, b: 3 }],
  ])('search mode: %s', async (_what, name, args) => {
    const [viaFast, viaSdk] = await both(name, args, { capabilities: { elicitation: {}, sampling: {} } }, true)
    expect(viaFast).toEqual(viaSdk)
  })

  it('search mode: the meta-tools and a call_tool are answered by the fast path; a call_tool of a task tool goes to the SDK', async () => {
    const call = (name: string, args: unknown) => () => modernRequest(searchFast.url, 'tools/call', { name, arguments: args })
    expect(await pathOf(call('search_tools', { query: 'count' }))).toEqual({ fast: 1, sdk: 0 })
    expect(await pathOf(call('describe_tool', { name: 'Count' }))).toEqual({ fast: 1, sdk: 0 })
    calls = 0
    expect(await pathOf(call('call_tool', { name: 'Add', arguments: { a: 1, b: 1 } }))).toEqual({ fast: 1, sdk: 0 })
    expect(calls).toBe(1)
    expect(await pathOf(call('call_tool', { name: 'Later', arguments: {} }))).toEqual({ fast: 0, sdk: 1 })
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

it('the audit line of a call says on the fast path what it says on the SDK path (outcome, bytes), its error included', async () => {
  const outcomes: string[] = []
  const logger = {
    info: (_message: string, record?: Record<string, unknown>) =>
      record && outcomes.push(`${record.tool} ${record.outcome} ${record.bytesIn} ${record.bytesOut}`),
    warn: () => {},
    error: () => {},
  }
  const server = builder('tools').build().logging({ logger, audit: true })
  const viaFast = await server.serveHttp({ port: 0 })
  const viaSdk = await sdkOnly(server)
  const cases: Array<[string, ModernRequestOptions]> = [
    ['Add', {}],
    ['Failing', {}],
    ['Bad', {}],
    ['Roots', {}],
    ['ReturnsAsk', {}],
    ['ReturnsNoAsk', {}],
    ['Asks', { capabilities: { elicitation: {}, sampling: {} } }],
  ]
  const linesOf = async (url: string): Promise<string[]> => {
    outcomes.length = 0
    for (const [name, options] of cases) await modernRequest(url, 'tools/call', { name, arguments: { a: 1, b: 2 } }, options)
    return [...outcomes]
  }
  try {
    const fastLines = await linesOf(viaFast.url)
    expect(fastLines).toEqual(await linesOf(viaSdk.url))
    // The client got an error for these: so do their lines (a question it cannot answer, an input_required asking nothing).
    expect(fastLines.map((line) => line.split(' ').slice(0, -2).join(' '))).toEqual(
      expect.arrayContaining(['Roots error -32021', 'ReturnsAsk error -32021', 'ReturnsNoAsk error -32603']),
    )
  } finally {
    await viaFast.close()
    await viaSdk.close()
  }
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
