/**
 * The fast path of a tools/call (and a notification) in an initialize-era
 * session (src/server/http/session-tool-call.ts) keeps what the session path
 * guarantees: its answer is stored and a resume replays it (also while the
 * call still runs), another caller is refused before any tool runs, 64-bit
 * numbers keep their digits, progress, the session's log level,
 * cancellation and questions to the client work on its stream, and what it
 * does not take (another protocol version) the SDK path answers. Each
 * test checks which path served it (the module wrapped to count).
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { ECHO_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import type { CallContext } from '../../src/runtime/types.ts'

/** Requests the fast path took, and those it handed to the SDK path. */
const paths = vi.hoisted(() => ({ taken: 0, handedOn: 0 }))
vi.mock('../../src/server/http/session-tool-call.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/server/http/session-tool-call.ts')>()
  return {
    ...actual,
    serveSessionCall: (...[find, req, res, body, era, next]: Parameters<typeof actual.serveSessionCall>) => {
      paths.taken++
      return actual.serveSessionCall(find, req, res, body, era, (again, read) => {
        paths.handedOn++
        return next(again, read)
      })
    },
  }
})

/** What served the requests `run` makes: how many the fast path answered, how many it handed to the SDK path. */
async function served<T>(run: () => Promise<T>): Promise<{ fast: number; sdk: number; value: T }> {
  const before = { ...paths }
  const value = await run()
  return { fast: paths.taken - before.taken - (paths.handedOn - before.handedOn), sdk: paths.handedOn - before.handedOn, value }
}

const VERSION = '2025-11-25'
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
const ok = (text: string) => ({ content: [{ type: 'text' as const, text }] })

let http: HttpHandle
let server: Server
const ran: Record<string, number> = {}
const seen: unknown[] = []
let release: () => void = () => {}
let aborted: (reason: unknown) => void = () => {}
const count = (name: string): void => void (ran[name] = (ran[name] ?? 0) + 1)

beforeAll(async () => {
  const echo = createProtoServer(specFromProto(ECHO_PROTO)).implement('EchoService', {
    Echo: (req: { scalars?: { anInt64?: unknown } }) => {
      seen.push(req.scalars?.anInt64)
      return req
    },
  })
  server = Server.builder('session-fast')
    .logging({ logger: false })
    .include(echo)
    .tool(
      { name: 'Add', inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } },
      (args: { a: number; b: number }) => {
        count('Add')
        return ok(String(args.a + args.b))
      },
    )
    .tool({ name: 'Slow', inputSchema: { type: 'object' } }, async () => {
      count('Slow')
      await new Promise<void>((resolve) => (release = resolve))
      return ok('slow done')
    })
    .tool({ name: 'Steps', inputSchema: { type: 'object' } }, async (_args, ctx: CallContext) => {
      count('Steps')
      await ctx.progress?.(1, 'one', 2)
      await ctx.progress?.(2, 'two', 2)
      return ok('stepped')
    })
    .tool({ name: 'Logs', inputSchema: { type: 'object' } }, async (_args, ctx: CallContext) => {
      await ctx.log?.('info', 'an info entry')
      await ctx.log?.('error', 'an error entry')
      return ok('logged')
    })
    .tool({ name: 'Hang', inputSchema: { type: 'object' } }, async (_args, ctx: CallContext) => {
      count('Hang')
      await new Promise<void>((resolve) => ctx.signal?.addEventListener('abort', () => resolve()))
      aborted(ctx.signal?.reason)
      return ok('answered after the cancel')
    })
    .tool({ name: 'Asks', inputSchema: { type: 'object' } }, async (_args, ctx: CallContext) => {
      const answer = await ctx.elicit!({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
      return ok(`hello ${String(answer.content?.name)}`)
    })
    .build()
  http = await server.serveHttp({ port: 0 })
})
afterAll(() => http?.close())

const post = (body: unknown, headers: Record<string, string> = {}, signal?: AbortSignal, url = http.url): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body), signal })

/** Opens a session (initialize, then notifications/initialized) with `extra` headers, declaring `capabilities`. */
async function open(
  extra: Record<string, string> = {},
  capabilities: Record<string, unknown> = {},
  url = http.url,
): Promise<Record<string, string>> {
  const init = await post(
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: VERSION, capabilities, clientInfo: { name: 'raw', version: '0' } },
    },
    extra,
    undefined,
    url,
  )
  await init.text()
  const headers = { ...extra, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': VERSION }
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers, undefined, url)).status).toBe(202)
  return headers
}

interface Event {
  id?: string
  data: string
}

/** The SSE events of a body read so far (`until` stops early, cancelling the body). */
async function events(res: Response, until: (event: Event) => boolean = () => false): Promise<Event[]> {
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  const out: Event[] = []
  let buffer = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return out
    buffer += decoder.decode(value, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const event: Event = { data: '' }
      for (const line of buffer.slice(0, end).split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4)
        else if (line.startsWith('data: ')) event.data += line.slice(6)
      }
      buffer = buffer.slice(end + 2)
      if (event.id === undefined && event.data === '') continue
      out.push(event)
      if (until(event)) {
        await reader.cancel()
        return out
      }
    }
  }
}

const messages = (list: Event[]): Array<Record<string, any>> => list.filter((e) => e.data !== '').map((e) => JSON.parse(e.data))
const call = (id: number, name: string, args: Record<string, unknown> = {}, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, ...(meta ? { _meta: meta } : {}) },
})
const resume = (session: Record<string, string>, lastEventId: string): Promise<Response> =>
  fetch(http.url, { headers: { accept: 'text/event-stream', ...session, 'last-event-id': lastEventId } })

describe('a tools/call in an initialize-era session, answered by the fast path', () => {
  it('is one write with its length: the priming event, then the result, each with an id; a resume from the priming event replays the result, the handler ran once', async () => {
    const session = await open()
    const { value: res, fast } = await served(() => post(call(1, 'Add', { a: 2, b: 3 }), session))
    expect(fast).toBe(1)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/event-stream')
    expect(res.headers.get('mcp-session-id')).toBe(session['mcp-session-id'])
    expect(res.headers.get('content-length')).not.toBeNull()
    const got = await events(res)
    expect(got).toHaveLength(2)
    expect(got[0]!.data).toBe('')
    expect(messages(got)).toEqual([{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '5' }] } }])
    const before = ran.Add
    const replay = await events(await resume(session, got[0]!.id!))
    expect(replay).toEqual([got[1]])
    expect(ran.Add).toBe(before)
  })

  it('a stream dropped mid-call: the answer is stored and a resume gets it; a resume while the call still runs gets it live; the handler ran once', async () => {
    const session = await open()
    const dropped = new AbortController()
    const { value: res, fast } = await served(() => post(call(2, 'Slow'), session, dropped.signal))
    expect(fast).toBe(1)
    // Still running: the stream flushed its headers and priming event (chunked: no length).
    expect(res.headers.get('content-length')).toBeNull()
    const [priming] = await events(res, () => true)
    dropped.abort()
    // Resumed while the call runs (409 until the server saw the drop): the transport keeps the resumed stream open for it.
    let resumed = await resume(session, priming!.id!)
    while (resumed.status === 409) {
      await resumed.text()
      await new Promise((resolve) => setTimeout(resolve, 20))
      resumed = await resume(session, priming!.id!)
    }
    expect(resumed.status).toBe(200)
    release()
    expect(messages(await events(resumed))).toEqual([{ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'slow done' }] } }])
    // And again after it ended: replayed from the store.
    expect(messages(await events(await resume(session, priming!.id!)))).toEqual([
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'slow done' }] } },
    ])
    expect(ran.Slow).toBe(1)
  })

  it("another caller's call on the session (another Authorization, or none) is answered 404 and no tool runs; the owner's is answered", async () => {
    const session = await open({ authorization: 'Bearer owner' })
    const before = ran.Add ?? 0
    for (const other of [{ authorization: 'Bearer intruder' }, {}] as Array<Record<string, string>>) {
      const { authorization: _owner, ...rest } = session
      const res = await post(call(3, 'Add', { a: 1, b: 1 }), { ...rest, ...other })
      expect(res.status).toBe(404)
      expect(await res.json()).toMatchObject({ error: { code: -32001 } })
    }
    expect(ran.Add ?? 0).toBe(before)
    const { value: owner, fast } = await served(() => post(call(4, 'Add', { a: 1, b: 1 }), session))
    expect(fast).toBe(1)
    expect(messages(await events(owner))).toMatchObject([{ id: 4, result: { content: [{ text: '2' }] } }])
    expect(ran.Add).toBe(before + 1)
  })

  it("under nodeHandler, the auth info (req.auth) is the principal: another user's call is 404 and runs nothing; the user's own is served", async () => {
    const handler = server.nodeHandler()
    const node = createServer((req, res) => {
      const user = req.headers['x-user']
      if (typeof user === 'string')
        (req as IncomingMessage & { auth?: unknown }).auth = { token: `t-${user}`, clientId: 'app', scopes: [], extra: { sub: user } }
      handler(req, res)
    })
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
    try {
      const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`
      const session = await open({ 'x-user': 'alice' }, {}, url)
      const before = ran.Add ?? 0
      const theirs = await served(() => post(call(20, 'Add', { a: 1, b: 1 }), { ...session, 'x-user': 'bob' }, undefined, url))
      expect(theirs.value.status).toBe(404)
      await theirs.value.text()
      expect(ran.Add ?? 0).toBe(before)
      const mine = await served(() => post(call(21, 'Add', { a: 2, b: 2 }), session, undefined, url))
      expect(mine.fast).toBe(1)
      expect(messages(await events(mine.value))).toMatchObject([{ id: 21, result: { content: [{ text: '4' }] } }])
      expect(ran.Add).toBe(before + 1)
    } finally {
      await handler.close()
      node.closeAllConnections()
      await new Promise<void>((resolve) => node.close(() => resolve()))
    }
  })

  it('a 64-bit integer written as a JSON number reaches the handler with its digits', async () => {
    const session = await open()
    const { value: res, fast } = await served(() =>
      post(
        '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"Echo","arguments":{"scalars":{"anInt64":9007199254740993}}}}',
        session,
      ),
    )
    expect(fast).toBe(1)
    const [answer] = messages(await events(res))
    expect(seen.at(-1)).toBe('9007199254740993')
    expect(JSON.parse(answer!.result.content[0].text)).toEqual({ scalars: { anInt64: '9007199254740993' } })
  })

  it('a 64-bit integer in a call handed on to the SDK path (its body read and parsed here) reaches the handler with its digits', async () => {
    const session = await open()
    const { value: res, sdk } = await served(() =>
      post('{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"Echo","arguments":{"scalars":{"anInt64":9007199254740995}}}}', {
        ...session,
        'mcp-protocol-version': '2025-06-18',
      }),
    )
    expect(sdk).toBe(1)
    const [answer] = messages(await events(res))
    expect(seen.at(-1)).toBe('9007199254740995')
    expect(JSON.parse(answer!.result.content[0].text)).toEqual({ scalars: { anInt64: '9007199254740995' } })
  })

  it('progress notifications come on the call stream before the result, each stored: a resume from the priming event replays all', async () => {
    const session = await open()
    const { value: res, fast } = await served(() => post(call(6, 'Steps', {}, { progressToken: 'p1' }), session))
    expect(fast).toBe(1)
    const got = await events(res)
    expect(messages(got)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2, message: 'one' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 2, total: 2, message: 'two' } },
      { jsonrpc: '2.0', id: 6, result: { content: [{ type: 'text', text: 'stepped' }] } },
    ])
    expect(new Set(got.map((e) => e.id)).size).toBe(4)
    expect(await events(await resume(session, got[0]!.id!))).toEqual(got.slice(1))
  })

  it("the session's log level filters a tool's log entries", async () => {
    const session = await open()
    const all = messages(await events(await post(call(7, 'Logs'), session)))
    expect(all.filter((m) => m.method === 'notifications/message').map((m) => m.params.level)).toEqual(['info', 'error'])
    await (await post({ jsonrpc: '2.0', id: 8, method: 'logging/setLevel', params: { level: 'error' } }, session)).text()
    const { value: res, fast } = await served(() => post(call(9, 'Logs'), session))
    expect(fast).toBe(1)
    const filtered = messages(await events(res))
    expect(filtered.filter((m) => m.method === 'notifications/message').map((m) => m.params.data)).toEqual(['an error entry'])
    expect(filtered.at(-1)).toMatchObject({ id: 9, result: { content: [{ text: 'logged' }] } })
  })

  it('notifications/cancelled aborts the handler and ends its stream without an answer; the session keeps serving', async () => {
    const session = await open()
    const reason = new Promise((resolve) => (aborted = resolve))
    const { value: res, fast } = await served(() => post(call(10, 'Hang'), session))
    expect(fast).toBe(1)
    const reading = events(res)
    await expect.poll(() => ran.Hang).toBe(1)
    const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, reason: 'no longer needed' } }
    const cancelled = await served(() => post(cancel, session))
    expect(cancelled).toMatchObject({ fast: 1, value: { status: 202 } })
    expect(String(await reason)).toContain('no longer needed')
    expect(messages(await reading)).toEqual([])
    const next = await post(call(11, 'Add', { a: 4, b: 4 }), session)
    expect(messages(await events(next))).toMatchObject([{ id: 11, result: { content: [{ text: '8' }] } }])
  })

  it("a question from inside the tool reaches the client on the call's stream, and the client's answer completes the call", async () => {
    const session = await open({}, { elicitation: {} })
    const { value: res, fast } = await served(() => post(call(12, 'Asks'), session))
    expect(fast).toBe(1)
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    while (!text.includes('elicitation/create')) text += decoder.decode((await reader.read()).value, { stream: true })
    const question = JSON.parse(/data: (\{.*elicitation\/create.*\})/.exec(text)![1]!)
    expect(question).toMatchObject({ method: 'elicitation/create', params: { message: 'Name?' } })
    const answered = await post({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { name: 'Ada' } } }, session)
    expect(answered.status).toBe(202)
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    expect(text).toContain('"result":{"content":[{"type":"text","text":"hello Ada"}]}')
  })

  it('what it does not take goes to the SDK path: another supported protocol version is answered there, an unsupported one is 400', async () => {
    const session = await open()
    const { value: other, sdk } = await served(() =>
      post(call(13, 'Add', { a: 1, b: 2 }), { ...session, 'mcp-protocol-version': '2025-06-18' }),
    )
    expect(sdk).toBe(1)
    expect(other.status).toBe(200)
    expect(messages(await events(other))).toMatchObject([{ id: 13, result: { content: [{ text: '3' }] } }])
    const unsupported = await post(call(14, 'Add', { a: 1, b: 2 }), { ...session, 'mcp-protocol-version': '1999-01-01' })
    expect(unsupported.status).toBe(400)
    expect(await unsupported.text()).toContain('Unsupported protocol version')
    // A session that does not exist: the SDK path's 404.
    const unknown = await post(call(15, 'Add', { a: 1, b: 2 }), { ...session, 'mcp-session-id': 'no-such-session' })
    expect(unknown.status).toBe(404)
  })
})
