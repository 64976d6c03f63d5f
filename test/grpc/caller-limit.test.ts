/**
 * `maxRequestsPerCaller` counts the verified principal (issue 36): with
 * tokens checked against a real OpenID provider, one principal holding
 * several valid tokens (each a different `Authorization` header) is still
 * one caller, and a token that does not verify holds no caller's slot:
 * it is answered 401 and no call runs at the real grpc-js backend.
 */
import type * as grpcJs from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grpc, type GrpcBackend } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { HttpHandle } from '../../src/entries/runtime.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'
import { startGrpcServer, vibeService, type GrpcTestServer } from './grpc-server.ts'

const PER_CALLER = 2
let oidc: OidcProvider
let grpcServer: GrpcTestServer
let backend: GrpcBackend
let http: HttpHandle
/** GetVibe calls the backend holds until `release()`. */
const held: Array<() => void> = []
const release = (): void => {
  for (const done of held.splice(0)) done()
}

beforeAll(async () => {
  oidc = await startOidcProvider()
  const vibe = vibeService({
    GetVibe: (_call: grpcJs.ServerUnaryCall<unknown, unknown>, callback: grpcJs.sendUnaryData<unknown>) => {
      held.push(() => callback(null, { vibe: 'held' }))
    },
  })
  grpcServer = await startGrpcServer([vibe])
  backend = grpc(grpcServer.address)
  const server = createProtoServer(specFromProto(EXAMPLE_PROTO)).forward('VibeService', backend)
  http = await server.serveHttp({
    port: 0,
    logger: false,
    maxRequestsPerCaller: PER_CALLER,
    auth: { issuer: oidc.issuer, scopes: ['mcp'], clockToleranceSeconds: 1 },
  })
}, 60_000)
afterAll(async () => {
  release()
  await http?.close()
  backend?.close()
  await grpcServer?.stop()
  await oidc?.close()
})

const call = (token: string) =>
  modernRequest(http.url, 'tools/call', { name: 'GetVibe', arguments: {} }, { headers: { authorization: `Bearer ${token}` } })

/** Waits until the backend holds `n` calls (or 5 s passed). */
async function holding(n: number): Promise<number> {
  for (let i = 0; i < 100 && held.length < n; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  return held.length
}

describe('maxRequestsPerCaller keys on the verified principal', () => {
  it('one principal with several valid tokens is one caller; another principal is not held up; junk tokens get 401 and hold nothing', async () => {
    // Two tokens of one client (different texts, the same principal), and one of another client.
    const [a, b, other] = await Promise.all([
      oidc.token('service', http.url),
      oidc.token('service', http.url),
      oidc.token('reader', http.url),
    ])
    expect(a).not.toBe(b)
    const running = [call(a), call(b)]
    expect(await holding(PER_CALLER)).toBe(PER_CALLER)
    // The principal's third call, with either token or a fresh one, is one too many.
    const fresh = await oidc.token('service', http.url)
    for (const token of [a, b, fresh]) {
      const refused = await call(token)
      expect(refused.status).toBe(429)
      expect(refused.body.error?.message).toMatch(/too many requests in flight for this caller: 2 \(maxRequestsPerCaller\)/)
    }
    // Tokens that do not verify are refused by the auth gate, not counted as callers, and run nothing.
    for (let i = 0; i < 5; i++) expect((await call(`junk-${i}`)).status).toBe(401)
    expect(held.length).toBe(PER_CALLER)
    // Another principal still gets its calls.
    const theirs = call(other)
    expect(await holding(PER_CALLER + 1)).toBe(PER_CALLER + 1)
    release()
    for (const answer of await Promise.all([...running, theirs])) expect(answer.body.result?.isError).toBe(false)
    // Once answered, the principal's slots are free again.
    const again = call(fresh)
    expect(await holding(1)).toBe(1)
    release()
    expect((await again).body.result?.isError).toBe(false)
  }, 60_000)
})
