/**
 * One loopback rule (src/contract/loopback.ts), for serveHttp, the command
 * and the dev mount (test/dev/dev-server.test.ts). Loopback is 127.0.0.0/8, `::1` in any spelling and `::ffff:127.x`: binding
 * one keeps the Host check on (a foreign Host gets 403 on the raw wire) and
 * accepts the bound address itself. A non-loopback bind without an
 * allow-list refuses to start unless `allowAnyHost` / `--allow-any-host`
 * says so. Also through `proto-mcp serve`, whose sessions belong to their
 * caller as `serveHttp`'s do.
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { Server } from '../../src/entries/runtime.ts'
import { isLoopbackHost, loopbackHostNames } from '../../src/contract/index.ts'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { INITIALIZE, rawRequest } from '../helpers/raw-http.ts'
import { startCli, builtCli, runCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

let cli = ''
beforeAll(async () => {
  cli = builtCli()
}, 120_000)

describe('isLoopbackHost', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.0.0.2', true],
    ['127.255.255.254', true],
    ['localhost', true],
    ['LOCALHOST', true],
    ['::1', true],
    ['[::1]', true],
    ['0:0:0:0:0:0:0:1', true],
    ['0::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:2', true],
    ['0.0.0.0', false],
    ['::', false],
    ['128.0.0.1', false],
    ['10.0.0.1', false],
    ['::ffff:10.0.0.1', false],
    ['::2', false],
    ['example.com', false],
    ['127.0.0.1.example.com', false],
    ['127.0.0.256', false],
    ['[::ffff:127.0.0.1]', true],
    ['127.1', true],
  ])('%s → %s', (host, loopback) => {
    expect(isLoopbackHost(host)).toBe(loopback)
  })

  it('the Host names a bound address accepts: loopback names, plus another loopback address as a URL writes it', () => {
    expect(loopbackHostNames('127.0.0.1')).toEqual(['localhost', '127.0.0.1', '[::1]'])
    expect(loopbackHostNames('::1')).toEqual(['localhost', '127.0.0.1', '[::1]'])
    expect(loopbackHostNames('127.0.0.2')).toEqual(['localhost', '127.0.0.1', '[::1]', '127.0.0.2'])
    expect(loopbackHostNames('::ffff:127.0.0.1')).toEqual(['localhost', '127.0.0.1', '[::1]', '[::ffff:7f00:1]'])
    expect(loopbackHostNames('0.0.0.0')).toBeUndefined()
    expect(loopbackHostNames('10.0.0.1')).toBeUndefined()
  })
})

describe('serveHttp on a loopback spelling', () => {
  const server = Server.builder('loopback').build()
  it.each(['127.0.0.2', '::ffff:127.0.0.1', '0:0:0:0:0:0:0:1'])(
    '%s checks Host (403 for a foreign one) and serves its own address',
    async (host) => {
      const handle = await server.serveHttp({ host, port: 0 })
      try {
        const url = handle.url
        expect((await rawRequest(url, { body: INITIALIZE, headers: { host: 'evil.example' } })).status).toBe(403)
        expect((await rawRequest(url, { body: INITIALIZE, headers: { host: `evil.example:${new URL(url).port}` } })).status).toBe(403)
        expect((await rawRequest(url, { body: INITIALIZE })).status).toBe(200)
        expect((await rawRequest(url, { body: INITIALIZE, headers: { host: `localhost:${new URL(url).port}` } })).status).toBe(200)
      } finally {
        await handle.close()
      }
    },
  )
})

describe('serveHttp on a non-loopback address', () => {
  const server = Server.builder('wide').build()
  it('refuses without allowedHosts, naming the two ways out', async () => {
    await expect(server.serveHttp({ host: '0.0.0.0', port: 0 })).rejects.toThrow(
      'serveHttp(): refusing to serve non-loopback address 0.0.0.0 without allowedHosts: any web page could reach it through DNS rebinding; pass allowedHosts (the names clients use), or allowAnyHost: true to accept any Host',
    )
    await expect(server.serveHttp({ host: '::', port: 0 })).rejects.toThrow(/refusing to serve non-loopback address ::/)
  })
})

describe('proto-mcp serve --host', () => {
  it('a non-loopback --host without --allowed-host exits 1 with a one-line reason', async () => {
    const run = await runCli(cli, ['serve', EXAMPLE_PROTO, '--grpc', '127.0.0.1:1', '--http', '0', '--host', '0.0.0.0'])
    expect(run.code).toBe(1)
    expect(run.stderr).toBe(
      'proto-mcp: cannot serve HTTP on 0.0.0.0: it is not a loopback address; pass --allowed-host <name> for each name clients use, or --allow-any-host\n',
    )
  })

  it('sessions belong to the caller that opened them (another bearer token gets 404)', async () => {
    const running = await startCli(cli, ['serve', EXAMPLE_PROTO, '--grpc', '127.0.0.1:1', '--http', '0'], REPO)
    try {
      const opened = await rawRequest(running.url, { body: INITIALIZE, headers: { authorization: 'Bearer alice' } })
      const id = opened.headers['mcp-session-id']!
      const list = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
      const as = (authorization: string) =>
        rawRequest(running.url, { body: list, headers: { authorization, 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' } })
      expect((await as('Bearer bob')).status).toBe(404)
      expect(
        (
          await rawRequest(running.url, {
            method: 'GET',
            headers: { authorization: 'Bearer bob', accept: 'text/event-stream', 'mcp-session-id': id, 'last-event-id': '1' },
          })
        ).status,
      ).toBe(404)
      expect((await as('Bearer alice')).status).toBe(200)
    } finally {
      await running.stop()
    }
  })

  it('--host 127.0.0.2 keeps the Host check on', async () => {
    const running = await startCli(cli, ['serve', EXAMPLE_PROTO, '--grpc', '127.0.0.1:1', '--http', '0', '--host', '127.0.0.2'], REPO)
    try {
      expect((await rawRequest(running.url, { body: INITIALIZE, headers: { host: 'evil.example' } })).status).toBe(403)
      expect((await rawRequest(running.url, { body: INITIALIZE })).status).toBe(200)
    } finally {
      await running.stop()
    }
  })

  it('--allow-any-host serves a non-loopback --host without the check, with a warning', async () => {
    const running = await startCli(
      cli,
      ['serve', EXAMPLE_PROTO, '--grpc', '127.0.0.1:1', '--http', '0', '--host', '0.0.0.0', '--allow-any-host'],
      REPO,
    )
    try {
      expect(running.stderr()).toContain('with allowAnyHost: the Host header is not checked')
      const local = running.url.replace('0.0.0.0', '127.0.0.1')
      expect((await rawRequest(local, { body: INITIALIZE, headers: { host: 'anything.example' } })).status).toBe(200)
    } finally {
      await running.stop()
    }
  })
})
