/**
 * The `auth` option (docs/serving.md, "Authorization"), one shape for `serveHttp()`,
 * `nodeHandler()`, `fetch()`, the plugin's `dev` mount and the command's
 * `--auth-*` flags, and its check: every place that takes it refuses an
 * unknown key or a wrong value where it is given, in one line.
 */
import { isLoopbackHost } from './loopback.ts'
import { showValue } from './show-value.ts'
import { isRecord } from './is-record.ts'

/** An RFC 7662 introspection response, as an `introspect` hook returns it. */
export interface IntrospectionResult {
  /** Whether the token is valid now; anything but `true` refuses it. */
  active: boolean
  /** Space-separated scopes. */
  scope?: string
  client_id?: string
  sub?: string
  /** Expiry, seconds since the epoch: required (a token without one is refused). */
  exp?: number
  nbf?: number
  iat?: number
  /** The audience: must name this server's `resource`. */
  aud?: string | string[]
  /** The issuer: when present, one of the `issuer`s. */
  iss?: string
  [claim: string]: unknown
}

/** Bearer-token authorization of an HTTP server (the MCP authorization spec: OAuth 2.1 resource server). */
export interface AuthOptions {
  /**
   * The authorization server(s) whose tokens are accepted, by issuer URL
   * (`https://auth.example.com`; `http://` only on loopback). Each is
   * found by its discovery document (RFC 8414, else OpenID Connect), which
   * names its JWKS; the protected-resource metadata lists them.
   */
  issuer: string | readonly string[]
  /**
   * This server's resource identifier (RFC 8707): the URL clients connect
   * to (`https://mcp.example.com/mcp`). A token is accepted only if its
   * `aud` names it; the metadata (RFC 9728) is served at its path-aware
   * well-known URL (`/.well-known/oauth-protected-resource/mcp`).
   * @default `serveHttp()`: its own URL on a loopback address; the dev mount: Vite's URL; required elsewhere
   */
  resource?: string
  /**
   * The `aud` values a token may carry (one is enough): what the
   * authorization server names this API by (Entra ID's `api://...` or
   * application ID, Auth0's API identifier, Keycloak's client id).
   * @default `resource`, with or without a trailing slash
   */
  audience?: string | readonly string[]
  /**
   * The claims a token's scopes are read from, all of them: a
   * space-separated string or an array each (`scope`, `scp`, a roles claim
   * such as `roles`). @default ['scope', 'scp']
   */
  scopeClaim?: string | readonly string[]
  /** Scopes every request needs: named in the `401` challenge, and a token without them gets `403 insufficient_scope`. @default [] */
  scopes?: readonly string[]
  /**
   * A call of a tool whose scopes the token lacks: `step-up` answers
   * `403 insufficient_scope` naming the scopes it needs, so the client can
   * ask for them (the MCP spec's step-up authorization); `hide` answers it
   * as an unknown tool. `tools/list` hides such a tool either way.
   * @default 'step-up'
   */
  scopedTools?: 'hide' | 'step-up'
  /** The metadata's `scopes_supported`. @default `scopes` and every scope a tool requires */
  scopesSupported?: readonly string[]
  /** JWS algorithms a JWT may be signed with; asymmetric only (`none` and `HS*` are refused). @default RS256/384/512, PS256/384/512, ES256/384/512, EdDSA, Ed25519 */
  algorithms?: readonly string[]
  /** Seconds of clock skew tolerated on `exp` and `nbf`, at most 300. @default 30 */
  clockToleranceSeconds?: number
  /** Shortest time between two fetches of an issuer's JWKS prompted by a token signed with a key it does not list (key rotation). @default 30 */
  jwksCooldownSeconds?: number
  /**
   * Verifies an opaque token (not a JWT) as RFC 7662 introspection does:
   * resolves with the introspection response, or `null` for an unknown
   * token. Without it, only JWTs are accepted.
   */
  introspect?: (token: string) => IntrospectionResult | null | undefined | Promise<IntrospectionResult | null | undefined>
  /** The metadata's `resource_name`. @default none */
  resourceName?: string
}

/** The asymmetric JWS algorithms JWT access tokens are signed with (RFC 7518, RFC 8037, RFC 9864). */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]

/** A string or a list of them, as a list. */
export const listOf = (value: string | readonly string[]): readonly string[] => (typeof value === 'string' ? [value] : value)

/** The issuers of `auth`, as a list. */
export const issuersOf = (auth: AuthOptions): readonly string[] => (typeof auth.issuer === 'string' ? [auth.issuer] : auth.issuer)

/** Whether `value` is an OAuth scope-token (RFC 6749 §3.3: `1*( %x21 / %x23-5B / %x5D-7E )`). */
export const isScopeToken = (value: unknown): value is string => typeof value === 'string' && /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(value)

/** Why `text` is not an acceptable URL (https, or http on loopback; no fragment; a query only if `query`), or `undefined`. */
export function secureUrlProblem(text: unknown, query: boolean): string | undefined {
  if (typeof text !== 'string') return 'not a string'
  let url: URL
  try {
    url = new URL(text)
  } catch {
    return 'not an absolute URL'
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname)))
    return 'not https: http:// is accepted on loopback only'
  if (url.hash !== '' || text.includes('#')) return 'it has a fragment'
  if (!query && url.search !== '') return 'it has a query'
  return undefined
}

interface AuthRule {
  accepts: string
  /** Why the value fails, or `undefined` when it passes (a bare `false` says only `accepts`). */
  check: (value: unknown) => string | false | undefined
  /** The value used when the option is not given, where there is one (the docs show it: test/option-docs.test.ts). */
  default?: unknown
}

/** Default `auth.scopeClaim`: the claims scopes are read from (RFC 9068's `scope`, and the `scp` of Entra ID and Okta). */
export const DEFAULT_SCOPE_CLAIMS: readonly string[] = ['scope', 'scp']

/** Default `auth.clockToleranceSeconds`: the leeway on a token's `exp` and `nbf`. */
export const DEFAULT_CLOCK_TOLERANCE_S = 30
/** Default `auth.jwksCooldownSeconds`: the least time between two reads of the issuer's JWKS. */
export const DEFAULT_JWKS_COOLDOWN_S = 30

const scopesRule: AuthRule = {
  accepts: 'an array of OAuth scope tokens (no spaces or quotes)',
  check: (v) => (Array.isArray(v) && v.every(isScopeToken) ? undefined : false),
}

/** A non-empty string, or a non-empty array of them. */
const nonEmptyStrings = (v: unknown): boolean =>
  (typeof v === 'string' && v !== '') || (Array.isArray(v) && v.length > 0 && v.every((s) => typeof s === 'string' && s !== ''))

const secondsRule = (max: number): AuthRule => ({
  accepts: `an integer from 0 to ${max}`,
  check: (v) => (Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= max ? undefined : false),
})

/** The options of `auth`, with their defaults. */
export const AUTH_RULES: Record<keyof AuthOptions, AuthRule> = {
  issuer: {
    accepts: 'an issuer URL or a non-empty array of them (https; http:// on loopback only; no query or fragment)',
    check: (v) => {
      const list = typeof v === 'string' ? [v] : v
      if (!Array.isArray(list) || list.length === 0) return false
      for (const issuer of list) {
        const problem = secureUrlProblem(issuer, false)
        if (problem !== undefined) return typeof v === 'string' ? problem : `${showValue(issuer)}: ${problem}`
      }
      return undefined
    },
  },
  resource: {
    accepts: 'the URL clients connect to (https; http:// on loopback only; no fragment)',
    check: (v) => secureUrlProblem(v, true),
  },
  audience: {
    accepts: 'a non-empty string or a non-empty array of them (the aud values a token may carry)',
    check: (v) => (nonEmptyStrings(v) ? undefined : false),
  },
  scopeClaim: {
    accepts: 'a claim name or a non-empty array of them (scope, scp, roles, ...)',
    check: (v) => (nonEmptyStrings(v) ? undefined : false),
    default: DEFAULT_SCOPE_CLAIMS,
  },
  scopes: scopesRule,
  scopedTools: {
    accepts: '"hide" or "step-up"',
    check: (v) => (v === 'hide' || v === 'step-up' ? undefined : false),
    default: 'step-up',
  },
  scopesSupported: scopesRule,
  algorithms: {
    accepts: `a non-empty array of asymmetric JWS algorithms (${ASYMMETRIC_ALGORITHMS.join(', ')}): none and HS* are refused`,
    check: (v) => (Array.isArray(v) && v.length > 0 && v.every((a) => ASYMMETRIC_ALGORITHMS.includes(a as string)) ? undefined : false),
  },
  clockToleranceSeconds: { ...secondsRule(300), default: DEFAULT_CLOCK_TOLERANCE_S },
  jwksCooldownSeconds: { ...secondsRule(3600), default: DEFAULT_JWKS_COOLDOWN_S },
  introspect: { accepts: 'a function (token) => introspection response', check: (v) => (typeof v === 'function' ? undefined : false) },
  resourceName: { accepts: 'a non-empty string', check: (v) => (typeof v === 'string' && v !== '' ? undefined : false) },
}

/**
 * What is wrong with an `auth` option, as the rest of a one-line message
 * (`option "auth.issuer" must be ..., got ...`), or `undefined` when it is
 * right. `needResource`: the caller cannot know its own URL.
 */
export function authOptionsProblem(value: unknown, needResource: boolean): string | undefined {
  if (!isRecord(value)) return `option "auth" must be an object { issuer, resource?, scopes?, ... }, got ${showValue(value)}`
  for (const [key, v] of Object.entries(value)) {
    const rule = Object.hasOwn(AUTH_RULES, key) ? AUTH_RULES[key as keyof AuthOptions] : undefined
    if (rule === undefined) return `unknown option "auth.${key}": the options are ${Object.keys(AUTH_RULES).join(', ')}`
    if (v === undefined) continue
    const problem = rule.check(v)
    if (problem !== undefined)
      return `option "auth.${key}" must be ${rule.accepts}, got ${showValue(v)}${problem === false ? '' : ` (${problem})`}`
  }
  const auth = value as unknown as AuthOptions
  if (auth.issuer === undefined) return 'option "auth" needs "issuer": the authorization server whose tokens are accepted'
  if (needResource && auth.resource === undefined)
    return 'option "auth" needs "resource": the URL clients connect to (https://mcp.example.com/mcp), which tokens must name as their audience'
  return undefined
}
