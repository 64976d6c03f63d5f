/**
 * Authorization as the MCP spec asks, against a real OpenID provider
 * (`oidc-provider` on loopback) and a real grpc-js backend: the SDK's own
 * client finds the provider from the 401, gets a token for this resource
 * and calls; bad tokens are refused with the right challenge; scopes decide
 * which tools exist for a caller; keys rotate without a restart; the
 * backend never sees the client's token and gets the verified principal.
 */
import { fileURLToPath } from 'node:url'
import * as grpcjs from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import {
  Client,
  ClientCredentialsProvider,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/client'
import { decodeJwt, decodeProtectedHeader, generateKeyPair, SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { grpc } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { HttpHandle } from '../../src/entries/runtime.ts'
import { authorizeInBrowser, CLIENTS, REDIRECT_URI, startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'

const NOTES = fileURLToPath(new URL('../../fixtures/protos/auth/notes.proto', import.meta.url))
const PROTOS = fileURLToPath(new URL('../../protos', import.meta.url))

/** Principal metadata the backend is given: the token's subject, client and scopes. */
const PRINCIPAL_METADATA = { 'x-mcp-subject': 'sub', 'x-mcp-client': 'client_id', 'x-mcp-scopes': 'scope' }

let oidc: OidcProvider
let backend: grpcjs.Server
let http: HttpHandle
/** Every call's metadata, as the grpc-js backend received it. */
const received: Array<{ method: string; metadata: Record<string, unknown> }> = []
/** Every token a client was given: none may reach the backend. */
const tokens = new Set<string>()

beforeAll(async () => {
  oidc = await startOidcProvider()
  // The notes service on a real grpc-js server.
  const definition = protoLoader.loadSync(NOTES, { includeDirs: [PROTOS] })['notes.v1.Notes'] as grpcjs.ServiceDefinition
  const notes = new Map([['n1', 'first note']])
  const record = (method: string, call: grpcjs.ServerUnaryCall<{ id: string; text?: string }, unknown>): void => {
    received.push({ method, metadata: call.metadata.getMap() })
  }
  backend = new grpcjs.Server()
  backend.addService(definition, {
    GetNote: (call: grpcjs.ServerUnaryCall<{ id: string }, unknown>, done: grpcjs.sendUnaryData<unknown>) => {
      record('GetNote', call)
      done(null, { id: call.request.id, text: notes.get(call.request.id) ?? '' })
    },
    UpdateNote: (call: grpcjs.ServerUnaryCall<{ id: string; text: string }, unknown>, done: grpcjs.sendUnaryData<unknown>) => {
      record('UpdateNote', call)
      notes.set(call.request.id, call.request.text)
      done(null, call.request)
    },
    DeleteNote: (call: grpcjs.ServerUnaryCall<{ id: string }, unknown>, done: grpcjs.sendUnaryData<unknown>) => {
      record('DeleteNote', call)
      notes.delete(call.request.id)
      done(null, { id: call.request.id })
    },
  })
  const port = await new Promise<number>((resolve, reject) =>
    backend.bindAsync('127.0.0.1:0', grpcjs.ServerCredentials.createInsecure(), (error, p) => (error ? reject(error) : resolve(p))),
  )
  // UpdateNote needs notes.write through the methodScopes mapping; DeleteNote through its own option.
  const { spec } = buildServerSpec(NOTES, { methodScopes: { 'notes.v1.Notes.Update*': 'notes.write' } })
  const server = createProtoServer(spec)
  server.forward('Notes', grpc(`127.0.0.1:${port}`, { principalMetadata: PRINCIPAL_METADATA }))
  http = await server.serveHttp({
    port: 0,
    auth: { issuer: oidc.issuer, scopes: ['mcp'], clockToleranceSeconds: 1, jwksCooldownSeconds: 1 },
    logger: false,
  })
})

afterAll(async () => {
  await http?.close()
  backend?.forceShutdown()
  await oidc?.close()
})

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
}

/** A raw initialize with `authorization` (none when undefined). */
const initialize = (authorization?: string): Promise<Response> =>
  fetch(http.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization === undefined ? {} : { authorization }),
    },
    body: JSON.stringify(INITIALIZE),
  })

/** A token of `client` for this server, remembered as one the backend must never see. */
async function tokenFor(client: keyof typeof CLIENTS, resource = http.url, scope?: string): Promise<string> {
  const token = await oidc.token(client, resource, scope)
  tokens.add(token)
  return token
}

const metadataUrl = (): string => {
  const url = new URL(http.url)
  return `${url.origin}/.well-known/oauth-protected-resource/mcp`
}

const b64 = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

/** An SDK client of `era` with `authProvider`, connected. */
async function connect(authProvider: OAuthClientProvider, era: 'legacy' | 'modern'): Promise<Client> {
  const client = new Client(
    { name: 'auth-test', version: '0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  )
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { authProvider }))
  expect(client.getProtocolEra()).toBe(era)
  return client
}

describe('the protected resource', () => {
  it('serves RFC 9728 metadata at the path-aware well-known URL, naming the provider and the scopes', async () => {
    const response = await fetch(metadataUrl())
    expect(response.status).toBe(200)
    expect(response.headers.get('access-control-allow-origin')).toBe('*')
    expect(await response.json()).toEqual({
      resource: http.url,
      authorization_servers: [oidc.issuer],
      scopes_supported: ['mcp', 'notes.read', 'notes.write'],
      bearer_methods_supported: ['header'],
    })
    // Path-aware: the root document is not this resource's.
    expect((await fetch(`${new URL(http.url).origin}/.well-known/oauth-protected-resource`)).status).toBe(404)
    expect((await fetch(metadataUrl(), { method: 'POST' })).status).toBe(405)
  })

  it('answers a request without a token 401, naming the metadata and the scope every request needs, never a tool scope (RFC 6750 §3.1)', async () => {
    const response = await initialize()
    expect(response.status).toBe(401)
    expect(response.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl()}", scope="mcp"`)
  })
})

describe('the SDK client authorizes itself from the 401', () => {
  for (const era of ['legacy', 'modern'] as const) {
    it(`${era}: client credentials: a token for this resource with the base scope, then step-up to each tool's; the backend gets the principal, not the token`, async () => {
      const before = oidc.hits.length
      const provider = new ClientCredentialsProvider({ clientId: 'service', clientSecret: 'service-secret', expectedIssuer: oidc.issuer })
      const client = await connect(provider, era)
      const first = provider.tokens()!.access_token
      tokens.add(first)
      // The token is the provider's, for this resource, with only what the 401 named.
      expect(decodeJwt(first)).toMatchObject({ iss: oidc.issuer, aud: http.url, client_id: 'service', scope: 'mcp' })
      // Discovery went 401 → metadata → the provider's discovery document → its token endpoint.
      const hits = oidc.hits.slice(before)
      expect(hits).toContainEqual(expect.stringMatching(/^\/\.well-known\//))
      expect(hits).toContain('/token')
      // Every tool here needs notes.read: none is listed for the base scope.
      expect((await client.listTools()).tools).toEqual([])
      const calls = received.length
      // The call is answered 403 insufficient_scope; the SDK asks the provider for more and calls again.
      const result = await client.callTool({ name: 'GetNote', arguments: { id: 'n1' } })
      expect(result).toMatchObject({ isError: false, structuredContent: { id: 'n1' } })
      const stepped = provider.tokens()!.access_token
      tokens.add(stepped)
      expect(decodeJwt(stepped).scope).toBe('mcp notes.read')
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['GetNote'])
      // Once more for DeleteNote's notes.write: the client keeps what it had (the union).
      expect(await client.callTool({ name: 'DeleteNote', arguments: { id: 'gone' } })).toMatchObject({ isError: false })
      tokens.add(provider.tokens()!.access_token)
      expect(decodeJwt(provider.tokens()!.access_token).scope).toBe('mcp notes.read notes.write')
      const call = received.slice(calls)
      expect(call.map((c) => c.method)).toEqual(['GetNote', 'DeleteNote'])
      // A client-credentials token's subject is its client (RFC 9068 §2.2).
      expect(call[0]!.metadata).toMatchObject({ 'x-mcp-subject': 'service', 'x-mcp-client': 'service', 'x-mcp-scopes': 'mcp notes.read' })
      expect(call[0]!.metadata.authorization).toBeUndefined()
      await client.close()
    })

    it(`${era}: a read-only client steps up to notes.read; the provider refuses it notes.write, and the write tools never run`, async () => {
      const provider = new ClientCredentialsProvider({ clientId: 'reader', clientSecret: 'reader-secret', expectedIssuer: oidc.issuer })
      const client = await connect(provider, era)
      tokens.add(provider.tokens()!.access_token)
      expect(await client.callTool({ name: 'GetNote', arguments: { id: 'n1' } })).toMatchObject({ isError: false })
      tokens.add(provider.tokens()!.access_token)
      expect(decodeJwt(provider.tokens()!.access_token).scope).toBe('mcp notes.read')
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['GetNote'])
      const calls = received.length
      // UpdateNote needs notes.write too (methodScopes): the step-up asks for it, and the provider says no.
      await expect(client.callTool({ name: 'UpdateNote', arguments: { id: 'n1', text: 'x' } })).rejects.toThrow(/scope/)
      expect(received.length).toBe(calls)
      // An unknown tool is still an unknown tool.
      const fresh = await connect(
        new ClientCredentialsProvider({ clientId: 'reader', clientSecret: 'reader-secret', expectedIssuer: oidc.issuer }),
        era,
      )
      await expect(fresh.callTool({ name: 'NoSuchTool', arguments: {} })).rejects.toMatchObject({ code: -32602 })
      await client.close()
      await fresh.close()
    })
  }

  it('authorization code: the user signs in at the provider, the client finishes with the code and calls as that user', async () => {
    let authorizationUrl: URL | undefined
    const store: { tokens?: { access_token: string }; verifier?: string; state?: unknown; client?: unknown } = {}
    const provider: OAuthClientProvider = {
      redirectUrl: REDIRECT_URI,
      clientMetadata: { redirect_uris: [REDIRECT_URI], client_name: 'app', grant_types: ['authorization_code'], response_types: ['code'] },
      clientInformation: () => (store.client ?? { client_id: 'app', client_secret: 'app-secret' }) as never,
      saveClientInformation: (info) => {
        store.client = info
      },
      tokens: () => store.tokens as never,
      saveTokens: (t) => {
        store.tokens = t
      },
      redirectToAuthorization: (url) => {
        authorizationUrl = url
      },
      saveCodeVerifier: (v) => {
        store.verifier = v
      },
      codeVerifier: () => store.verifier!,
      saveDiscoveryState: (state) => {
        store.state = state
      },
      discoveryState: () => store.state as never,
    }
    const first = new StreamableHTTPClientTransport(new URL(http.url), { authProvider: provider })
    await expect(new Client({ name: 'app', version: '0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError)
    expect(authorizationUrl?.searchParams.get('resource')).toBe(http.url)
    // The base scope only, with PKCE (S256).
    expect(authorizationUrl?.searchParams.get('scope')).toBe('mcp')
    expect(authorizationUrl?.searchParams.get('code_challenge_method')).toBe('S256')
    expect(authorizationUrl?.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/)
    const signedIn = await authorizeInBrowser(authorizationUrl!)
    await first.finishAuth(signedIn.code, signedIn.iss)
    tokens.add(store.tokens!.access_token)
    expect(decodeJwt(store.tokens!.access_token)).toMatchObject({ sub: 'alice', aud: http.url, scope: 'mcp' })
    // UpdateNote needs notes.read and notes.write: the 403 sends the user back to the provider for them.
    authorizationUrl = undefined
    const transport = new StreamableHTTPClientTransport(new URL(http.url), { authProvider: provider })
    const client = new Client({ name: 'app', version: '0' })
    await client.connect(transport)
    await expect(client.callTool({ name: 'UpdateNote', arguments: { id: 'n2', text: 'by alice' } })).rejects.toBeInstanceOf(
      UnauthorizedError,
    )
    const stepUpUrl = authorizationUrl as URL | undefined
    expect(stepUpUrl?.searchParams.get('scope')).toBe('mcp notes.read notes.write')
    const consented = await authorizeInBrowser(stepUpUrl!)
    await transport.finishAuth(consented.code, consented.iss)
    tokens.add(store.tokens!.access_token)
    expect(decodeJwt(store.tokens!.access_token)).toMatchObject({ sub: 'alice', scope: 'mcp notes.read notes.write' })
    const calls = received.length
    await client.callTool({ name: 'UpdateNote', arguments: { id: 'n2', text: 'by alice' } })
    expect(received[calls]).toMatchObject({ method: 'UpdateNote', metadata: { 'x-mcp-subject': 'alice', 'x-mcp-client': 'app' } })
    await client.close()
  })
})

describe('refusals, each with its challenge', () => {
  const refused = async (authorization: string, description: string, status = 401, error = 'invalid_token'): Promise<void> => {
    const calls = received.length
    const response = await initialize(authorization)
    expect(response.status).toBe(status)
    const body = (await response.json()) as { error: string; error_description: string }
    expect(body).toEqual({ error, error_description: description })
    const scope = 'mcp'
    expect(response.headers.get('www-authenticate')).toBe(
      `Bearer error="${error}", error_description="${description}", scope="${scope}", resource_metadata="${metadataUrl()}"`,
    )
    expect(received.length).toBe(calls)
  }

  it('a token for another audience', async () => {
    const token = await tokenFor('service', 'http://127.0.0.1:9/other-mcp')
    expect(decodeJwt(token).aud).toBe('http://127.0.0.1:9/other-mcp')
    await refused(`Bearer ${token}`, 'token was not issued for this resource')
  })

  it('an expired token (accepted until its expiry and the 1 s of tolerated skew, refused after)', async () => {
    const token = await tokenFor('brief')
    expect((await initialize(`Bearer ${token}`)).status).toBe(200)
    const exp = decodeJwt(token).exp!
    await new Promise((r) => setTimeout(r, Math.max(0, (exp + 1.2) * 1000 - Date.now())))
    await refused(`Bearer ${token}`, 'token expired')
  })

  it('a token signed by a key the provider does not publish', async () => {
    const real = decodeJwt(await tokenFor('service'))
    const { privateKey } = await generateKeyPair('ES256')
    const forged = await new SignJWT(real).setProtectedHeader({ alg: 'ES256', kid: 'key-unknown', typ: 'at+jwt' }).sign(privateKey)
    await refused(`Bearer ${forged}`, "token signed by a key the issuer's JWKS does not list")
  })

  it('alg none, and HS256 keyed with the public key', async () => {
    const token = await tokenFor('service')
    const [, payload] = token.split('.')
    await refused(`Bearer ${b64({ alg: 'none', typ: 'at+jwt' })}.${payload}.`, 'token signing algorithm not accepted')
    const publicJwk = { ...oidc.key.jwk }
    delete publicJwk.d
    const secret = new TextEncoder().encode(JSON.stringify(publicJwk))
    const confused = await new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: 'HS256', kid: oidc.key.kid }).sign(secret)
    await refused(`Bearer ${confused}`, 'token signing algorithm not accepted')
  })

  it('a tampered payload (a scope added to a real token)', async () => {
    const token = await tokenFor('reader')
    const [header, payload, signature] = token.split('.')
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString())
    expect(claims.scope).toBe('mcp notes.read')
    await refused(`Bearer ${header}.${b64({ ...claims, scope: 'mcp notes.read notes.write' })}.${signature}`, 'token signature invalid')
  })

  it('a token of an issuer not configured, a malformed header, an opaque token without introspection', async () => {
    const { privateKey } = await generateKeyPair('ES256')
    const other = await new SignJWT({ aud: http.url, scope: 'mcp' })
      .setProtectedHeader({ alg: 'ES256' })
      .setIssuer('http://127.0.0.1:9')
      .setExpirationTime('5m')
      .sign(privateKey)
    await refused(`Bearer ${other}`, 'token issuer is not accepted')
    await refused('Basic c2VydmljZTpzZWNyZXQ=', "Invalid Authorization header format, expected 'Bearer TOKEN'")
    await refused('Bearer opaque-token-value', 'the token is not a JWT, and this server has no introspection for opaque tokens')
  })

  it('a valid token without the scope every request needs: 403 insufficient_scope naming it', async () => {
    await refused(`Bearer ${await tokenFor('outsider')}`, 'Insufficient scope', 403, 'insufficient_scope')
  })
})

describe('sessions are bound to the verified principal', () => {
  it("another client's token is answered as for an unknown session; a new token of the same client keeps it", async () => {
    const first = await tokenFor('service')
    const opened = await initialize(`Bearer ${first}`)
    await opened.text()
    const session = opened.headers.get('mcp-session-id')!
    const ping = (token: string): Promise<Response> =>
      fetch(http.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': session,
          'mcp-protocol-version': '2025-06-18',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      })
    const other = await ping(await tokenFor('reader'))
    expect(other.status).toBe(404)
    expect(await other.json()).toMatchObject({ error: { code: -32001 } })
    const again = await ping(await tokenFor('service'))
    expect(again.status).toBe(200)
    await again.text()
  })
})

describe('key rotation at the provider', () => {
  it('a token signed with a new key is accepted without a restart; the old key still works', async () => {
    const old = await tokenFor('service')
    expect((await initialize(`Bearer ${old}`)).status).toBe(200)
    const jwksFetches = oidc.hits.filter((p) => p === '/jwks').length
    const next = await oidc.rotate()
    const rotated = await tokenFor('service')
    expect(decodeProtectedHeader(rotated).kid).toBe(next.kid)
    // The JWKS is fetched again for an unknown key at most once per jwksCooldownSeconds (1 s here).
    await new Promise((r) => setTimeout(r, 1100))
    expect((await initialize(`Bearer ${rotated}`)).status).toBe(200)
    expect(oidc.hits.filter((p) => p === '/jwks').length).toBe(jwksFetches + 1)
    expect((await initialize(`Bearer ${old}`)).status).toBe(200)
  })
})

describe('no token passthrough', () => {
  it('the backend received no authorization metadata and no token in any value, over every call of this file', () => {
    expect(received.length).toBeGreaterThan(4)
    for (const { metadata } of received) {
      expect(metadata.authorization).toBeUndefined()
      for (const value of Object.values(metadata)) for (const token of tokens) expect(String(value)).not.toContain(token)
    }
  })
})
