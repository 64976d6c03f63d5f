/**
 * The dev mount on the raw wire: only the dev server's own origin may call
 * `/mcp` from a browser (a page of another dev server on another localhost
 * port was answered, and Vite's CORS let it read the result); `/__mcp/`
 * cannot be framed (`X-Frame-Options: DENY`, CSP `frame-ancestors 'none'`);
 * unsupported methods get 405 there too.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INITIALIZE, rawRequest } from '../helpers/raw-http.ts'
import { startDevApp, type DevApp } from './dev-app.ts'

let app: DevApp
beforeAll(async () => {
  app = await startDevApp('dev-hardening')
}, 120_000)
afterAll(async () => {
  await app?.close()
})

describe('browser origins on /mcp', () => {
  it('another localhost port is another site: 403, and no result to read', async () => {
    const port = Number(new URL(app.origin).port)
    for (const other of [`http://localhost:${port + 1}`, `http://127.0.0.1:${port + 1}`, 'http://localhost', `https://127.0.0.1:${port}`]) {
      const response = await rawRequest(`${app.origin}/mcp`, { body: INITIALIZE, headers: { origin: other } })
      expect(response.status, other).toBe(403)
      expect(response.body, other).toContain('forbidden origin')
      expect(response.body).not.toContain('protocolVersion')
    }
  })

  it("the dev server's own origin, and clients sending none, are served", async () => {
    const own = await rawRequest(`${app.origin}/mcp`, { body: INITIALIZE, headers: { origin: app.origin } })
    expect(own.status).toBe(200)
    expect(own.body).toContain('protocolVersion')
    const port = new URL(app.origin).port
    const byName = await rawRequest(`${app.origin}/mcp`, {
      body: INITIALIZE,
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
    })
    expect(byName.status).toBe(200)
    expect((await rawRequest(`${app.origin}/mcp`, { body: INITIALIZE })).status).toBe(200)
  })
})

describe('the /__mcp/ page', () => {
  it.each(['/__mcp/', '/__mcp/app.js'])('%s may not be framed', async (path) => {
    const response = await rawRequest(`${app.origin}${path}`, { method: 'GET' })
    expect(response.status).toBe(200)
    expect(response.headers['x-frame-options']).toBe('DENY')
    expect(response.headers['content-security-policy']).toBe("frame-ancestors 'none'")
  })
})

describe('methods on the dev mount', () => {
  it.each(['TRACE', 'PUT', 'PATCH'])('%s /mcp answers 405', async (method) => {
    const response = await rawRequest(`${app.origin}/mcp`, { method, body: '{}' })
    expect(response.status).toBe(405)
    expect(response.headers.allow).toBe('GET, POST, DELETE')
  })
})

describe('sessions on the dev mount', () => {
  it('belong to the caller that opened them: another bearer token gets 404', async () => {
    const url = `${app.origin}/mcp`
    const opened = await rawRequest(url, { body: INITIALIZE, headers: { authorization: 'Bearer alice' } })
    const id = opened.headers['mcp-session-id']!
    expect(id).toBeDefined()
    const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const as = (authorization: string) =>
      rawRequest(url, { body: list, headers: { authorization, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } })
    expect((await as('Bearer bob')).status).toBe(404)
    expect((await rawRequest(url, { method: 'DELETE', headers: { authorization: 'Bearer bob', 'mcp-session-id': id } })).status).toBe(404)
    expect((await as('Bearer alice')).status).toBe(200)
  })
})
