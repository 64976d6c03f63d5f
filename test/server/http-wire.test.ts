/**
 * Streamable HTTP: SDK v1 and v2 clients against `serveHttp({ port: 0 })`,
 * the Host/Origin guards (403), the body limit (413), and that the server
 * still answers afterwards.
 */
import { request as httpRequest } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { MAX_BODY_BYTES } from '../../src/contract/index.ts'
import type { HttpHandle } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { text } from '../helpers/result.ts'
import { nullArgumentsFor } from '../helpers/null-arguments.ts'

let handle: HttpHandle
let current = ''

beforeAll(async () => {
  const server = createProtoServer(specFromProto(EXAMPLE_PROTO))
  server.implement('examples.v1.VibeService', {
    setVibe: (req: { vibe?: string }) => {
      const previousVibe = current
      current = req.vibe ?? ''
      return { previousVibe, vibe: current }
    },
    GetVibe: () => ({ vibe: current }),
  })
  handle = await server.serveHttp({ port: 0 })
})

afterAll(async () => {
  await handle?.close()
})

interface RawResponse {
  status: number
  body: string
}

/** A raw POST with full control of the headers (fetch cannot set Host). */
function rawPost(headers: Record<string, string>, body: string | Buffer | Buffer[], target = handle.url): Promise<RawResponse> {
  const url = new URL(target)
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        timeout: 10_000,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }))
      },
    )
    req.on('error', reject)
    // An array is sent in chunks, without a content-length.
    if (Array.isArray(body)) {
      for (const chunk of body) req.write(chunk)
      req.end()
    } else req.end(body)
  })
}

const PING = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
})

describe('serveHttp', () => {
  it('listens on an ephemeral port on loopback, at /mcp', () => {
    expect(handle.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    expect(handle.url).not.toContain(':0/')
  })

  it('SDK v1 client: list, call, tool error, unknown tool -32602', async () => {
    const client = new ClientV1({ name: 'v1', version: '0' })
    await client.connect(new HttpV1(new URL(handle.url)))
    try {
      expect((await client.listTools()).tools).toHaveLength(5)
      const ok = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'http' } })
      expect(text(ok)).toBe('{"vibe":"http"}')
      expect(ok.structuredContent).toEqual({ vibe: 'http' })
      const bad = await client.callTool({ name: 'SetVibe', arguments: { vibe: 5 } })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toBe('invalid arguments: /vibe: 5 is not of type "string"')
      await expect(client.callTool({ name: 'Nope' })).rejects.toMatchObject({ code: -32602 })
    } finally {
      await client.close()
    }
  })

  for (const [label, versionNegotiation, era] of [
    ['legacy', undefined, 'legacy'],
    ['auto', { mode: 'auto' as const }, 'modern'],
  ] as const) {
    it(`SDK v2 client (${label}): era ${era}, list and call`, async () => {
      const client = new ClientV2({ name: 'v2', version: '0' }, versionNegotiation ? { versionNegotiation } : {})
      await client.connect(new HttpV2(new URL(handle.url)))
      try {
        expect(client.getProtocolEra()).toBe(era)
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('SetVibeDetails')
        const ok = await client.callTool({ name: 'SetVibe', arguments: { vibe: `v2-${label}` } })
        expect(text(ok)).toMatch(/^\{"previousVibe":"[^"]*","vibe":"v2-/)
        expect(text(await client.callTool({ name: 'GetVibe' }))).toBe(`{"vibe":"v2-${label}"}`)
        await expect(client.callTool({ name: 'Nope', arguments: {} })).rejects.toMatchObject({ code: -32602 })
      } finally {
        await client.close()
      }
    })
  }

  it('a foreign Host header is refused with 403', async () => {
    const res = await rawPost({ host: 'evil.example:80' }, PING)
    expect(res.status).toBe(403)
  })

  it('a foreign Origin is refused with 403; a loopback Origin is served', async () => {
    expect((await rawPost({ origin: 'https://evil.example' }, PING)).status).toBe(403)
    expect((await rawPost({ origin: 'http://localhost:5173' }, PING)).status).toBe(200)
  })

  it('a body over the limit gets 413, and the server still answers', async () => {
    expect(MAX_BODY_BYTES).toBe(4 * 1024 * 1024)
    const big = JSON.stringify({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'SetVibe', arguments: { vibe: 'x'.repeat(5 * 1024 * 1024) } },
    })
    expect((await rawPost({}, big)).status).toBe(413)
    const after = await rawPost({}, PING)
    expect(after.status).toBe(200)
    expect(after.body).toContain('"serverInfo"')
  })

  it('a chunked body over the limit (no content-length) gets 413 too', async () => {
    const chunk = Buffer.alloc(1024 * 1024, 'x')
    const res = await rawPost({}, [
      Buffer.from('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"'),
      chunk,
      chunk,
      chunk,
      chunk,
      chunk,
      Buffer.from('"}}'),
    ])
    expect(res.status).toBe(413)
    expect((await rawPost({}, PING)).status).toBe(200)
  })

  it('other paths are 404', async () => {
    const url = new URL(handle.url)
    const res = await fetch(`http://${url.host}/other`, { method: 'POST', body: PING })
    expect(res.status).toBe(404)
  })
})

/** The JSON-RPC message of a raw response, sent as JSON or as one SSE event. */
function rpcMessage(body: string): any {
  const data = body.split('\n').find((line) => line.startsWith('data: '))
  return JSON.parse(data === undefined ? body : data.slice(6))
}

describe('null arguments over HTTP are {} (docs/calls.md, "The pipeline"), not -32602', () => {
  it('a raw 2025-era POST of tools/call with "arguments": null is a normal tool result', async () => {
    const set = await rawPost(
      { 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'SetVibe', arguments: { vibe: 'raw-http' } } }),
    )
    expect(rpcMessage(set.body).result.isError).toBe(false)
    const res = await rawPost(
      { 'mcp-protocol-version': '2025-06-18' },
      JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'GetVibe', arguments: null } }),
    )
    expect(res.status).toBe(200)
    expect(rpcMessage(res.body)).toEqual({
      jsonrpc: '2.0',
      id: 8,
      result: { content: [{ type: 'text', text: '{"vibe":"raw-http"}' }], isError: false, structuredContent: { vibe: 'raw-http' } },
    })
  })

  for (const [label, versionNegotiation, era] of [
    ['legacy', undefined, 'legacy'],
    ['auto', { mode: 'auto' as const }, 'modern'],
  ] as const) {
    it(`SDK v2 client (${label}, era ${era}) sending null arguments`, async () => {
      const client = new ClientV2({ name: 'v2', version: '0' }, versionNegotiation ? { versionNegotiation } : {})
      await client.connect(nullArgumentsFor(new HttpV2(new URL(handle.url)), 'GetVibe'))
      try {
        expect(client.getProtocolEra()).toBe(era)
        await client.callTool({ name: 'SetVibe', arguments: { vibe: `null-${era}` } })
        const got = await client.callTool({ name: 'GetVibe', arguments: {} })
        expect(got).toMatchObject({ isError: false, structuredContent: { vibe: `null-${era}` } })
      } finally {
        await client.close()
      }
    })
  }
})

/** Makes the client's `resources/read` go without its uri and its `tools/call` of GetVibe carry text as arguments. */
function badParams<T extends { send(message: any, options?: any): Promise<void> }>(transport: T): T {
  const send = transport.send.bind(transport)
  transport.send = (message, options) => {
    if (message?.method === 'resources/read') {
      const { uri: _uri, ...params } = message.params
      return send({ ...message, params }, options)
    }
    if (message?.method === 'tools/call') return send({ ...message, params: { ...message.params, arguments: 'text' } }, options)
    return send(message, options)
  }
  return transport
}

describe('params the SDK request schema refuses', () => {
  for (const [label, versionNegotiation] of [
    ['legacy', undefined],
    ['auto', { mode: 'auto' as const }],
  ] as const) {
    it(`-32602 with each issue on one line, never an internal error with the schema library's dump (${label})`, async () => {
      const client = new ClientV2({ name: 'v2', version: '0' }, versionNegotiation ? { versionNegotiation } : {})
      await client.connect(badParams(new HttpV2(new URL(handle.url))))
      try {
        const read = await client.readResource({ uri: 'x://y' }).then(
          () => undefined,
          (error: { code?: number; message?: string }) => error,
        )
        expect(read?.code).toBe(-32602)
        expect(read?.message).toMatch(/invalid params of resources\/read: \/uri: [^\n]+$/)
        const call = await client.callTool({ name: 'GetVibe', arguments: {} }).then(
          () => undefined,
          (error: { code?: number; message?: string }) => error,
        )
        expect(call?.code).toBe(-32602)
        expect(call?.message).toMatch(/invalid params of tools\/call: \/arguments: [^\n]+$/)
        // The server still answers.
        expect((await client.listTools()).tools.length).toBeGreaterThan(0)
      } finally {
        await client.close()
      }
    })
  }
})

describe('serveHttp on a non-loopback address', () => {
  it('refuses to start without an allow-list, warns with allowAnyHost, and checks Host against allowedHosts when given', async () => {
    const server = createProtoServer(specFromProto(EXAMPLE_PROTO))
    await expect(server.serveHttp({ host: '0.0.0.0', port: 0 })).rejects.toThrow(
      /^serveHttp\(\): refusing to serve non-loopback address 0\.0\.0\.0 without allowedHosts/,
    )
    const written: string[] = []
    const original = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string) => {
      written.push(String(chunk))
      return true
    }) as typeof process.stderr.write
    let open: HttpHandle | undefined
    try {
      open = await server.serveHttp({ host: '0.0.0.0', port: 0, allowAnyHost: true })
    } finally {
      process.stderr.write = original
    }
    await open.close()
    expect(written.join('')).toMatch(/non-loopback address 0\.0\.0\.0 with allowAnyHost/)

    const guarded = await server.serveHttp({ host: '0.0.0.0', port: 0, allowedHosts: ['mcp.internal'] })
    try {
      const target = guarded.url.replace('0.0.0.0', '127.0.0.1')
      expect((await rawPost({ host: 'evil.example' }, PING, target)).status).toBe(403)
      expect((await rawPost({ host: 'mcp.internal' }, PING, target)).status).toBe(200)
    } finally {
      await guarded.close()
    }
  })
})
