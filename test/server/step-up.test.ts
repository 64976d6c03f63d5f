/**
 * Step-up authorization (`auth.scopedTools`, src/server/http/step-up.ts):
 * the 401 names only the scopes every request needs; a call of a tool whose
 * scopes the token lacks answers `403 insufficient_scope` naming what the
 * call needs, on a 2026-07-28 request (the fast path's) and in an
 * initialize-era session (its fast path's), through `serveHttp()` and
 * `fetch()`; `tools/list` still hides the tool; `'hide'` answers it as an
 * unknown tool. Tokens from a real OpenID provider on loopback.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { JSON_RPC_HEADERS, openSession } from '../helpers/http-session.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'

let oidc: OidcProvider
let stepUp: HttpHandle
let hide: HttpHandle
let searching: HttpHandle
let server: Server
let ran: string[] = []

const build = (discovery: 'tools' | 'search' = 'tools'): Server =>
  Server.builder('gated')
    .discovery(discovery)
    .logging({ logger: false })
    .tool({ name: 'Whoami', inputSchema: { type: 'object' } }, () => {
      ran.push('Whoami')
      return { content: [{ type: 'text', text: 'me' }] }
    })
    .tool({ name: 'Admin', inputSchema: { type: 'object' }, requires: { scopes: ['notes.write'] } }, () => {
      ran.push('Admin')
      return { content: [{ type: 'text', text: 'admin' }] }
    })
    .build()

beforeAll(async () => {
  oidc = await startOidcProvider()
  server = build()
  stepUp = await server.serveHttp({ port: 0, auth: { issuer: oidc.issuer, scopes: ['mcp'] } })
  hide = await build().serveHttp({ port: 0, auth: { issuer: oidc.issuer, scopes: ['mcp'], scopedTools: 'hide' } })
  searching = await build('search').serveHttp({ port: 0, auth: { issuer: oidc.issuer, scopes: ['mcp'] } })
})

afterAll(async () => {
  await stepUp?.close()
  await hide?.close()
  await searching?.close()
  await oidc?.close()
})

const metadataOf = (url: string): string => `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`

let nextId = 1
/** A 2026-07-28 request (the headers the fast path takes it by). */
const modern = (url: string, method: string, params: Record<string, unknown>, token: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: {
      ...JSON_RPC_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'step-up', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    }),
  })

/** The initialize era's last version: its sessions' calls take the session fast path (session-tool-call.ts). */
const LEGACY = '2025-11-25'
const session = (url: string, token: string): Promise<string> =>
  openSession(url, { protocolVersion: LEGACY, headers: { authorization: `Bearer ${token}` } })

/** A request in the initialize-era session `session`. */
const legacy = (url: string, id: string, method: string, params: Record<string, unknown>, token: string): Promise<Response> =>
  fetch(url, {
    method: 'POST',
    headers: { ...JSON_RPC_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': LEGACY, authorization: `Bearer ${token}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  })

/** The JSON-RPC message of a JSON or SSE body. */
const messageOf = async (response: Response): Promise<Record<string, any>> => {
  const text = await response.text()
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .find((line) => line.startsWith('data: {'))!
        .slice(6)
  return JSON.parse(data)
}

const expectStepUp = async (response: Response, url: string): Promise<void> => {
  expect(response.status).toBe(403)
  expect(response.headers.get('www-authenticate')).toBe(
    `Bearer error="insufficient_scope", error_description="tool \\"Admin\\" needs scope \\"notes.write\\"", scope="mcp notes.write", resource_metadata="${metadataOf(url)}"`,
  )
  expect(await response.json()).toEqual({ error: 'insufficient_scope', error_description: 'tool "Admin" needs scope "notes.write"' })
}

/** `fetch()` of `server` with auth for `resource`: a 2026-07-28 call of Admin with `token`. */
const fetchAdmin = (server: Server, resource: string, token: string): Promise<Response> =>
  server.fetch(
    new Request(resource, {
      method: 'POST',
      headers: {
        ...JSON_RPC_HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'Admin',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'Admin',
          arguments: {},
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'step-up', version: '0' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    }),
    { auth: { issuer: oidc.issuer, resource, scopes: ['mcp'] } },
  )

describe("the 401 names what every request needs, never a tool's scopes", () => {
  it('no token: scope="mcp" (notes.write is only for Admin)', async () => {
    const response = await fetch(stepUp.url, { method: 'POST', headers: JSON_RPC_HEADERS, body: '{}' })
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataOf(stepUp.url)}", scope="mcp"`)
  })
})

describe("scopedTools: 'step-up' (the default)", () => {
  it('2026-07-28: the call is answered 403 insufficient_scope naming the scopes it needs; the tool does not run; the list hides it', async () => {
    ran = []
    const token = await oidc.token('reader', stepUp.url)
    await expectStepUp(await modern(stepUp.url, 'tools/call', { name: 'Admin', arguments: {} }, token), stepUp.url)
    expect(ran).toEqual([])
    const listed = await messageOf(await modern(stepUp.url, 'tools/list', {}, token))
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual(['Whoami'])
    // The unscoped tool is called as before; an unknown tool stays -32602.
    expect((await messageOf(await modern(stepUp.url, 'tools/call', { name: 'Whoami', arguments: {} }, token))).result).toMatchObject({
      content: [{ text: 'me' }],
    })
    const unknown = await modern(stepUp.url, 'tools/call', { name: 'Nope', arguments: {} }, token)
    expect((await messageOf(unknown)).error.code).toBe(-32602)
    expect(ran).toEqual(['Whoami'])
  })

  it('an initialize-era session: the same 403, and the session goes on', async () => {
    ran = []
    const token = await oidc.token('reader', stepUp.url)
    const id = await session(stepUp.url, token)
    await expectStepUp(await legacy(stepUp.url, id, 'tools/call', { name: 'Admin', arguments: {} }, token), stepUp.url)
    const listed = await messageOf(await legacy(stepUp.url, id, 'tools/list', {}, token))
    expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual(['Whoami'])
    const called = await messageOf(await legacy(stepUp.url, id, 'tools/call', { name: 'Whoami', arguments: {} }, token))
    expect(called.result).toMatchObject({ content: [{ text: 'me' }] })
    expect(ran).toEqual(['Whoami'])
  })

  it('a token with the scope: the call runs (both eras)', async () => {
    ran = []
    const token = await oidc.token('service', stepUp.url)
    expect((await messageOf(await modern(stepUp.url, 'tools/call', { name: 'Admin', arguments: {} }, token))).result).toMatchObject({
      content: [{ text: 'admin' }],
    })
    const id = await session(stepUp.url, token)
    expect((await messageOf(await legacy(stepUp.url, id, 'tools/call', { name: 'Admin', arguments: {} }, token))).result).toMatchObject({
      content: [{ text: 'admin' }],
    })
    expect(ran).toEqual(['Admin', 'Admin'])
  })

  it('search mode: a call_tool naming the tool is answered the same 403 (both eras); with the scope it runs', async () => {
    ran = []
    const reader = await oidc.token('reader', searching.url)
    const viaCallTool = { name: 'call_tool', arguments: { name: 'Admin', arguments: {} } }
    await expectStepUp(await modern(searching.url, 'tools/call', viaCallTool, reader), searching.url)
    const id = await session(searching.url, reader)
    await expectStepUp(await legacy(searching.url, id, 'tools/call', viaCallTool, reader), searching.url)
    expect(ran).toEqual([])
    const service = await oidc.token('service', searching.url)
    expect((await messageOf(await modern(searching.url, 'tools/call', viaCallTool, service))).result).toMatchObject({
      content: [{ text: 'admin' }],
    })
    expect(ran).toEqual(['Admin'])
  })

  it("a call answered 403 takes nothing from the tool's rate-limit bucket: the caller with the scope still gets its call (serveHttp and fetch())", async () => {
    const limited = build().rateLimit({ perTool: { rate: 0.01, burst: 1 } })
    const handle = await limited.serveHttp({ port: 0, auth: { issuer: oidc.issuer, scopes: ['mcp'] } })
    try {
      const reader = await oidc.token('reader', handle.url)
      for (let i = 0; i < 2; i++)
        await expectStepUp(await modern(handle.url, 'tools/call', { name: 'Admin', arguments: {} }, reader), handle.url)
      const service = await oidc.token('service', handle.url)
      const called = await modern(handle.url, 'tools/call', { name: 'Admin', arguments: {} }, service)
      expect(called.status).toBe(200)
      expect((await messageOf(called)).result).toMatchObject({ content: [{ text: 'admin' }] })
    } finally {
      await handle.close()
    }
    const viaFetch = build().rateLimit({ perTool: { rate: 0.01, burst: 1 } })
    const resource = 'http://127.0.0.1:9/mcp'
    const post = (token: string): Promise<Response> => fetchAdmin(viaFetch, resource, token)
    const reader = await oidc.token('reader', resource)
    for (let i = 0; i < 2; i++) expect((await post(reader)).status).toBe(403)
    expect((await post(await oidc.token('service', resource))).status).toBe(200)
  })

  it('fetch() with auth answers the same 403', async () => {
    const resource = 'http://127.0.0.1:9/mcp'
    await expectStepUp(await fetchAdmin(server, resource, await oidc.token('reader', resource)), resource)
  })
})

describe("scopedTools: 'hide'", () => {
  it('the call is answered as for an unknown tool, on both eras', async () => {
    ran = []
    const token = await oidc.token('reader', hide.url)
    const modernAnswer = await modern(hide.url, 'tools/call', { name: 'Admin', arguments: {} }, token)
    expect(modernAnswer.status).toBe(200)
    expect((await messageOf(modernAnswer)).error).toMatchObject({ code: -32602, message: expect.stringContaining('Admin') })
    const id = await session(hide.url, token)
    const legacyAnswer = await legacy(hide.url, id, 'tools/call', { name: 'Admin', arguments: {} }, token)
    expect(legacyAnswer.status).toBe(200)
    expect((await messageOf(legacyAnswer)).error).toMatchObject({ code: -32602 })
    expect(ran).toEqual([])
  })
})
