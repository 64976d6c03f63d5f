/**
 * Sessions and requestStates are bound to the caller, on the real wire.
 * A session remembers the principal that opened it (auth info, else the
 * Authorization header): any other caller's POST, GET with Last-Event-ID or
 * DELETE is answered 404 like an unknown session, and the session lives on.
 * A requestState is bound to its tool, the principal and the session, and
 * is usable once: another tool, another user, no user and a replay are each
 * refused with -32602 before the handler runs.
 */
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, describe, expect, it } from 'vitest'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server, type HttpHandle, type InputRequiredResult } from '../../src/entries/runtime.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'
import { openSession } from '../helpers/http-session.ts'

const closers = new Closer()
afterAll(() => closers.close())

const ok = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: false })
const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' }
const ALICE = { authorization: 'Bearer alice' }
const BOB = { authorization: 'Bearer bob' }

/** A server whose `Confirm` and `Other` tools ask for a second round; `runs` records what each handler saw. */
function mrtrServer() {
  const runs: unknown[] = []
  const tool = (name: string) =>
    [
      { name, inputSchema: { type: 'object' } },
      async (_args: unknown, ctx: { requestState?: unknown; sealRequestState?: (p: unknown) => Promise<string> }) => {
        runs.push([name, ctx.requestState])
        if (ctx.requestState === undefined)
          return { resultType: 'input_required', requestState: await ctx.sealRequestState!({ from: name }) } satisfies InputRequiredResult
        return ok(`${name} confirmed ${JSON.stringify(ctx.requestState)}`)
      },
    ] as const
  const server = Server.builder('bound')
    .requestStateKey('k'.repeat(32))
    .tool(...tool('Confirm'))
    .tool(...tool('Other'))
    .tool({ name: 'Echo', inputSchema: { type: 'object' } }, () => ok('echo'))
    .build()
  return { server, runs }
}

async function serve(): Promise<HttpHandle> {
  const http = await mrtrServer().server.serveHttp({ port: 0 })
  closers.push(() => http.close())
  return http
}

const post = (url: string, headers: Record<string, string>, body: unknown): Promise<Response> =>
  fetch(url, { method: 'POST', headers: { ...HEADERS, ...headers }, body: JSON.stringify(body) })

/** The SSE event ids and data of a finished response body. */
async function events(res: Response): Promise<Array<{ id?: string; data: string }>> {
  const text = await res.text()
  return text
    .split('\n\n')
    .map((block) => {
      const event: { id?: string; data: string } = { data: '' }
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) event.id = line.slice(4)
        else if (line.startsWith('data: ')) event.data += line.slice(6)
      }
      return event
    })
    .filter((e) => e.data !== '')
}

describe('a session is bound to the caller that opened it', () => {
  it('another bearer token, or none, gets 404 for POST, GET with Last-Event-ID and DELETE; the owner keeps it', async () => {
    const http = await serve()
    const id = await openSession(http.url, { headers: ALICE })
    const call = await post(
      http.url,
      { ...ALICE, 'mcp-session-id': id },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'Echo', arguments: {} } },
    )
    const [result] = await events(call)
    expect(result!.data).toContain('echo')
    // An event before the result, to resume after (the priming event of the POST's stream).
    const lastEventId = result!.id ?? '0'

    for (const other of [BOB, {}]) {
      const listed = await post(http.url, { ...other, 'mcp-session-id': id }, { jsonrpc: '2.0', id: 2, method: 'tools/list' })
      expect(listed.status).toBe(404)
      expect(await listed.json()).toMatchObject({ error: { code: -32001, message: 'Session not found: initialize a new session' } })
      const replay = await fetch(http.url, {
        method: 'GET',
        headers: { ...HEADERS, ...other, accept: 'text/event-stream', 'mcp-session-id': id, 'last-event-id': lastEventId },
      })
      expect(replay.status).toBe(404)
      expect(await replay.text()).not.toContain('echo')
      const deleted = await fetch(http.url, { method: 'DELETE', headers: { ...HEADERS, ...other, 'mcp-session-id': id } })
      expect(deleted.status).toBe(404)
      await deleted.text()
    }
    expect(http.sessionCount).toBe(1)
    const still = await post(http.url, { ...ALICE, 'mcp-session-id': id }, { jsonrpc: '2.0', id: 3, method: 'tools/list' })
    expect(still.status).toBe(200)
    await still.text()
    const deleted = await fetch(http.url, { method: 'DELETE', headers: { ...HEADERS, ...ALICE, 'mcp-session-id': id } })
    expect(deleted.status).toBe(200)
    expect(http.sessionCount).toBe(0)
  })

  it('under nodeHandler, req.auth is the principal', async () => {
    const handler = mrtrServer().server.nodeHandler()
    const node = createServer((req, res) => {
      const user = req.headers['x-user']
      if (typeof user === 'string')
        (req as IncomingMessage & { auth?: unknown }).auth = { token: `t-${user}`, clientId: 'app', scopes: [], extra: { sub: user } }
      handler(req, res)
    })
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
    closers.push(async () => {
      await handler.close()
      node.closeAllConnections()
      await new Promise<void>((resolve) => node.close(() => resolve()))
    })
    const url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`
    const id = await openSession(url, { headers: { 'x-user': 'alice' } })
    const mine = await post(url, { 'x-user': 'alice', 'mcp-session-id': id }, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(mine.status).toBe(200)
    await mine.text()
    const theirs = await post(url, { 'x-user': 'bob', 'mcp-session-id': id }, { jsonrpc: '2.0', id: 1, method: 'tools/list' })
    expect(theirs.status).toBe(404)
    await theirs.text()
  })
})

describe('a requestState is bound to its tool, the caller and the session, and usable once', () => {
  const info = { name: 'binding', version: '0' }
  async function client(url: string, headers: Record<string, string>): Promise<ClientV2> {
    const c = new ClientV2(info, { versionNegotiation: { mode: 'auto' }, inputRequired: { autoFulfill: false } })
    await c.connect(new HttpV2(new URL(url), { requestInit: { headers } }))
    closers.push(() => c.close())
    return c
  }
  const stateOf = async (c: ClientV2, name = 'Confirm'): Promise<string> =>
    ((await c.callTool({ name, arguments: {} }, { allowInputRequired: true })) as unknown as InputRequiredResult).requestState!
  const retry = (c: ClientV2, name: string, requestState: string) => c.callTool({ name, arguments: {}, requestState } as never)
  const refused = { code: -32602, message: expect.stringContaining('Invalid or expired requestState') }

  it('2026-07-28: another tool, another user, no user and a replay are refused; the owner retries once', async () => {
    const http = await serve()
    const alice = await client(http.url, ALICE)
    const bob = await client(http.url, BOB)
    const nobody = await client(http.url, {})
    const state = await stateOf(alice)
    await expect(retry(alice, 'Other', state)).rejects.toMatchObject(refused)
    await expect(retry(bob, 'Confirm', state)).rejects.toMatchObject(refused)
    await expect(retry(nobody, 'Confirm', state)).rejects.toMatchObject(refused)
    const done = await retry(alice, 'Confirm', state)
    expect(text(done)).toBe('Confirm confirmed {"from":"Confirm"}')
    await expect(retry(alice, 'Confirm', state)).rejects.toMatchObject(refused)
  })

  it('initialize era: the SDK retries inside the session once; a state from outside the session is refused', async () => {
    const http = await serve()
    const id = await openSession(http.url, { headers: ALICE })
    const call = (requestState?: string) =>
      post(
        http.url,
        { ...ALICE, 'mcp-session-id': id },
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'Confirm', arguments: {}, ...(requestState ? { requestState } : {}) },
        },
      )
        .then(events)
        .then((e) => JSON.parse(e.at(-1)!.data) as { result?: { content?: Array<{ text: string }> }; error?: { code: number } })
    // An initialize-era client cannot answer input_required: the SDK re-enters the handler with the state itself.
    expect((await call()).result?.content?.[0]?.text).toBe('Confirm confirmed {"from":"Confirm"}')
    const outside = await stateOf(await client(http.url, ALICE))
    const refusedInSession = await call(outside)
    expect(refusedInSession.error?.code).toBe(-32602)
  })
})
