/**
 * A real OpenID provider (`oidc-provider` from npm) on 127.0.0.1 for the
 * authorization tests: discovery documents, a JWKS, the client_credentials
 * and authorization-code grants, and resource indicators (RFC 8707) so it
 * mints JWT access tokens (RFC 9068) for the MCP server's URL. Its keys can
 * be rotated while it runs (a new provider on the same issuer and port).
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, type JWK } from 'jose'
import Provider from 'oidc-provider'

/** Every scope a token for an MCP resource may carry. */
export const RESOURCE_SCOPES = 'mcp notes.read notes.write'

/** The registered clients: id, secret and the scopes it may get for an MCP resource. */
export const CLIENTS = {
  /** client_credentials, every scope. */
  service: { id: 'service', secret: 'service-secret', scope: RESOURCE_SCOPES },
  /** client_credentials, read-only. */
  reader: { id: 'reader', secret: 'reader-secret', scope: 'mcp notes.read' },
  /** client_credentials, no `mcp` scope (the server's baseline). */
  outsider: { id: 'outsider', secret: 'outsider-secret', scope: 'notes.read' },
  /** client_credentials, tokens valid for 1 second. */
  brief: { id: 'brief', secret: 'brief-secret', scope: RESOURCE_SCOPES },
  /** authorization_code (a user, `alice`, signs in and consents). */
  app: { id: 'app', secret: 'app-secret', scope: RESOURCE_SCOPES },
} as const

/** Where the authorization-code client is sent back to. */
export const REDIRECT_URI = 'http://127.0.0.1:1/callback'

/** A signing key: its private JWK (kid, alg) for the provider, and for tests that sign tokens themselves. */
export interface SigningKey {
  readonly jwk: JWK
  readonly kid: string
}

/** Makes an ES256 signing key named `kid`. */
export async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true })
  return { jwk: { ...(await exportJWK(privateKey)), kid, alg: 'ES256', use: 'sig' }, kid }
}

/** A running provider. */
export interface OidcProvider {
  /** `http://127.0.0.1:<port>`. */
  readonly issuer: string
  /** The key tokens are signed with now (the first of the JWKS). */
  readonly key: SigningKey
  /** Every request the provider answered, by path (`/jwks`, `/.well-known/...`). */
  readonly hits: string[]
  /** A client_credentials token of `client` for `resource`, asking for `scope` (default: all the client may have). */
  token(client: keyof typeof CLIENTS, resource: string, scope?: string): Promise<string>
  /** Signs with a new key from now on; the JWKS lists it first and keeps the old one. */
  rotate(): Promise<SigningKey>
  close(): Promise<void>
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/** Starts a provider on 127.0.0.1. */
export async function startOidcProvider(): Promise<OidcProvider> {
  const http: HttpServer = createServer()
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  const hits: string[] = []
  let keys = [await signingKey('key-1')]
  let provider: Provider
  let callback: Handler

  const make = (): void => {
    provider = new Provider(issuer, {
      jwks: { keys: keys.map((k) => k.jwk) },
      clients: Object.values(CLIENTS).map((client) => ({
        client_id: client.id,
        client_secret: client.secret,
        grant_types: client.id === 'app' ? ['authorization_code'] : ['client_credentials'],
        response_types: client.id === 'app' ? ['code'] : [],
        redirect_uris: client.id === 'app' ? [REDIRECT_URI] : [],
        id_token_signed_response_alg: 'ES256',
      })),
      scopes: ['openid', ...RESOURCE_SCOPES.split(' ')],
      findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      pkce: { required: () => false },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => undefined as never,
          useGrantedResource: () => true,
          // Any loopback URL is a resource server: the MCP server under test, and another one for the wrong-audience case.
          getResourceServerInfo: (_ctx: unknown, resource: string, client: { clientId: string }) => {
            const known = Object.values(CLIENTS).find((c) => c.id === client.clientId)!
            return {
              scope: known.scope,
              audience: resource,
              accessTokenFormat: 'jwt',
              jwt: { sign: { alg: 'ES256' } },
            }
          },
        },
      },
      ttl: {
        ClientCredentials: (_ctx: unknown, token: { clientId: string }) => (token.clientId === 'brief' ? 1 : 600),
        AccessToken: 600,
        Grant: 600,
        Interaction: 600,
        Session: 600,
        AuthorizationCode: 60,
      },
    })
    callback = provider.callback()
  }
  make()

  http.on('request', (req: IncomingMessage, res: ServerResponse) => {
    hits.push(new URL(req.url ?? '/', issuer).pathname)
    const interaction = /^\/interaction\/([\w-]+)$/.exec(new URL(req.url ?? '/', issuer).pathname)
    if (interaction) return void signIn(provider, req, res)
    callback(req, res)
  })

  return {
    issuer,
    get key() {
      return keys[0]!
    },
    hits,
    async token(client, resource, scope) {
      const { id, secret } = CLIENTS[client]
      const response = await fetch(`${issuer}/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({ grant_type: 'client_credentials', scope: scope ?? CLIENTS[client].scope, resource }),
      })
      const body = (await response.json()) as { access_token?: string }
      if (!body.access_token) throw new Error(`no token for ${client}: ${JSON.stringify(body)}`)
      return body.access_token
    },
    async rotate() {
      const next = await signingKey(`key-${keys.length + 1}`)
      keys = [next, ...keys]
      make()
      return next
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  }
}

/**
 * The provider's sign-in and consent pages, as an application's would be:
 * `alice` signs in, and consents to every scope asked for the resource.
 */
export async function signIn(provider: Provider, req: IncomingMessage, res: ServerResponse): Promise<void> {
  try {
    const details = await provider.interactionDetails(req, res)
    if (details.prompt.name === 'login') {
      await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false })
      return
    }
    const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: details.params.client_id as string })
    const missing = details.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> }
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '))
    for (const [resource, scopes] of Object.entries(missing.missingResourceScopes ?? {})) grant.addResourceScope(resource, scopes.join(' '))
    await provider.interactionFinished(req, res, { consent: { grantId: await grant.save() } }, { mergeWithLastSubmission: true })
  } catch (error) {
    res.writeHead(500, { 'content-type': 'text/plain' })
    res.end(String((error as Error).stack))
  }
}

/**
 * Follows an authorization URL through the provider's redirects and pages
 * (with its cookies, as a browser would) to the client's redirect URI;
 * resolves with the `code` it carries.
 */
export async function authorizeInBrowser(authorizationUrl: URL): Promise<{ code: string; iss: string | undefined }> {
  const cookies = new Map<string, string>()
  let url = authorizationUrl.href
  for (let hop = 0; hop < 20; hop++) {
    if (url.startsWith(REDIRECT_URI)) {
      const back = new URL(url)
      const code = back.searchParams.get('code')
      if (code === null) throw new Error(`no code in the redirect: ${url}`)
      return { code, iss: back.searchParams.get('iss') ?? undefined }
    }
    const response = await fetch(url, {
      redirect: 'manual',
      headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
    })
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';')
      const eq = pair!.indexOf('=')
      cookies.set(pair!.slice(0, eq), pair!.slice(eq + 1))
    }
    const location = response.headers.get('location')
    if (location === null) throw new Error(`the provider answered ${response.status} at ${url}: ${(await response.text()).slice(0, 300)}`)
    await response.body?.cancel()
    url = new URL(location, url).href
  }
  throw new Error('too many redirects')
}
