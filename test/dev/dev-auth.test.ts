/**
 * The plugin's `dev.auth`: Vite's dev server serves `/mcp` as a protected
 * resource (its URL the resource), the metadata beside it, and lets in a
 * token the real OpenID provider minted for it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INITIALIZE, rawRequest } from '../helpers/raw-http.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'
import { startDevApp, type DevApp } from './dev-app.ts'

let oidc: OidcProvider
let app: DevApp
beforeAll(async () => {
  oidc = await startOidcProvider()
  app = await startDevApp('dev-auth', { auth: { issuer: oidc.issuer } })
}, 120_000)
afterAll(async () => {
  await app?.close()
  await oidc?.close()
})

describe('dev.auth', () => {
  it("serves the metadata with Vite's URL as the resource, refuses a request without a token and serves one with", async () => {
    const resource = `${app.origin}/mcp`
    const metadata = await rawRequest(`${app.origin}/.well-known/oauth-protected-resource/mcp`, { method: 'GET' })
    expect(metadata.status).toBe(200)
    expect(JSON.parse(metadata.body)).toMatchObject({ resource, authorization_servers: [oidc.issuer] })
    const refused = await rawRequest(resource, { body: INITIALIZE })
    expect(refused.status).toBe(401)
    expect(refused.headers['www-authenticate']).toBe(`Bearer resource_metadata="${app.origin}/.well-known/oauth-protected-resource/mcp"`)
    const token = await oidc.token('service', resource)
    const served = await rawRequest(resource, { body: INITIALIZE, headers: { authorization: `Bearer ${token}` } })
    expect(served.status).toBe(200)
    expect(served.body).toContain('protocolVersion')
    const other = await rawRequest(resource, {
      body: INITIALIZE,
      headers: { authorization: `Bearer ${await oidc.token('service', 'http://127.0.0.1:9/mcp')}` },
    })
    expect(other.status).toBe(401)
  })
})
