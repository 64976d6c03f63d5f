/**
 * What the gate does with the issuer's keys and a token's header and
 * subject, against a real JWKS issuer on loopback (a discovery document and
 * a JWKS that a test can take a key out of): a removed key stops verifying
 * within the minute the docs promise; an unknown `crit` extension is named
 * as such; a token without `sub` acts for its client and is never given
 * one, and a token naming neither is refused.
 */
import { KeyObject, sign as signBytes } from 'node:crypto'
import { createServer, type Server as HttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { Server, verifiedPrincipal, type CallContext, type HttpHandle } from '../../src/entries/runtime.ts'
import { principalMetadata } from '../../src/runtime/backend.ts'
import { principalOf } from '../../src/server/base/principal.ts'
import { modernRequest } from '../helpers/modern-wire.ts'

interface Key {
  kid: string
  privateKey: CryptoKey
  jwk: JWK
}

let issuerHttp: HttpServer
let issuer: string
let published: Key[] = []
let jwksReads = 0
let http: HttpHandle

const makeKey = async (kid: string): Promise<Key> => {
  const { publicKey, privateKey } = await generateKeyPair('ES256')
  return { kid, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: 'ES256', use: 'sig' } }
}

beforeAll(async () => {
  issuerHttp = createServer((req, res) => {
    res.setHeader('content-type', 'application/json')
    if (req.url === '/.well-known/oauth-authorization-server') return res.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }))
    if (req.url === '/jwks') {
      jwksReads++
      return res.end(JSON.stringify({ keys: published.map((k) => k.jwk) }))
    }
    res.statusCode = 404
    res.end('{}')
  })
  await new Promise<void>((resolve) => issuerHttp.listen(0, '127.0.0.1', resolve))
  issuer = `http://127.0.0.1:${(issuerHttp.address() as AddressInfo).port}`
  published = [await makeKey('a'), await makeKey('b')]
  const server = Server.builder('keys')
    .logging({ logger: false })
    .tool({ name: 'Whoami', inputSchema: { type: 'object' } }, (_args, ctx) => {
      const context = ctx as unknown as CallContext
      const metadata = Object.fromEntries(principalMetadata(context, { 'x-user': 'sub', 'x-client': 'client_id' }))
      return {
        content: [
          {
            type: 'text',
            text: JSON.stringify({ principal: verifiedPrincipal(context), metadata, caller: principalOf(context.authInfo, undefined) }),
          },
        ],
      }
    })
    .build()
  http = await server.serveHttp({ port: 0, auth: { issuer } })
})

afterEach(() => {
  vi.useRealTimers()
})

afterAll(async () => {
  await http?.close()
  issuerHttp?.closeAllConnections()
  await new Promise((resolve) => issuerHttp?.close(resolve))
})

const sign = (key: Key, claims: Record<string, unknown>, header: Record<string, unknown> = {}): Promise<string> =>
  new SignJWT({ scope: 'mcp', ...claims })
    .setProtectedHeader({ alg: 'ES256', kid: key.kid, typ: 'at+jwt', ...header })
    .setIssuer(issuer)
    .setAudience(http.url)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(key.privateKey)

const whoami = (token: string) =>
  modernRequest(http.url, 'tools/call', { name: 'Whoami', arguments: {} }, { headers: { authorization: `Bearer ${token}` } })

describe('a key removed from the JWKS', () => {
  it('stops verifying within a minute: tokens remembered or not, signed before the removal or after', async () => {
    const [a, b] = published as [Key, Key]
    const remembered = await sign(b, { sub: 'u1' })
    expect((await whoami(remembered)).status).toBe(200)
    const reads = jwksReads
    published = [a]
    // Not yet re-read: the JWKS the gate holds is young.
    const fresh = await sign(b, { sub: 'u2' })
    expect((await whoami(fresh)).status).toBe(200)
    expect(jwksReads).toBe(reads)
    // A minute on (the clock only: jose and the gate read Date.now()).
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 60_000 })
    for (const token of [remembered, fresh, await sign(b, { sub: 'u3' })]) {
      const refused = await whoami(token)
      expect(refused.status).toBe(401)
    }
    expect(jwksReads).toBeGreaterThan(reads)
    // The key still published verifies on.
    expect((await whoami(await sign(a, { sub: 'u4' }))).status).toBe(200)
  })
})

describe("a token's header and subject", () => {
  it('an unknown crit extension is named as one, not as an algorithm', async () => {
    // jose will not sign what it could not verify: the JWS by hand (ES256, r||s).
    const key = published[0]!
    const part = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
    const now = Math.floor(Date.now() / 1000)
    const input = `${part({ alg: 'ES256', kid: key.kid, crit: ['urn:example:bound'], 'urn:example:bound': true })}.${part({
      iss: issuer,
      aud: http.url,
      sub: 'u',
      scope: 'mcp',
      exp: now + 600,
    })}`
    const signature = signBytes('sha256', Buffer.from(input), {
      key: KeyObject.from(key.privateKey),
      dsaEncoding: 'ieee-p1363',
    })
    const token = `${input}.${signature.toString('base64url')}`
    const refused = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: '{}',
    })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({
      error: 'invalid_token',
      error_description: 'token header marks the extension "urn:example:bound" critical (crit), and this server does not know it',
    })
  })

  it('without sub: the client is the caller, and x-user=sub sends nothing (not the client id)', async () => {
    const answer = await whoami(await sign(published[0]!, { client_id: 'robot' }))
    expect(answer.status).toBe(200)
    const { principal, metadata } = JSON.parse(answer.body.result!.content[0].text)
    expect(principal).toMatchObject({ issuer, subject: '', clientId: 'robot' })
    expect(metadata).toEqual({ 'x-client': 'robot' })
  })

  it('tokens without sub are callers by client: two clients two callers, one client one; a token naming no client either is refused', async () => {
    const key = published[0]!
    const callerOf = async (claims: Record<string, unknown>): Promise<string> =>
      JSON.parse((await whoami(await sign(key, claims))).body.result!.content[0].text).caller
    const one = await callerOf({ client_id: 'one', jti: '1' })
    expect(await callerOf({ client_id: 'one', jti: '2' })).toBe(one)
    expect(await callerOf({ client_id: 'two' })).not.toBe(one)
    // A subject of the same name as a client is another caller.
    expect(await callerOf({ sub: 'one' })).not.toBe(one)
    const refused = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${await sign(key, {})}` },
      body: '{}',
    })
    expect(refused.status).toBe(401)
    expect((await refused.json()).error_description).toBe(
      'token names no subject (sub) and no client (client_id): this server tells callers apart by them',
    )
  })
})
