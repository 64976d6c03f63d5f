/**
 * The `auth` option on `fetch()` and `nodeHandler()` (the same gate as
 * `serveHttp()`), opaque tokens through the `introspect` hook, the
 * principal a handler sees, requestStates bound to it, and the option's
 * checks (one line naming the wrong key, where it is given).
 */
import { createServer, type Server as NodeServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server, verifiedPrincipal, type AuthOptions, type CallContext, type InputRequiredResult } from '../../src/entries/runtime.ts'
import { checkPluginOptions } from '../../src/plugin/check-options.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'

let oidc: OidcProvider
beforeAll(async () => {
  oidc = await startOidcProvider()
})
afterAll(async () => {
  await oidc?.close()
})

const RESOURCE = 'http://127.0.0.1:8/mcp'

/** A server whose `Whoami` tool answers with what its handler saw, and whose `Confirm` asks a second round (2026-07-28). */
function server(): Server {
  return Server.builder('who')
    .requestStateKey('k'.repeat(32))
    .tool({ name: 'Whoami', inputSchema: { type: 'object' } }, (_args, ctx) => {
      const context = ctx as unknown as CallContext
      const principal = verifiedPrincipal(context)
      return {
        content: [
          {
            type: 'text',
            text: JSON.stringify({
              subject: principal?.subject,
              scopes: principal?.scopes,
              authorization: context.headers?.authorization ?? null,
            }),
          },
        ],
      }
    })
    .tool({ name: 'Confirm', inputSchema: { type: 'object' } }, async (_args, ctx) => {
      if (ctx.requestState === undefined)
        return { resultType: 'input_required', requestState: await ctx.sealRequestState!({ asked: true }) } satisfies InputRequiredResult
      return { content: [{ type: 'text', text: 'confirmed' }] }
    })
    .tool({ name: 'Admin', inputSchema: { type: 'object' }, requires: { scopes: ['notes.write'] } }, () => ({
      content: [{ type: 'text', text: 'admin' }],
    }))
    .build()
}

/** A 2026-07-28 `tools/call` request with its standard headers. */
const rpc = (authorization: string | undefined, body: { method: string; params: { name: string } }): Request =>
  new Request(RESOURCE, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': body.method,
      'mcp-name': body.params.name,
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify(body),
  })

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
const call = (name: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, arguments: {}, _meta: META, ...extra },
})

describe('fetch() with auth', () => {
  const auth: AuthOptions = { issuer: [], resource: RESOURCE }
  beforeAll(() => {
    auth.issuer = oidc.issuer
  })

  it('answers the metadata, a 401 without a token, and a call with a token; the handler sees the principal, not the header', async () => {
    const s = server()
    const metadata = await s.fetch(new Request('http://127.0.0.1:8/.well-known/oauth-protected-resource/mcp'), { auth })
    expect(await metadata.json()).toMatchObject({
      resource: RESOURCE,
      authorization_servers: [oidc.issuer],
      scopes_supported: ['notes.write'],
    })
    const refused = await s.fetch(rpc(undefined, call('Whoami')), { auth })
    expect(refused.status).toBe(401)
    const token = await oidc.token('reader', RESOURCE)
    const answered = await s.fetch(rpc(`Bearer ${token}`, call('Whoami')), { auth })
    expect(answered.status).toBe(200)
    const body = (await answered.json()) as { result: { content: Array<{ text: string }> } }
    expect(JSON.parse(body.result.content[0]!.text)).toEqual({ subject: 'reader', scopes: ['mcp', 'notes.read'], authorization: null })
    // A tool needing notes.write is not listed for this token, and its call asks for the scope (step-up).
    const admin = await s.fetch(rpc(`Bearer ${token}`, call('Admin')), { auth })
    expect(admin.status).toBe(403)
    expect(admin.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", .*scope="notes.write"/)
  })

  it('a requestState is bound to the verified principal: another client retrying it is refused', async () => {
    const s = server()
    const service = await oidc.token('service', RESOURCE)
    const first = (await (await s.fetch(rpc(`Bearer ${service}`, call('Confirm')), { auth })).json()) as {
      result: { resultType: string; requestState: string }
    }
    expect(first.result.resultType).toBe('input_required')
    const retry = (token: string) => s.fetch(rpc(`Bearer ${token}`, call('Confirm', { requestState: first.result.requestState })), { auth })
    const stolen = (await (await retry(await oidc.token('reader', RESOURCE))).json()) as { error: { code: number; message: string } }
    expect(stolen.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' })
    // A new token of the same client is the same principal.
    const own = (await (await retry(await oidc.token('service', RESOURCE))).json()) as { result: { content: Array<{ text: string }> } }
    expect(own.result.content[0]!.text).toBe('confirmed')
  })

  it('opaque tokens through the introspect hook (RFC 7662): active, audience, expiry', async () => {
    const now = Math.floor(Date.now() / 1000)
    const known: Record<string, object> = {
      good: { active: true, sub: 'carol', client_id: 'cli', scope: 'notes.write', aud: RESOURCE, exp: now + 60, iss: oidc.issuer },
      other: { active: true, sub: 'carol', scope: 'notes.write', aud: 'https://elsewhere.example/mcp', exp: now + 60 },
      stale: { active: true, sub: 'carol', aud: RESOURCE, exp: now - 120 },
      revoked: { active: false },
    }
    const seen: string[] = []
    const opaque: AuthOptions = {
      issuer: oidc.issuer,
      resource: RESOURCE,
      introspect: (token) => {
        seen.push(token)
        return (known[token] as never) ?? null
      },
    }
    const s = server()
    const answered = (await (await s.fetch(rpc('Bearer good', call('Admin')), { auth: opaque })).json()) as {
      result: { content: Array<{ text: string }> }
    }
    expect(answered.result.content[0]!.text).toBe('admin')
    const refusal = async (token: string) => {
      const response = await s.fetch(rpc(`Bearer ${token}`, call('Whoami')), { auth: opaque })
      expect(response.status).toBe(401)
      return ((await response.json()) as { error_description: string }).error_description
    }
    expect(await refusal('other')).toBe('token was not issued for this resource')
    expect(await refusal('stale')).toBe('token expired')
    expect(await refusal('revoked')).toBe('token is not active')
    expect(await refusal('unknown')).toBe('token is not active')
    expect(seen).toEqual(['good', 'other', 'stale', 'revoked', 'unknown'])
  })
})

describe('nodeHandler() with auth', () => {
  let node: NodeServer
  let url: string
  afterAll(() => new Promise<void>((resolve) => node?.close(() => resolve())))

  it('serves the metadata beside its path and lets the SDK client in with a token', async () => {
    node = createServer()
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`
    const s = server()
    const handler = s.nodeHandler({ path: '/mcp', auth: { issuer: oidc.issuer, resource: url } })
    node.on('request', (req, res) => handler(req, res))
    const metadata = await fetch(url.replace('/mcp', '/.well-known/oauth-protected-resource/mcp'))
    expect(metadata.status).toBe(200)
    expect((await fetch(url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(401)
    const token = await oidc.token('service', url)
    const client = new Client({ name: 'node', version: '0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }),
    )
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Whoami', 'Confirm', 'Admin'])
    const result = (await client.callTool({ name: 'Whoami', arguments: {} })) as { content: Array<{ text: string }> }
    expect(JSON.parse(result.content[0]!.text)).toMatchObject({ subject: 'service', authorization: null })
    await client.close()
    await handler.close()
  })
})

describe('the auth option is checked where it is given, in one line', () => {
  const s = Server.builder('checked').build()
  const cases: Array<[string, unknown, string]> = [
    [
      'an unknown key',
      { issuer: 'https://a.example', audiences: 'x' },
      'unknown option "auth.audiences": the options are issuer, resource, audience,',
    ],
    [
      'an http issuer off loopback',
      { issuer: 'http://a.example' },
      'option "auth.issuer" must be an issuer URL or a non-empty array of them (https; http:// on loopback only; no query or fragment), got "http://a.example" (not https: http:// is accepted on loopback only)',
    ],
    ['no issuer', { resource: 'https://m.example/mcp' }, 'option "auth" needs "issuer"'],
    [
      'alg none',
      { issuer: 'https://a.example', algorithms: ['none'] },
      'option "auth.algorithms" must be a non-empty array of asymmetric JWS algorithms',
    ],
    [
      'HS256',
      { issuer: 'https://a.example', algorithms: ['RS256', 'HS256'] },
      'option "auth.algorithms" must be a non-empty array of asymmetric JWS algorithms',
    ],
    [
      'too much skew',
      { issuer: 'https://a.example', clockToleranceSeconds: 3600 },
      'option "auth.clockToleranceSeconds" must be an integer from 0 to 300',
    ],
    [
      'a resource with a fragment',
      { issuer: 'https://a.example', resource: 'https://m.example/mcp#x' },
      'option "auth.resource" must be the URL clients connect to (https; http:// on loopback only; no fragment), got "https://m.example/mcp#x" (it has a fragment)',
    ],
  ]
  for (const [what, auth, message] of cases) {
    it(`${what}: serveHttp(), nodeHandler(), fetch() and the plugin's dev option`, async () => {
      await expect(s.serveHttp({ port: 0, auth: auth as AuthOptions })).rejects.toThrow(`serveHttp(): ${message}`)
      expect(() => s.nodeHandler({ auth: auth as AuthOptions })).toThrow(`nodeHandler(): ${message}`)
      await expect(s.fetch(new Request(RESOURCE), { auth: { resource: RESOURCE, ...(auth as object) } as AuthOptions })).rejects.toThrow(
        `fetch(): ${message}`,
      )
      expect(() => checkPluginOptions('plugin', { dev: { server: './x.ts', auth } })).toThrow(
        `plugin: ${message.replace('"auth', '"dev.auth')}`,
      )
    })
  }

  it('nodeHandler() and fetch() need a resource; serveHttp() off loopback too', async () => {
    const auth = { issuer: 'https://a.example' }
    expect(() => s.nodeHandler({ auth })).toThrow('nodeHandler(): option "auth" needs "resource": the URL clients connect to')
    await expect(s.fetch(new Request(RESOURCE), { auth })).rejects.toThrow('fetch(): option "auth" needs "resource"')
    await expect(s.serveHttp({ host: '0.0.0.0', allowAnyHost: true, auth })).rejects.toThrow('serveHttp(): option "auth" needs "resource"')
    await expect(s.fetch(new Request(RESOURCE), { auth: { ...auth, resource: RESOURCE }, authInfo: {} })).rejects.toThrow(
      'fetch(): pass auth or authInfo, not both',
    )
  })

  it("the plugin's methodScopes: globs to scope tokens", () => {
    expect(() => checkPluginOptions('plugin', { methodScopes: { 'a.B.*': 'read' } })).not.toThrow()
    expect(() => checkPluginOptions('plugin', { methodScopes: { 'a.B.*': 'two words' } })).toThrow(
      'plugin: option "methodScopes" must be an object of method globs to a scope or an array of scopes, got {"a.B.*":"two words"}',
    )
  })
})
