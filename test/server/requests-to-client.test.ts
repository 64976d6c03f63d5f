/**
 * What a handler asks of its client, through real clients over HTTP: log
 * entries filtered by the client's level (`logging/setLevel`, or a
 * 2026-07-28 request's own), progress with a total, elicitation and
 * sampling round trips (SDK v1, and v2 in the initialize era), from
 * hand-written tools and from a proto tool's `implement()` handler.
 */
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, LOG_LEVEL_META_KEY, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server, type HttpHandle, type LogLevel } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { implementCount } from '../conformance/everything.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const LEVELS: LogLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']
const info = { name: 'client-requests-test', version: '0.0.0' }
const ok = (value: string) => ({ content: [{ type: 'text' as const, text: value }] })

let http: HttpHandle
let askTwiceRuns = 0
const closers = new Closer()

beforeAll(async () => {
  const proto = implementCount(
    createProtoServer(specFromProto(fileURLToPath(new URL('../conformance/conformance.proto', import.meta.url)))),
  )
  const server = Server.builder('asking')
    .include(proto)
    .tool({ name: 'LogAll', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      for (const level of LEVELS) await ctx.log?.(level, { level }, 'log-all')
      return ok('logged')
    })
    .tool({ name: 'BadLevel', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      await ctx.log?.('loud' as LogLevel, 'x')
      return ok('unreachable')
    })
    .tool({ name: 'Ask', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      const answer = await ctx.elicit!({
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      })
      return ok(`${answer.action}:${JSON.stringify(answer.content ?? null)}`)
    })
    .tool({ name: 'AskTwice', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      askTwiceRuns++
      const first = await ctx.elicit!({ message: 'First?', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } })
      const second = await ctx.sample!({ messages: [{ role: 'user', content: { type: 'text', text: 'Second?' } }], maxTokens: 5 })
      return ok(`${JSON.stringify(first.content)} ${(second.content as { text: string }).text} ${JSON.stringify(ctx.requestState ?? null)}`)
    })
    .tool({ name: 'Sample', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      const answer = await ctx.sample!({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 })
      return ok(`${answer.model}:${(answer.content as { text: string }).text}`)
    })
    .build()
  http = await server.serveHttp({ port: 0 })
})

afterAll(async () => {
  await closers.close()
  await http?.close()
})

async function v1(capabilities: Record<string, unknown> = {}): Promise<ClientV1> {
  const client = new ClientV1(info, { capabilities })
  await client.connect(new HttpV1(new URL(http.url)))
  closers.push(() => client.close())
  return client
}

async function v2(mode: 'legacy' | { pin: '2026-07-28' }, capabilities: Record<string, unknown> = {}): Promise<ClientV2> {
  const client = new ClientV2(info, { capabilities, ...(mode === 'legacy' ? {} : { versionNegotiation: { mode } }) })
  await client.connect(new HttpV2(new URL(http.url)))
  closers.push(() => client.close())
  return client
}

describe('logging', () => {
  it('SDK v1: the server declares logging and sends only entries at or above the level the client set', async () => {
    const client = await v1()
    expect(client.getServerCapabilities()?.logging).toEqual({})
    const heard: string[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      heard.push(n.params.level)
    })
    expect(await client.setLoggingLevel('warning')).toEqual({})
    expect(text(await client.callTool({ name: 'LogAll', arguments: {} }))).toBe('logged')
    expect(heard).toEqual(['warning', 'error', 'critical', 'alert', 'emergency'])
    heard.length = 0
    await client.setLoggingLevel('debug')
    await client.callTool({ name: 'LogAll', arguments: {} })
    expect(heard).toEqual(LEVELS)
  })

  it('the level is per client: one client setting it does not filter another', async () => {
    const quiet = await v1()
    const loud = await v1()
    await quiet.setLoggingLevel('emergency')
    await loud.setLoggingLevel('debug')
    const heard: string[] = []
    loud.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      heard.push(n.params.level)
    })
    await loud.callTool({ name: 'LogAll', arguments: {} })
    expect(heard).toHaveLength(LEVELS.length)
  })

  it('SDK v2 initialize era: entries carry data and logger', async () => {
    const client = await v2('legacy')
    const heard: unknown[] = []
    client.setNotificationHandler('notifications/message', (n) => {
      heard.push(n.params)
    })
    await client.setLoggingLevel('critical')
    await client.callTool({ name: 'LogAll', arguments: {} })
    expect(heard).toEqual(['critical', 'alert', 'emergency'].map((level) => ({ level, data: { level }, logger: 'log-all' })))
  })

  it('SDK v2 2026-07-28: a request carrying its own level gets entries at or above it, one without gets none', async () => {
    const client = await v2({ pin: '2026-07-28' })
    expect(client.getProtocolEra()).toBe('modern')
    const heard: string[] = []
    client.setNotificationHandler('notifications/message', (n) => {
      heard.push(n.params.level)
    })
    await client.callTool({ name: 'LogAll', arguments: {}, _meta: { [LOG_LEVEL_META_KEY]: 'error' } })
    expect(heard).toEqual(['error', 'critical', 'alert', 'emergency'])
    heard.length = 0
    await client.callTool({ name: 'LogAll', arguments: {} })
    expect(heard).toEqual([])
  })

  it('a level MCP does not have is a tool error naming the levels', async () => {
    const client = await v1()
    const result = await client.callTool({ name: 'BadLevel', arguments: {} })
    expect(result.isError).toBe(true)
    expect(text(result)).toContain('unknown log level "loud": use one of debug, info')
  })
})

describe('a proto tool logs and reports progress from its implement() handler', () => {
  it('SDK v1: log entries, and progress with a total', async () => {
    const client = await v1()
    const logs: unknown[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      logs.push(n.params)
    })
    await client.setLoggingLevel('info')
    const progress: unknown[] = []
    const result = await client.callTool({ name: 'Count', arguments: { n: 2 } }, undefined, {
      onprogress: (p) => {
        progress.push(p)
      },
    })
    expect(JSON.parse(text(result))).toEqual({ counted: 2 })
    expect(logs).toEqual([
      { level: 'info', data: 'counted 1 of 2', logger: 'count' },
      { level: 'info', data: 'counted 2 of 2', logger: 'count' },
    ])
    expect(progress).toEqual([
      { progress: 1, total: 2, message: 'step 1' },
      { progress: 2, total: 2, message: 'step 2' },
    ])
  })

  it('SDK v2 2026-07-28: progress reaches the caller too', async () => {
    const client = await v2({ pin: '2026-07-28' })
    const progress: unknown[] = []
    await client.callTool(
      { name: 'Count', arguments: { n: 1 } },
      {
        onprogress: (p) => {
          progress.push(p)
        },
      },
    )
    expect(progress).toEqual([{ progress: 1, total: 1, message: 'step 1' }])
  })
})

describe('elicitation', () => {
  it('SDK v1: the tool asks, the client answers, the tool gets the answer (accept and decline)', async () => {
    const client = await v1({ elicitation: {} })
    const asked: unknown[] = []
    let action: 'accept' | 'decline' = 'accept'
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params)
      return action === 'accept' ? { action, content: { name: 'Ada' } } : { action }
    })
    expect(text(await client.callTool({ name: 'Ask', arguments: {} }))).toBe('accept:{"name":"Ada"}')
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'Your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      },
    ])
    action = 'decline'
    expect(text(await client.callTool({ name: 'Ask', arguments: {} }))).toBe('decline:null')
  })

  it('SDK v2 initialize era: the same round trip', async () => {
    const client = await v2('legacy', { elicitation: { form: {} } })
    client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Grace' } }))
    expect(text(await client.callTool({ name: 'Ask', arguments: {} }))).toBe('accept:{"name":"Grace"}')
  })

  it('a client that cannot elicit: the tool fails with an error result, the session goes on', async () => {
    const client = await v1()
    const result = await client.callTool({ name: 'Ask', arguments: {} })
    expect(result.isError).toBe(true)
    expect(text(await client.callTool({ name: 'LogAll', arguments: {} }))).toBe('logged')
  })
})

describe('sampling', () => {
  it('SDK v1: the tool asks the client model and gets its message', async () => {
    const client = await v1({ sampling: {} })
    const asked: unknown[] = []
    client.setRequestHandler(CreateMessageRequestSchema, (request) => {
      asked.push(request.params)
      return { role: 'assistant', content: { type: 'text', text: 'hi!' }, model: 'test-model', stopReason: 'endTurn' }
    })
    expect(text(await client.callTool({ name: 'Sample', arguments: {} }))).toBe('test-model:hi!')
    expect(asked).toEqual([{ messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }], maxTokens: 10 }])
  })

  it('SDK v2 initialize era: the same round trip', async () => {
    const client = await v2('legacy', { sampling: {} })
    client.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm2' }))
    expect(text(await client.callTool({ name: 'Sample', arguments: {} }))).toBe('m2:hello')
  })
})

describe('2026-07-28: a question is an input_required round', () => {
  it('SDK v2 pinned: elicitation, then sampling, each one round; the handler runs again with the earlier answers', async () => {
    const client = await v2({ pin: '2026-07-28' }, { elicitation: { form: {} }, sampling: {} })
    expect(client.getProtocolEra()).toBe('modern')
    const asked: string[] = []
    client.setRequestHandler('elicitation/create', (request) => {
      asked.push(request.params.message)
      return { action: 'accept', content: { a: 'x' } }
    })
    client.setRequestHandler('sampling/createMessage', () => {
      asked.push('sample')
      return { role: 'assistant', content: { type: 'text', text: 'two' }, model: 'm' }
    })
    askTwiceRuns = 0
    // The handler's own requestState stays its own: our answers never show up in context.requestState.
    expect(text(await client.callTool({ name: 'AskTwice', arguments: {} }))).toBe('{"a":"x"} two null')
    expect(asked).toEqual(['First?', 'sample'])
    expect(askTwiceRuns).toBe(3)
    expect(text(await client.callTool({ name: 'Ask', arguments: {} }))).toBe('accept:{"a":"x"}')
  })

  it('without auto-fulfilment the client sees the input_required result with one question and a sealed state', async () => {
    const client = new ClientV2(info, {
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      inputRequired: { autoFulfill: false },
      capabilities: { elicitation: { form: {} } },
    })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    const first = (await client.callTool({ name: 'Ask', arguments: {} }, { allowInputRequired: true })) as unknown as Record<
      string,
      unknown
    >
    expect(first).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'ask-0': { method: 'elicitation/create', params: { mode: 'form', message: 'Your name?' } } },
      requestState: expect.any(String),
    })
  })
})
