/**
 * The identity-provider recipes of docs/guide/authorization.md, each against
 * a real OpenID provider (oidc-provider on loopback) made to issue that
 * provider's token shape: Entra ID (`aud` api://..., app roles in `roles`,
 * the client in `azp`, no `scope`), Keycloak (`aud` the resource client's
 * id), Auth0 (`aud` the API identifier beside userinfo, RBAC `permissions`),
 * Okta (`aud` api://default, `scp` a list, the client in `cid`) and Google
 * (opaque tokens, read with a tokeninfo-shaped introspect hook). Each
 * recipe's options let the SDK's client-credentials client in, list the
 * tools its scopes allow and call one; without the recipe's options the
 * same token is refused or sees nothing.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Client, ClientCredentialsProvider, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import Provider from 'oidc-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server, verifiedPrincipal, type AuthOptions, type CallContext, type HttpHandle } from '../../src/entries/runtime.ts'
import { signingKey } from '../helpers/oidc-provider.ts'

type Shape = 'entra' | 'keycloak' | 'auth0' | 'okta' | 'google'

/** The `aud` each provider writes for the API (the recipe's `audience`). */
const AUDIENCE: Record<Exclude<Shape, 'google'>, string> = {
  entra: 'api://6f1c2a7e-notes',
  keycloak: 'notes-api',
  auth0: 'https://notes.example.com/api',
  okta: 'api://default',
}

/** The payload as the provider writes it, from oidc-provider's RFC 9068 one. */
function reshape(shape: Shape, payload: Record<string, unknown>, issuer: string): void {
  const scopes = String(payload.scope ?? '').split(' ')
  const client = payload.client_id as string
  delete payload.client_id
  if (shape === 'entra') {
    // An app-only token: application roles, no scp or scope; azp the client (v2.0 tokens).
    delete payload.scope
    Object.assign(payload, { aud: AUDIENCE.entra, roles: scopes, azp: client, sub: '9a0b-service-principal', tid: 'tenant' })
  } else if (shape === 'keycloak') {
    Object.assign(payload, { aud: [AUDIENCE.keycloak, 'account'], azp: client, typ: 'Bearer', scope: `profile email ${payload.scope}` })
  } else if (shape === 'auth0') {
    // The scopes the client asked for, and the RBAC permissions of the API (here the write one).
    Object.assign(payload, {
      aud: [AUDIENCE.auth0, `${issuer}/userinfo`],
      azp: client,
      sub: `${client}@clients`,
      scope: scopes.filter((s) => s !== 'notes.write').join(' '),
      permissions: scopes.filter((s) => s === 'notes.write'),
      gty: 'client-credentials',
    })
  } else if (shape === 'okta') {
    delete payload.scope
    Object.assign(payload, { aud: AUDIENCE.okta, scp: scopes, cid: client, sub: client })
  }
}

interface Issuer {
  issuer: string
  provider: Provider
  close(): Promise<void>
}

/** One provider, one client per shape (its id is the shape), every scope the server knows. */
async function startIssuer(): Promise<Issuer> {
  const http = createServer()
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const shapes: Shape[] = ['entra', 'keycloak', 'auth0', 'okta', 'google']
  const provider = new Provider(issuer, {
    jwks: { keys: [(await signingKey('k1')).jwk] },
    clients: shapes.map((id) => ({
      client_id: id,
      client_secret: `${id}-secret`,
      grant_types: ['client_credentials'],
      response_types: [],
      redirect_uris: [],
      id_token_signed_response_alg: 'ES256',
    })),
    scopes: ['mcp', 'notes.read', 'notes.write'],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as never,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) =>
          client.clientId === 'google'
            ? { scope: 'mcp notes.read notes.write', audience: resource, accessTokenFormat: 'opaque' }
            : { scope: 'mcp notes.read notes.write', audience: resource, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } },
      },
    },
    formats: {
      customizers: {
        jwt: (_ctx: unknown, token: { clientId: string }, jwt: { payload: Record<string, unknown> }) =>
          reshape(token.clientId as Shape, jwt.payload, issuer),
      },
    },
  })
  const callback = provider.callback()
  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', issuer)
    if (url.pathname === '/tokeninfo') return void tokeninfo(provider, url.searchParams.get('access_token') ?? '', res)
    callback(req, res)
  })
  return {
    issuer,
    provider,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}

/** Google's tokeninfo endpoint, answered from the provider's own store: `aud` and `azp` the client, `exp` a string. */
async function tokeninfo(provider: Provider, token: string, res: ServerResponse): Promise<void> {
  // A client-credentials token is the provider's ClientCredentials model.
  const models = provider as unknown as { ClientCredentials: { find(t: string): Promise<any> } }
  const found = (await models.ClientCredentials.find(token)) ?? undefined
  res.setHeader('content-type', 'application/json')
  if (found === undefined || found.isExpired) {
    res.statusCode = 400
    return void res.end(JSON.stringify({ error: 'invalid_token', error_description: 'Invalid Value' }))
  }
  res.end(
    JSON.stringify({
      azp: found.clientId,
      aud: found.clientId,
      sub: '1098765432109876543210',
      scope: found.scope,
      exp: String(found.exp),
      expires_in: String(found.exp - Math.floor(Date.now() / 1000)),
    }),
  )
}

/** The recipes, as docs/guide/authorization.md gives them (issuer aside). */
function recipe(shape: Shape, issuer: string): AuthOptions {
  const base = { issuer, scopes: ['mcp'] }
  switch (shape) {
    case 'entra':
      return { ...base, audience: AUDIENCE.entra, scopeClaim: ['scp', 'roles'] }
    case 'keycloak':
      return { ...base, audience: AUDIENCE.keycloak }
    case 'auth0':
      return { ...base, audience: AUDIENCE.auth0, scopeClaim: ['scope', 'permissions'] }
    case 'okta':
      return { ...base, audience: AUDIENCE.okta }
    case 'google':
      return {
        ...base,
        audience: 'google',
        // Google's access tokens are opaque: its tokeninfo endpoint reads them.
        introspect: async (token) => {
          const response = await fetch(`${issuer}/tokeninfo?access_token=${encodeURIComponent(token)}`)
          if (!response.ok) return null
          const info = (await response.json()) as Record<string, string>
          return { ...info, active: true, exp: Number(info.exp), client_id: info.azp }
        },
      }
  }
}

let oidc: Issuer
const servers: HttpHandle[] = []

beforeAll(async () => {
  oidc = await startIssuer()
})

afterAll(async () => {
  for (const server of servers) await server.close()
  await oidc?.close()
})

/** A server of three tools: one for every caller, one needing notes.read, one notes.write; Whoami says who called. */
async function serve(auth: AuthOptions): Promise<HttpHandle> {
  const server = Server.builder('notes')
    .logging({ logger: false })
    .tool({ name: 'Whoami', inputSchema: { type: 'object' } }, (_args, ctx) => ({
      content: [{ type: 'text', text: JSON.stringify(verifiedPrincipal(ctx as unknown as CallContext)) }],
    }))
    .tool({ name: 'Read', inputSchema: { type: 'object' }, requires: { scopes: ['notes.read'] } }, () => ({
      content: [{ type: 'text', text: 'read' }],
    }))
    .tool({ name: 'Write', inputSchema: { type: 'object' }, requires: { scopes: ['notes.write'] } }, () => ({
      content: [{ type: 'text', text: 'written' }],
    }))
    .build()
  const http = await server.serveHttp({ port: 0, auth })
  servers.push(http)
  return http
}

/** The SDK's client-credentials client of `shape`. */
async function connect(http: HttpHandle, shape: Shape): Promise<Client> {
  const provider = new ClientCredentialsProvider({
    clientId: shape,
    clientSecret: `${shape}-secret`,
    expectedIssuer: oidc.issuer,
  })
  const client = new Client({ name: shape, version: '0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { authProvider: provider }))
  return client
}

const EXPECTED: Record<Shape, { subject: string; clientId: string }> = {
  entra: { subject: '9a0b-service-principal', clientId: 'entra' },
  keycloak: { subject: 'keycloak', clientId: 'keycloak' },
  auth0: { subject: 'auth0@clients', clientId: 'auth0' },
  okta: { subject: 'okta', clientId: 'okta' },
  google: { subject: '1098765432109876543210', clientId: 'google' },
}

describe('identity-provider recipes', () => {
  for (const shape of ['entra', 'keycloak', 'auth0', 'okta', 'google'] as const) {
    it(`${shape}: the recipe lets the SDK client in with the base scope and steps up to each tool's; without it the token is refused`, async () => {
      const http = await serve(recipe(shape, oidc.issuer))
      const client = await connect(http, shape)
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Whoami'])
      const who = await client.callTool({ name: 'Whoami', arguments: {} })
      expect(JSON.parse((who.content as Array<{ text: string }>)[0]!.text)).toMatchObject({ issuer: oidc.issuer, ...EXPECTED[shape] })
      // Each scope read from where this provider writes it: the step-ups get the tools.
      expect(await client.callTool({ name: 'Read', arguments: {} })).toMatchObject({ content: [{ text: 'read' }] })
      expect(await client.callTool({ name: 'Write', arguments: {} })).toMatchObject({ content: [{ text: 'written' }] })
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Whoami', 'Read', 'Write'])
      const after = await client.callTool({ name: 'Whoami', arguments: {} })
      expect(JSON.parse((after.content as Array<{ text: string }>)[0]!.text).scopes).toEqual(
        expect.arrayContaining(['mcp', 'notes.read', 'notes.write']),
      )
      await client.close()
      // The same provider without the recipe: its `aud` is not the resource URL.
      const plain = await serve({
        issuer: oidc.issuer,
        scopes: ['mcp'],
        ...(shape === 'google' ? { introspect: recipe(shape, oidc.issuer).introspect! } : {}),
      })
      await expect(connect(plain, shape)).rejects.toThrow()
    })
  }
})
