/**
 * A verified caller at the gRPC backend (a real grpc-js server): the
 * claims `principalMetadata` names, the backend's own credentials from
 * `callMetadata` (here a service token the real OpenID provider mints by
 * client credentials), and never the caller's `authorization`, even when a
 * header allow-list names it. An unverified caller keeps today's forwarding.
 */
import { decodeJwt } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grpc } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/internal.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'
import { startGrpcServer, vibeService, type GrpcTestServer } from './grpc-server.ts'

let oidc: OidcProvider
let grpcServer: GrpcTestServer
const vibe = vibeService()
beforeAll(async () => {
  oidc = await startOidcProvider()
  grpcServer = await startGrpcServer([vibe])
})
afterAll(async () => {
  await grpcServer?.stop()
  await oidc?.close()
})

const BACKEND_AUDIENCE = 'http://127.0.0.1:9/notes-backend'

describe('principalMetadata and callMetadata', () => {
  it("the backend gets the chosen claims and its own token, never the caller's", async () => {
    const minted: string[] = []
    const backend = grpc(grpcServer.address, {
      forwardHeaders: ['authorization', 'traceparent'],
      principalMetadata: { 'x-user': 'sub', 'x-client': 'client_id', 'x-scopes': 'scope', 'x-tenant': 'tenant', 'x-absent': 'nope' },
      callMetadata: async (context) => {
        // The backend's own credentials: a service account's token (an RFC 8693 exchange of context.authInfo.token would go here).
        expect((context.authInfo as { token: string }).token).toBe('caller-token')
        const token = await oidc.token('service', BACKEND_AUDIENCE)
        minted.push(token)
        return { authorization: `Bearer ${token}` }
      },
    })
    const server = createProtoServer(specFromProto(EXAMPLE_PROTO)).forward('VibeService', backend)
    const authInfo = {
      token: 'caller-token',
      clientId: 'app',
      scopes: ['mcp', 'notes.read'],
      expiresAt: Math.floor(Date.now() / 1000) + 60,
      extra: { iss: oidc.issuer, sub: 'alice', claims: { sub: 'alice', tenant: ['acme', 'beta'] } },
    }
    const before = vibe.received.length
    const result = await server.call(
      'GetVibe',
      {},
      { authInfo, headers: { authorization: 'Bearer caller-token', traceparent: '00-abc-def-01' } },
    )
    expect(result.isError).toBe(false)
    const metadata = vibe.received[before]!.metadata
    expect(metadata.get('x-user')).toEqual(['alice'])
    expect(metadata.get('x-client')).toEqual(['app'])
    expect(metadata.get('x-scopes')).toEqual(['mcp notes.read'])
    expect(metadata.get('x-tenant')).toEqual(['acme beta'])
    expect(metadata.get('x-absent')).toEqual([])
    expect(metadata.get('traceparent')).toEqual(['00-abc-def-01'])
    expect(metadata.get('authorization')).toEqual([`Bearer ${minted[0]}`])
    expect(decodeJwt(minted[0]!)).toMatchObject({ aud: BACKEND_AUDIENCE, client_id: 'service' })
    backend.close()
  })

  it('without a verified caller, forwardHeaders forwards authorization as before and no principal goes', async () => {
    const backend = grpc(grpcServer.address, { principalMetadata: { 'x-user': 'sub' } })
    const server = createProtoServer(specFromProto(EXAMPLE_PROTO)).forward('VibeService', backend)
    const before = vibe.received.length
    await server.call('GetVibe', {}, { headers: { authorization: 'Bearer from-my-own-middleware' } })
    const metadata = vibe.received[before]!.metadata
    expect(metadata.get('authorization')).toEqual(['Bearer from-my-own-middleware'])
    expect(metadata.get('x-user')).toEqual([])
    backend.close()
  })

  it('a callMetadata that throws fails the call with its message', async () => {
    const backend = grpc(grpcServer.address, {
      callMetadata: () => {
        throw Object.assign(new Error('token exchange refused'), { code: 16 })
      },
    })
    const server = createProtoServer(specFromProto(EXAMPLE_PROTO)).forward('VibeService', backend)
    const before = vibe.received.length
    const result = await server.call('GetVibe', {})
    expect(result).toMatchObject({ isError: true, content: [{ text: 'rpc error: code = Unauthenticated desc = token exchange refused' }] })
    expect(vibe.received.length).toBe(before)
    backend.close()
  })
})
