// One side of the http-throughput bench, as a child process serving HTTP on
// 127.0.0.1 (port 0) and printing {"url"} on its first stdout line; it ends
// when its stdin closes. The same tool on every side: `add(a, b)`, numbers
// validated, answering the sum as text.
//   node http-child.mjs ours    our Server (the bench's copy of dist/), serveHttp()
//   node http-child.mjs sdk     the SDK's McpServer (zod schema) behind createMcpHandler, on node:http
//   node http-child.mjs floor   node:http answering each JSON-RPC request itself: no MCP library at all
import { createServer } from 'node:http'
import { createInterface } from 'node:readline'

const side = process.argv[2]
const say = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
let close

if (side === 'ours') {
  const { Server } = await import('unplugin-proto-mcp/runtime')
  const handle = await Server.builder('bench')
    .version('1.0.0')
    .tool(
      {
        name: 'add',
        description: 'Adds two numbers',
        inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      },
      ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    )
    .build()
    .serveHttp({ port: 0 })
  say({ url: handle.url })
  close = () => handle.close()
} else if (side === 'sdk') {
  const { McpServer, createMcpHandler } = await import('@modelcontextprotocol/server')
  const { toNodeHandler } = await import('@modelcontextprotocol/node')
  const z = await import('zod')
  const factory = () => {
    const server = new McpServer({ name: 'bench', version: '1.0.0' })
    server.registerTool(
      'add',
      { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
      ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
    )
    return server
  }
  const handler = toNodeHandler(createMcpHandler(factory))
  const server = createServer((req, res) => handler(req, res))
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  say({ url: `http://127.0.0.1:${server.address().port}/mcp` })
  close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)))
} else if (side === 'floor') {
  const server = createServer((req, res) => {
    let body = ''
    req.setEncoding('utf8')
    req.on('data', (chunk) => (body += chunk))
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body)
      if (id === undefined) return res.writeHead(202).end()
      const result =
        method === 'initialize'
          ? { protocolVersion: params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'floor', version: '1.0.0' } }
          : { content: [{ type: 'text', text: String(params.arguments.a + params.arguments.b) }] }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }))
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  say({ url: `http://127.0.0.1:${server.address().port}/mcp` })
  close = () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve)))
} else {
  throw new Error(`unknown side "${side}": ours, sdk or floor`)
}

createInterface({ input: process.stdin }).on('close', async () => {
  await close()
  process.exit(0)
})
