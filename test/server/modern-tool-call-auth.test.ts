/**
 * The auth gate stands in front of the HTTP fast path (src/server/http/http.ts):
 * a plain 2026-07-28 `tools/call` the fast path would answer reaches it, and
 * a tool, only with a verified token; without one, or with a bad one, the
 * request is refused before its body is read, and no tool runs. Tokens are
 * minted by a real OpenID provider (oidc-provider on loopback).
 */
import type { IncomingMessage } from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Server, verifiedPrincipal, type CallContext, type HttpHandle } from '../../src/entries/runtime.ts'
import { mayBeFastCall } from '../../src/server/http/modern-tool-call.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'

// Counts the requests the fast path was handed (http.ts imports it from here).
const fastPath = vi.hoisted(() => ({ taken: 0 }))
vi.mock('../../src/server/http/modern-tool-call.ts', async (original) => {
  const actual = await original<typeof import('../../src/server/http/modern-tool-call.ts')>()
  return {
    ...actual,
    serveFastCall: (...args: Parameters<typeof actual.serveFastCall>) => {
      fastPath.taken++
      return actual.serveFastCall(...args)
    },
  }
})

let oidc: OidcProvider
let http: HttpHandle
let ran: string[] = []

beforeAll(async () => {
  oidc = await startOidcProvider()
  const server = Server.builder('gated')
    .logging({ logger: false })
    .tool({ name: 'Whoami', inputSchema: { type: 'object' } }, (_args, ctx) => {
      const context = ctx as unknown as CallContext
      ran.push('Whoami')
      const text = JSON.stringify({ subject: verifiedPrincipal(context)?.subject, authorization: context.headers?.authorization ?? null })
      return { content: [{ type: 'text', text }] }
    })
    .tool({ name: 'Admin', inputSchema: { type: 'object' }, requires: { scopes: ['notes.write'] } }, () => {
      ran.push('Admin')
      return { content: [{ type: 'text', text: 'admin' }] }
    })
    .build()
  http = await server.serveHttp({ port: 0, auth: { issuer: oidc.issuer } })
})

afterAll(async () => {
  await http?.close()
  await oidc?.close()
})

const call = (name: string, authorization?: string) =>
  modernRequest(http.url, 'tools/call', { name, arguments: {} }, authorization === undefined ? {} : { headers: { authorization } })

describe('serveHttp() with auth: the fast path is behind the gate', () => {
  it('the requests below are ones the fast path takes by their headers', () => {
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'Whoami',
    }
    expect(mayBeFastCall({ method: 'POST', headers } as unknown as IncomingMessage)).toBe(true)
  })

  it('no token, a forged token, a token for another resource: 401 before the fast path, no tool runs', async () => {
    ran = []
    fastPath.taken = 0
    expect((await call('Whoami')).status).toBe(401)
    expect((await call('Whoami', 'Bearer not-a-token')).status).toBe(401)
    expect((await call('Whoami', `Bearer ${await oidc.token('reader', 'http://127.0.0.1:1/elsewhere')}`)).status).toBe(401)
    expect(ran).toEqual([])
    expect(fastPath.taken).toBe(0)
  })

  it('a verified token: the fast path answers, the handler sees the principal and not the header', async () => {
    ran = []
    fastPath.taken = 0
    const token = await oidc.token('reader', http.url)
    const response = await call('Whoami', `Bearer ${token}`)
    expect(response.status).toBe(200)
    expect(JSON.parse(response.body.result!.content[0].text)).toEqual({ subject: 'reader', authorization: null })
    expect(ran).toEqual(['Whoami'])
    expect(fastPath.taken).toBe(1)
  })

  it('a verified token without a tool’s scopes: 403 insufficient_scope naming them (step-up), and the tool does not run', async () => {
    ran = []
    const token = await oidc.token('reader', http.url)
    const response = await call('Admin', `Bearer ${token}`)
    expect(response.status).toBe(403)
    expect(ran).toEqual([])
  })
})
