/**
 * The SDK's own OAuth client flows end to end against a real OpenID
 * provider (oidc-provider on loopback) that offers dynamic client
 * registration (RFC 7591) and refresh tokens: the client registers itself,
 * the user signs in (authorization code with PKCE, the browser step as
 * plain HTTP requests), the client calls with the base scope, and
 * refreshes its token when the access token expires. (Step-up with a
 * pre-registered client: auth.test.ts; the SDK registers a client with
 * the 401's scope, which this provider then holds it to.)
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientInformationMixed,
  type OAuthClientProvider,
  type OAuthTokens,
} from '@modelcontextprotocol/client'
import { decodeJwt } from 'jose'
import Provider from 'oidc-provider'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server, verifiedPrincipal, type CallContext, type HttpHandle } from '../../src/entries/runtime.ts'
import { authorizeInBrowser, REDIRECT_URI, signIn, signingKey } from '../helpers/oidc-provider.ts'

/** Seconds an access token lives here: short, so the refresh is seen. */
const ACCESS_TTL_S = 2

let issuer: string
let provider: Provider
let providerHttp: ReturnType<typeof createServer>
const hits: string[] = []
let http: HttpHandle

beforeAll(async () => {
  providerHttp = createServer()
  await new Promise<void>((resolve) => providerHttp.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(providerHttp.address() as AddressInfo).port}`
  provider = new Provider(issuer, {
    jwks: { keys: [(await signingKey('k1')).jwk] },
    scopes: ['openid', 'offline_access', 'mcp', 'notes.write'],
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    issueRefreshToken: () => true,
    clientDefaults: { id_token_signed_response_alg: 'ES256', grant_types: ['authorization_code', 'refresh_token'] },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined as never,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string) => ({
          scope: 'mcp notes.write',
          audience: resource,
          accessTokenFormat: 'jwt',
          accessTokenTTL: ACCESS_TTL_S,
          jwt: { sign: { alg: 'ES256' } },
        }),
      },
    },
    ttl: { AccessToken: ACCESS_TTL_S, Grant: 600, Interaction: 600, Session: 600, AuthorizationCode: 60, RefreshToken: 600 },
  })
  const callback = provider.callback()
  providerHttp.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', issuer).pathname
    hits.push(`${req.method} ${path}`)
    if (/^\/interaction\/[\w-]+$/.test(path)) return void signIn(provider, req, res)
    callback(req, res)
  })
  const server = Server.builder('notes')
    .logging({ logger: false })
    .tool({ name: 'Whoami', inputSchema: { type: 'object' } }, (_args, ctx) => ({
      content: [{ type: 'text', text: verifiedPrincipal(ctx as unknown as CallContext)?.subject ?? '' }],
    }))
    .tool({ name: 'Write', inputSchema: { type: 'object' }, requires: { scopes: ['notes.write'] } }, () => ({
      content: [{ type: 'text', text: 'written' }],
    }))
    .build()
  http = await server.serveHttp({ port: 0, auth: { issuer, scopes: ['mcp'], clockToleranceSeconds: 0 } })
})

afterAll(async () => {
  await http?.close()
  providerHttp?.closeAllConnections()
  await new Promise((resolve) => providerHttp?.close(resolve))
})

/** An OAuthClientProvider that keeps everything in memory and records where it was sent to sign in. */
function memoryProvider() {
  const store: { client?: OAuthClientInformationMixed; tokens?: OAuthTokens; verifier?: string; state?: unknown; sentTo: URL[] } = {
    sentTo: [],
  }
  const oauth: OAuthClientProvider = {
    redirectUrl: REDIRECT_URI,
    clientMetadata: {
      redirect_uris: [REDIRECT_URI],
      client_name: 'flows',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
    clientInformation: () => store.client,
    saveClientInformation: (info) => {
      store.client = info
    },
    tokens: () => store.tokens,
    saveTokens: (tokens) => {
      store.tokens = tokens
    },
    redirectToAuthorization: (url) => {
      store.sentTo.push(url)
    },
    saveCodeVerifier: (verifier) => {
      store.verifier = verifier
    },
    codeVerifier: () => store.verifier!,
    saveDiscoveryState: (state) => {
      store.state = state
    },
    discoveryState: () => store.state as never,
  }
  return { oauth, store }
}

const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]!.text

describe('dynamic registration, authorization code with PKCE, refresh', () => {
  it('registers, signs in with the base scope, calls, and refreshes an expired token without a new sign-in', async () => {
    const { oauth, store } = memoryProvider()
    const first = new StreamableHTTPClientTransport(new URL(http.url), { authProvider: oauth })
    await expect(new Client({ name: 'flows', version: '0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    // Registered at the provider's registration endpoint (RFC 7591): a client id the provider made.
    expect(hits).toContain('POST /reg')
    expect(store.client?.client_id).toMatch(/^[\w-]{10,}$/)
    const signInUrl = store.sentTo.at(-1)!
    expect(signInUrl.searchParams.get('client_id')).toBe(store.client!.client_id)
    // What the 401 named, and offline_access, which the SDK adds for a refresh token where the provider offers it.
    expect(signInUrl.searchParams.get('scope')).toBe('mcp offline_access')
    expect(signInUrl.searchParams.get('code_challenge_method')).toBe('S256')
    const signedIn = await authorizeInBrowser(signInUrl)
    await first.finishAuth(signedIn.code, signedIn.iss)
    expect(store.tokens?.refresh_token).toMatch(/^\S+$/)
    expect(decodeJwt(store.tokens!.access_token)).toMatchObject({ sub: 'alice', scope: 'mcp', aud: http.url })

    const transport = new StreamableHTTPClientTransport(new URL(http.url), { authProvider: oauth })
    const client = new Client({ name: 'flows', version: '0' })
    await client.connect(transport)
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Whoami'])
    expect(text(await client.callTool({ name: 'Whoami', arguments: {} }))).toBe('alice')

    // The SDK registered with the 401's scope, and this provider holds a registered client to it: a step-up is refused there.
    expect(decodeJwt(store.tokens!.access_token).scope).toBe('mcp')

    // Refresh: once the access token has expired, the 401 sends the SDK to the token endpoint with its refresh token.
    const expired = store.tokens!.access_token
    await new Promise((resolve) => setTimeout(resolve, (ACCESS_TTL_S + 1) * 1000))
    const sentBefore = store.sentTo.length
    expect(text(await client.callTool({ name: 'Whoami', arguments: {} }))).toBe('alice')
    expect(hits.filter((h) => h === 'POST /token').length).toBe(2)
    expect(store.tokens!.access_token).not.toBe(expired)
    expect(decodeJwt(store.tokens!.access_token)).toMatchObject({ sub: 'alice', scope: 'mcp' })
    // No new sign-in.
    expect(store.sentTo.length).toBe(sentBefore)
    await client.close()
  })
})
