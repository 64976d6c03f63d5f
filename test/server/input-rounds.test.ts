/**
 * Questions a handler asks (`ctx.elicit`, `ctx.sample`, `ctx.listRoots`)
 * as 2026-07-28 `input_required` rounds on the wire: several at once under
 * the keys the handler names, answers that are malformed or missing asked
 * again, rounds of `prompts/get` and `resources/read` as well as
 * `tools/call`, a question the client cannot answer refused with `-32021`
 * and HTTP 400, and the client's capabilities in the handler's context in
 * both eras.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const info = { name: 'input-rounds-test', version: '0.0.0' }
const ok = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })
const form = (message: string) => ({ message, requestedSchema: { type: 'object', properties: { v: { type: 'string' } } } })
const accept = (v: string) => ({ action: 'accept', content: { v } })
const ALL = { elicitation: {}, sampling: {}, roots: {} }

let http: HttpHandle
let url: string
let runs = 0
const closers = new Closer()

beforeAll(async () => {
  const server = Server.builder('rounds')
    .tool({ name: 'Three', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      runs++
      const [name, said, { roots }] = await Promise.all([
        ctx.elicit!(form('Name?'), { key: 'name' }),
        ctx.sample!({ messages: [{ role: 'user', content: { type: 'text', text: 'Hi?' } }], maxTokens: 5 }, { key: 'said' }),
        ctx.listRoots!({ key: 'roots' }),
      ])
      return ok(`${String(name.content?.v)} ${(said.content as { text: string }).text} ${roots.map((r) => r.uri).join(',')}`)
    })
    .tool({ name: 'Roots', inputSchema: { type: 'object' } }, async (_args, ctx) => ok(JSON.stringify((await ctx.listRoots!()).roots)))
    .tool({ name: 'NeedsSampling', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      await ctx.sample!({ messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 1 })
      return ok('sampled')
    })
    .tool({ name: 'Capabilities', inputSchema: { type: 'object' } }, (_args, ctx) => ok(JSON.stringify(ctx.clientCapabilities ?? null)))
    .prompt({ name: 'asking-prompt' }, async (_args, ctx) => `context: ${String((await ctx.elicit!(form('Context?'))).content?.v)}`)
    .resource(
      { uri: 'test://asking', name: 'asking' },
      async (_uri, ctx) => `read for ${String((await ctx.elicit!(form('Who?'))).content?.v)}`,
    )
    .build()
  http = await server.serveHttp({ port: 0 })
  url = http.url
})

afterAll(async () => {
  await closers.close()
  await http?.close()
})

describe('a round asks every question the handler asked before it stopped', () => {
  it('three questions at once, under the keys the handler gave; the retry with all three answers completes', async () => {
    runs = 0
    const first = await modernRequest(url, 'tools/call', { name: 'Three', arguments: {} }, { capabilities: ALL })
    expect(first.status).toBe(200)
    const r1 = first.body.result!
    expect(r1.resultType).toBe('input_required')
    expect(Object.keys(r1.inputRequests).sort()).toEqual(['name', 'roots', 'said'])
    expect(r1.inputRequests.roots).toEqual({ method: 'roots/list', params: {} })
    expect(r1.inputRequests.said.method).toBe('sampling/createMessage')
    const second = await modernRequest(
      url,
      'tools/call',
      {
        name: 'Three',
        arguments: {},
        requestState: r1.requestState,
        inputResponses: {
          name: accept('Ada'),
          said: { role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' },
          roots: { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] },
        },
      },
      { capabilities: ALL },
    )
    expect(second.body.result).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Ada hello file:///a,file:///b' }] })
    expect(runs).toBe(2)
  })

  it('a malformed answer, or one under a key never asked, counts as none: the question comes back', async () => {
    for (const inputResponses of [{ name: 12345 }, { name: { action: 'maybe' } }, { wrong_key: accept('x') }]) {
      const retry = await modernRequest(url, 'tools/call', { name: 'Three', arguments: {}, inputResponses }, { capabilities: ALL })
      expect(retry.body.result?.resultType, JSON.stringify(inputResponses)).toBe('input_required')
      expect(Object.keys(retry.body.result!.inputRequests)).toContain('name')
    }
  })

  it('answers given in an earlier round stay answered: a partial retry asks only the rest', async () => {
    const r1 = (await modernRequest(url, 'tools/call', { name: 'Three', arguments: {} }, { capabilities: ALL })).body.result!
    const r2 = (
      await modernRequest(
        url,
        'tools/call',
        { name: 'Three', arguments: {}, requestState: r1.requestState, inputResponses: { name: accept('Bo') } },
        { capabilities: ALL },
      )
    ).body.result!
    expect(Object.keys(r2.inputRequests).sort()).toEqual(['roots', 'said'])
    const r3 = await modernRequest(
      url,
      'tools/call',
      {
        name: 'Three',
        arguments: {},
        requestState: r2.requestState,
        inputResponses: { said: { role: 'assistant', content: { type: 'text', text: 'yo' }, model: 'm' }, roots: { roots: [] } },
      },
      { capabilities: ALL },
    )
    expect(text(r3.body.result)).toBe('Bo yo ')
  })
})

describe('a question the client did not declare it can answer', () => {
  it('2026-07-28: -32021 naming the capability, with HTTP 400', async () => {
    const response = await modernRequest(url, 'tools/call', { name: 'NeedsSampling', arguments: {} }, { capabilities: { elicitation: {} } })
    expect(response.status).toBe(400)
    expect(response.body.error).toMatchObject({ code: -32021, data: { requiredCapabilities: { sampling: {} } } })
  })
})

describe('prompts/get and resources/read ask in rounds too', () => {
  it('SDK v2 pinned to 2026-07-28 answers the rounds of a prompt and of a resource read', async () => {
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } })
    await client.connect(new HttpV2(new URL(url)))
    closers.push(() => client.close())
    client.setRequestHandler('elicitation/create', (request) => ({ action: 'accept', content: { v: `re ${request.params.message}` } }))
    const prompt = await client.getPrompt({ name: 'asking-prompt', arguments: {} })
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'context: re Context?' })
    const read = await client.readResource({ uri: 'test://asking' })
    expect(read.contents[0]).toMatchObject({ uri: 'test://asking', text: 'read for re Who?' })
  })

  it('on the wire: the prompt round is sealed for the prompt (a tool cannot reuse its state)', async () => {
    const r1 = (await modernRequest(url, 'prompts/get', { name: 'asking-prompt' }, { capabilities: ALL })).body.result!
    expect(r1.resultType).toBe('input_required')
    const misused = await modernRequest(
      url,
      'tools/call',
      { name: 'Three', arguments: {}, requestState: r1.requestState },
      { capabilities: ALL },
    )
    expect(misused.body.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' })
  })

  it('initialize era: the prompt asks the client with a request on its stream', async () => {
    const client = new ClientV1(info, { capabilities: { elicitation: {} } })
    await client.connect(new HttpV1(new URL(url)))
    closers.push(() => client.close())
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { v: 'v1' } }))
    const prompt = await client.getPrompt({ name: 'asking-prompt' })
    expect(prompt.messages[0]!.content).toEqual({ type: 'text', text: 'context: v1' })
  })
})

describe('roots and the client capabilities', () => {
  it('initialize era: listRoots is a roots/list request, and the context holds the initialize capabilities', async () => {
    const client = new ClientV1(info, { capabilities: { roots: { listChanged: true } } })
    await client.connect(new HttpV1(new URL(url)))
    closers.push(() => client.close())
    client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///w', name: 'w' }] }))
    expect(JSON.parse(text(await client.callTool({ name: 'Roots', arguments: {} })))).toEqual([{ uri: 'file:///w', name: 'w' }])
    expect(JSON.parse(text(await client.callTool({ name: 'Capabilities', arguments: {} })))).toEqual({ roots: { listChanged: true } })
  })

  it('2026-07-28: the context holds the request’s own declared capabilities', async () => {
    const response = await modernRequest(url, 'tools/call', { name: 'Capabilities', arguments: {} }, { capabilities: { sampling: {} } })
    expect(JSON.parse(text(response.body.result))).toEqual({ sampling: {} })
  })
})
