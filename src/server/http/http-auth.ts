/**
 * The `auth` option's gate in front of the MCP handler (docs/serving.md,
 * "Authorization"): the protected-resource metadata (RFC 9728), bearer tokens verified
 * (JWTs by the issuer's JWKS with jose, opaque ones by the user's RFC 7662
 * hook), the `401`/`403` challenges, and the request handed on without its
 * `Authorization` header. Web-standard only: `fetch()` runs it on Workers too.
 */
import { createRemoteJWKSet, decodeJwt, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose'
import {
  bearerAuthChallengeResponse,
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  OAuthError,
  OAuthErrorCode,
  type AuthInfo,
  type OAuthMetadata,
} from '@modelcontextprotocol/server'
import {
  ASYMMETRIC_ALGORITHMS,
  DEFAULT_CLOCK_TOLERANCE_S,
  DEFAULT_JWKS_COOLDOWN_S,
  DEFAULT_SCOPE_CLAIMS,
  issuersOf,
  listOf,
  secureUrlProblem,
  type AuthOptions,
  type IntrospectionResult,
} from '../../contract/auth-options.ts'
import type { Log } from '../base/logging.ts'
import type { ServerState } from '../serving/server-state.ts'
import { markStepUp } from './step-up.ts'

/** What the gate says of a request: the verified auth info, or the answer to send instead. */
export type Verdict = AuthInfo | Response

/** The gate of one transport. */
export interface AuthGate {
  /** Discovers every issuer now (`serveHttp()` starts only once they answer); rejects naming the first that fails. */
  ready(): Promise<void>
  /** Whether `path` is the metadata document's (`/.well-known/oauth-protected-resource/mcp`). */
  isMetadataPath(path: string): boolean
  /** The metadata document's answer (GET, HEAD, CORS preflight; `405` otherwise). */
  metadata(method: string): Response
  /** The verified auth info of an `Authorization` header, or the `401`/`403`/`503` to answer. */
  authenticate(authorization: string | null | undefined): Promise<Verdict>
}

/** Seconds a discovery document or JWKS request may take. */
const FETCH_TIMEOUT_MS = 5000
/** How long a verified JWT is remembered (never past its expiry), and how many are: a client sends one token with many calls. */
const VERIFIED_TTL_MS = 30_000
/**
 * How old the JWKS may be when a token is checked against it (jose re-reads it past that): with a verified
 * token remembered as long, a key removed from the JWKS stops verifying within a minute (docs/serving.md, "Authorization").
 */
const JWKS_MAX_AGE_MS = 30_000
const VERIFIED_MAX = 1000

/** A token that is not a compact JWS (three base64url parts; `alg: none` has an empty third) goes to `introspect`. */
const JWT_RE = /^[\w-]+\.[\w-]+\.[\w-]*$/
const BEARER_RE = /^Bearer +([\w\-.~+/]+=*) *$/i

/** jose's codes for a token that is bad (anything else, such as a JWKS timeout, is the server's trouble). */
const TOKEN_ERRORS: Record<string, string> = {
  ERR_JWT_EXPIRED: 'token expired',
  ERR_JOSE_ALG_NOT_ALLOWED: 'token signing algorithm not accepted',
  ERR_JOSE_NOT_SUPPORTED: 'token signing algorithm not supported',
  ERR_JWS_SIGNATURE_VERIFICATION_FAILED: 'token signature invalid',
  ERR_JWKS_NO_MATCHING_KEY: "token signed by a key the issuer's JWKS does not list",
  ERR_JWKS_MULTIPLE_MATCHING_KEYS: 'token names no key the JWKS tells apart',
  ERR_JWS_INVALID: 'malformed token',
  ERR_JWT_INVALID: 'malformed token',
}

/** The issuer, JWKS or hook could not answer: `503`, never a `401` that would send clients to re-authorize. */
class Unavailable extends Error {}

const invalid = (message: string): OAuthError => new OAuthError(OAuthErrorCode.InvalidToken, message)

/** The refusal of a jose error, or an {@link Unavailable} for a failure that is not the token's. */
function refusal(error: unknown): Error {
  const code = (error as { code?: unknown } | null)?.code
  if (code === 'ERR_JWT_CLAIM_VALIDATION_FAILED') {
    const claim = (error as { claim?: unknown }).claim
    if (claim === 'aud') return invalid('token was not issued for this resource')
    if (claim === 'nbf') return invalid('token not yet valid')
    return invalid(`token claim "${String(claim)}" invalid`)
  }
  // jose says an unknown `crit` extension is "not supported" too, as for an unknown algorithm.
  const crit =
    code === 'ERR_JOSE_NOT_SUPPORTED' ? /Extension Header Parameter "(.*)" is not recognized/.exec((error as Error).message) : null
  if (crit !== null) return invalid(`token header marks the extension "${crit[1]}" critical (crit), and this server does not know it`)
  if (typeof code === 'string' && Object.hasOwn(TOKEN_ERRORS, code)) return invalid(TOKEN_ERRORS[code]!)
  return new Unavailable(`cannot verify tokens: ${(error as Error)?.message ?? String(error)}`, { cause: error })
}

/** An RFC 6750 quoted-string. */
const quoted = (value: string): string => `"${value.replace(/[\\"]/g, '\\$&')}"`

/** The discovery document of `issuer`: RFC 8414, then OpenID Connect (path inserted, then appended), as the MCP spec orders them. */
async function discover(issuer: string): Promise<Record<string, unknown>> {
  const url = new URL(issuer)
  const path = url.pathname.replace(/\/$/, '')
  const candidates =
    path === ''
      ? [`${url.origin}/.well-known/oauth-authorization-server`, `${url.origin}/.well-known/openid-configuration`]
      : [
          `${url.origin}/.well-known/oauth-authorization-server${path}`,
          `${url.origin}/.well-known/openid-configuration${path}`,
          `${url.origin}${path}/.well-known/openid-configuration`,
        ]
  const failures: string[] = []
  for (const candidate of candidates) {
    let response: Response
    try {
      response = await fetch(candidate, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) })
    } catch (error) {
      failures.push(`${candidate}: ${(error as Error).message}`)
      continue
    }
    if (!response.ok) {
      failures.push(`${candidate}: HTTP ${response.status}`)
      await response.body?.cancel()
      continue
    }
    const doc = (await response.json().catch(() => null)) as Record<string, unknown> | null
    if (doc === null || typeof doc !== 'object') throw new Error(`the discovery document ${candidate} is not a JSON object`)
    // RFC 8414 §3.3: the document must be the issuer's own (no mix-up).
    if (doc.issuer !== issuer)
      throw new Error(`the discovery document ${candidate} names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`)
    return doc
  }
  throw new Error(`no discovery document answers for issuer ${issuer} (${failures.join('; ')})`)
}

/** The scopes a token grants: those of each of `names` (space-separated, RFC 9068's `scope`; or a list, as `scp` and roles claims may be). */
function scopesOf(claims: Record<string, unknown>, names: readonly string[]): string[] {
  const scopes = new Set<string>()
  for (const name of names) {
    const value = claims[name]
    const list = typeof value === 'string' ? value.split(' ') : Array.isArray(value) ? value : []
    for (const scope of list) if (typeof scope === 'string' && scope !== '') scopes.add(scope)
  }
  return [...scopes]
}

/**
 * The caller of a token (docs/serving.md, "Authorization"): `iss` with `sub`, else with the client (a client-credentials token of a
 * provider that names no subject acts for its client). Sessions, tasks and requestStates are bound to it, so a token
 * naming neither is refused (it would share one caller with every other such token). `sub` stays absent when absent.
 */
function callerOf(iss: string, claims: Record<string, unknown>, clientId: string): { iss: string; sub?: string } {
  const sub = text(claims.sub)
  if (sub === undefined && clientId === '')
    throw invalid('token names no subject (sub) and no client (client_id): this server tells callers apart by them')
  return sub === undefined ? { iss } : { iss, sub }
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined)

/** Per issuer: its JWKS once discovered; a failed discovery is tried again by a later request. */
function issuerKeys(cooldownDuration: number): (issuer: string) => Promise<JWTVerifyGetKey | undefined> {
  const keys = new Map<string, Promise<JWTVerifyGetKey | undefined>>()
  return (issuer) => {
    let found = keys.get(issuer)
    if (found === undefined) {
      found = discover(issuer).then((doc) => {
        const jwksUri = doc.jwks_uri
        if (jwksUri === undefined) return undefined
        const problem = secureUrlProblem(jwksUri, true)
        if (problem !== undefined) throw new Error(`the jwks_uri of issuer ${issuer} is ${problem}`)
        return createRemoteJWKSet(new URL(jwksUri as string), {
          cooldownDuration,
          cacheMaxAge: JWKS_MAX_AGE_MS,
          timeoutDuration: FETCH_TIMEOUT_MS,
        })
      })
      keys.set(issuer, found)
      found.catch(() => keys.delete(issuer))
    }
    return found
  }
}

/** Tokens verified lately, oldest first: a signature check costs more than the rest of a call's auth. */
function verifiedTokens(clockTolerance: number): {
  remembered(token: string): AuthInfo | undefined
  remember(token: string, info: AuthInfo): AuthInfo
} {
  const verified = new Map<string, { info: AuthInfo; until: number }>()
  const remembered = (token: string): AuthInfo | undefined => {
    const hit = verified.get(token)
    if (hit === undefined) return undefined
    // A copy: a handler changing its auth info changes no other request's.
    if (Date.now() < hit.until) return { ...hit.info, scopes: [...hit.info.scopes] }
    verified.delete(token)
    return undefined
  }
  const remember = (token: string, info: AuthInfo): AuthInfo => {
    if (verified.size >= VERIFIED_MAX) verified.delete(verified.keys().next().value!)
    verified.set(token, { info, until: Math.min(Date.now() + VERIFIED_TTL_MS, (info.expiresAt! + clockTolerance) * 1000) })
    return info
  }
  return { remembered, remember }
}

/**
 * The gate of `auth` for `state`. `fallbackResource` is the URL the
 * transport serves at, for an `auth` without `resource`.
 */
export function createAuthGate(state: ServerState, auth: AuthOptions, log: Log, fallbackResource?: () => string): AuthGate {
  const issuers = issuersOf(auth)
  const scopes = [...(auth.scopes ?? [])]
  const scopeClaims = listOf(auth.scopeClaim ?? DEFAULT_SCOPE_CLAIMS)
  const stepUp = (auth.scopedTools ?? 'step-up') === 'step-up'
  const algorithms = [...(auth.algorithms ?? ASYMMETRIC_ALGORITHMS)]
  const clockTolerance = auth.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_S
  const cooldownDuration = (auth.jwksCooldownSeconds ?? DEFAULT_JWKS_COOLDOWN_S) * 1000
  // The resource may be the transport's own URL, known once it listens: read on first use.
  let resolved: { resource: string; audience: string[]; url: URL; metadataUrl: string; metadataPath: string } | undefined
  const target = (): NonNullable<typeof resolved> => {
    if (resolved) return resolved
    const resource = auth.resource ?? fallbackResource?.()
    if (resource === undefined) throw new Error('auth has no resource: pass auth.resource, the URL clients connect to')
    const url = new URL(resource)
    const metadataUrl = getOAuthProtectedResourceMetadataUrl(url)
    // A token may name the resource with or without a trailing slash.
    const bare = resource.replace(/\/$/, '')
    const audience = auth.audience === undefined ? [bare, `${bare}/`] : [...listOf(auth.audience)]
    resolved = { resource, audience, url, metadataUrl, metadataPath: new URL(metadataUrl).pathname }
    return resolved
  }

  const keysOf = issuerKeys(cooldownDuration)
  const { remembered, remember } = verifiedTokens(clockTolerance)

  const verifyJwt = async (token: string): Promise<AuthInfo> => {
    const known = remembered(token)
    if (known !== undefined) return known
    let claims: JWTPayload
    try {
      claims = decodeJwt(token)
    } catch {
      throw invalid('malformed token')
    }
    const issuer = claims.iss
    if (typeof issuer !== 'string' || !issuers.includes(issuer)) throw invalid('token issuer is not accepted')
    let jwks: JWTVerifyGetKey | undefined
    try {
      jwks = await keysOf(issuer)
    } catch (error) {
      throw new Unavailable(`cannot discover issuer ${issuer}: ${(error as Error).message}`, { cause: error })
    }
    if (jwks === undefined) throw invalid('the issuer publishes no JWKS: its tokens cannot be verified here')
    const { audience, url } = target()
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, jwks, { issuer, audience, algorithms, clockTolerance, requiredClaims: ['exp'] }))
    } catch (error) {
      throw refusal(error)
    }
    const clientId = text(payload.client_id) ?? text(payload.azp) ?? text(payload.appid) ?? text(payload.cid) ?? ''
    return remember(token, {
      token,
      clientId,
      scopes: scopesOf(payload, scopeClaims),
      expiresAt: payload.exp!,
      resource: url,
      extra: { ...callerOf(issuer, payload, clientId), claims: payload },
    })
  }

  const introspected = async (token: string, introspect: NonNullable<AuthOptions['introspect']>): Promise<AuthInfo> => {
    let result: IntrospectionResult | null | undefined
    try {
      result = await introspect(token)
    } catch (error) {
      throw new Unavailable(`the introspect hook failed: ${(error as Error)?.message ?? String(error)}`, { cause: error })
    }
    if (result === null || result === undefined || result.active !== true) throw invalid('token is not active')
    const now = Date.now() / 1000
    if (typeof result.exp !== 'number') throw invalid('token has no expiry')
    if (result.exp + clockTolerance <= now) throw invalid('token expired')
    if (typeof result.nbf === 'number' && result.nbf - clockTolerance > now) throw invalid('token not yet valid')
    const { audience, url } = target()
    const aud = typeof result.aud === 'string' ? [result.aud] : Array.isArray(result.aud) ? result.aud : []
    if (!aud.some((a) => audience.includes(a))) throw invalid('token was not issued for this resource')
    if (result.iss !== undefined && !issuers.includes(result.iss)) throw invalid('token issuer is not accepted')
    const clientId = text(result.client_id) ?? ''
    return {
      token,
      clientId,
      scopes: scopesOf(result, scopeClaims),
      expiresAt: result.exp,
      resource: url,
      extra: { ...callerOf(result.iss ?? issuers[0]!, result, clientId), claims: { ...result } },
    }
  }

  /** `scopes`, then `scopesSupported` or else every scope a tool requires now (tools change while serving). */
  const supportedScopes = (): string[] => {
    const supported = new Set([...scopes, ...(auth.scopesSupported ?? [])])
    if (auth.scopesSupported === undefined)
      for (const entry of state.tools.byName.values()) for (const scope of entry.requires?.scopes ?? []) supported.add(scope)
    return [...supported]
  }

  // A client asks for the scopes a challenge names (MCP's scope selection): what every request needs, never a
  // tool's (a client allowed only those could not connect at all); a call of a scoped tool asks for more (step-up.ts).
  const challenge = (error: OAuthError): Response =>
    bearerAuthChallengeResponse(error, { requiredScopes: scopes, resourceMetadataUrl: target().metadataUrl })

  return {
    async ready() {
      for (const issuer of issuers) {
        try {
          await keysOf(issuer)
        } catch (error) {
          throw new Error(`cannot discover the authorization server ${issuer}: ${(error as Error).message}`, { cause: error })
        }
      }
    },
    isMetadataPath: (path) => path.replace(/(?<=.)\/$/, '') === target().metadataPath,
    metadata(method) {
      const cors = { 'access-control-allow-origin': '*' }
      if (method === 'OPTIONS')
        return new Response(null, { status: 204, headers: { ...cors, 'access-control-allow-methods': 'GET, HEAD, OPTIONS' } })
      if (method !== 'GET' && method !== 'HEAD')
        return Response.json(
          { error: 'invalid_request', error_description: `method ${method} not allowed: the metadata is read with GET` },
          { status: 405, headers: { ...cors, allow: 'GET, HEAD, OPTIONS' } },
        )
      const { url } = target()
      const supported = supportedScopes()
      // The SDK's builder makes the document; every issuer was checked when the option was given (http:// only on loopback).
      const document = {
        ...buildOAuthProtectedResourceMetadata({
          oauthMetadata: { issuer: issuers[0]! } as OAuthMetadata,
          resourceServerUrl: url,
          ...(supported.length > 0 ? { scopesSupported: supported } : {}),
          ...(auth.resourceName === undefined ? {} : { resourceName: auth.resourceName }),
          dangerouslyAllowInsecureIssuerUrl: true,
        }),
        authorization_servers: [...issuers],
        bearer_methods_supported: ['header'],
      }
      const response = Response.json(document, { headers: cors })
      return method === 'HEAD' ? new Response(null, { headers: response.headers }) : response
    },
    async authenticate(authorization) {
      try {
        if (authorization === null || authorization === undefined || authorization === '') {
          // RFC 6750 §3.1: a request without credentials gets a challenge without an error code.
          const params = [`resource_metadata=${quoted(target().metadataUrl)}`]
          if (scopes.length > 0) params.push(`scope=${quoted(scopes.join(' '))}`)
          return Response.json(
            { error: 'invalid_token', error_description: 'Missing Authorization header' },
            { status: 401, headers: { 'www-authenticate': `Bearer ${params.join(', ')}` } },
          )
        }
        const token = BEARER_RE.exec(authorization)?.[1]
        if (token === undefined) throw invalid("Invalid Authorization header format, expected 'Bearer TOKEN'")
        const info = JWT_RE.test(token)
          ? await verifyJwt(token)
          : auth.introspect
            ? await introspected(token, auth.introspect)
            : (() => {
                throw invalid('the token is not a JWT, and this server has no introspection for opaque tokens')
              })()
        if (!scopes.every((scope) => info.scopes.includes(scope)))
          throw new OAuthError(OAuthErrorCode.InsufficientScope, 'Insufficient scope')
        return stepUp ? markStepUp(info, { scopes, metadataUrl: target().metadataUrl }) : info
      } catch (error) {
        if (error instanceof OAuthError) return challenge(error)
        const message = error instanceof Unavailable ? error.message : `cannot verify tokens: ${(error as Error)?.message ?? String(error)}`
        log.error(`${state.info.name}: ${message}`, error, 'http')
        return Response.json(
          { error: 'temporarily_unavailable', error_description: 'the authorization server cannot be reached; retry later' },
          { status: 503, headers: { 'retry-after': '5' } },
        )
      }
    },
  }
}

/** `request` without its `Authorization` header: the token goes no further than the gate (never to a backend). */
export function withoutAuthorization(request: Request): Request {
  if (!request.headers.has('authorization')) return request
  try {
    request.headers.delete('authorization')
    return request
  } catch {
    // An incoming request's headers are immutable on Workers: a copy without it.
    const headers = new Headers(request.headers)
    headers.delete('authorization')
    return new Request(request, { headers })
  }
}

/** A fetch-shaped handler behind `gate`: metadata answered, tokens verified, the rest handed on with its auth info. */
export function guardFetch(
  gate: AuthGate,
  handler: (request: Request, options?: { authInfo?: unknown }) => Promise<Response>,
): (request: Request) => Promise<Response> {
  return async (request) => {
    if (gate.isMetadataPath(new URL(request.url).pathname)) return gate.metadata(request.method)
    const verdict = await gate.authenticate(request.headers.get('authorization'))
    if (verdict instanceof Response) return verdict
    return handler(withoutAuthorization(request), { authInfo: verdict })
  }
}
