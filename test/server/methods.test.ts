/**
 * Every HTTP method Streamable HTTP does not use answers 405 with an `Allow`
 * header, on the raw wire: `serveHttp`, `nodeHandler` on a plain node:http
 * server, and `proto-mcp serve --http`. TRACE used to answer 500 (`-32603`:
 * a web `Request` cannot hold it) and CONNECT dropped the socket unanswered.
 */
import { createServer, type Server as NodeServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server } from '../../src/entries/runtime.ts'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { INITIALIZE, rawRequest } from '../helpers/raw-http.ts'
import { startCli, type RunningCli, builtCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'

const UNSUPPORTED = ['TRACE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'CONNECT']

const targets: Record<string, string> = {}
const stops: (() => Promise<void>)[] = []

beforeAll(async () => {
  const server = Server.builder('methods').build()
  const handle = await server.serveHttp({ port: 0 })
  targets.serveHttp = handle.url
  stops.push(() => handle.close())

  const handler = Server.builder('methods').build().nodeHandler({ path: '/mcp' })
  const node: NodeServer = createServer((req, res) => handler(req, res))
  await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve))
  targets.nodeHandler = `http://127.0.0.1:${(node.address() as AddressInfo).port}/mcp`
  stops.push(async () => {
    await handler.close()
    node.closeAllConnections()
    await new Promise<void>((resolve) => node.close(() => resolve()))
  })

  const cli: RunningCli = await startCli(builtCli(), ['serve', EXAMPLE_PROTO, '--grpc', '127.0.0.1:1', '--http', '0'], REPO)
  targets['proto-mcp serve'] = cli.url
  stops.push(() => cli.stop())
}, 120_000)

afterAll(async () => {
  for (const stop of stops) await stop()
})

describe.each(['serveHttp', 'nodeHandler', 'proto-mcp serve'])('%s', (name) => {
  it.each(UNSUPPORTED.filter((m) => m !== 'CONNECT' || name !== 'nodeHandler'))('%s answers 405 with Allow', async (method) => {
    const response = await rawRequest(targets[name]!, { method, body: method === 'HEAD' || method === 'CONNECT' ? '' : '{}' })
    expect(response.status).toBe(405)
    expect(response.headers.allow).toBe('GET, POST, DELETE')
  })

  it('still serves POST afterwards', async () => {
    const response = await rawRequest(targets[name]!, { body: INITIALIZE })
    expect(response.status).toBe(200)
    expect(response.body).toContain('"protocolVersion"')
  })
})
