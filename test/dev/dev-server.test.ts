/**
 * Hot reload in Vite's dev server (docs/serving.md, "Hot reload and the dev mount"): a real MCP client stays
 * connected to `/mcp` while the `.proto`, a `.proto` it imports and the
 * implementation module are edited, and while a `.proto` is broken; builds
 * of the same module carry no `import.meta.hot`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { bundle } from '../bundlers/harness.ts'
import { startDevApp, type DevApp } from './dev-app.ts'
import { text } from '../helpers/result.ts'
import { REPO } from '../helpers/repo.ts'

let app: DevApp
let client: Client
let listChanged = 0

beforeAll(async () => {
  app = await startDevApp('dev-server')
  client = new Client({ name: 'dev-test', version: '1.0.0' })
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`)))
})

afterAll(async () => {
  await client?.close()
  await app?.close()
})

const WAIT = { timeout: 20_000, interval: 50 }

/** How often the fixture's `mcp.ts` ran (the module runner evaluates it in this process). */
const evaluationsOfMcp = (): number => (globalThis as { devEvaluations?: number }).devEvaluations ?? 0

async function toolNames(): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name)
}

async function echo(text: string): Promise<string> {
  const result = (await client.callTool({ name: 'Echo', arguments: { text } })) as { content: { text: string }[]; isError?: boolean }
  expect(result.isError ?? false).toBe(false)
  return JSON.parse(result.content[0]!.text).text as string
}

describe('the dev option mounts the server at /mcp', () => {
  it('serves the module default export through the module runner', async () => {
    expect(await toolNames()).toEqual(['Echo'])
    expect(await echo('hi')).toBe('v1:hi')
    // The module the runner evaluated is the dev-server flavour, with the
    // hot-reload code (`import.meta` reads `__vite_ssr_import_meta__` there).
    const served = await app.server.environments.ssr.transformRequest(`${join(app.root, 'notes.proto')}?mcp`)
    expect(served?.code.match(/\.hot\.data\.server|\.hot\.accept\(\)|replaceTools/g)).toHaveLength(4)
  })

  it('answers other paths with Vite, not the MCP handler', async () => {
    const res = await fetch(`${app.origin}/mcp-not`, { method: 'POST' })
    expect(res.headers.get('mcp-session-id')).toBeNull()
  })
})

describe('editing while a client stays connected', () => {
  it('a new RPC in the .proto shows up, with list_changed, on the same session', async () => {
    const before = listChanged
    const evaluations = evaluationsOfMcp()
    const session = (client.transport as StreamableHTTPClientTransport).sessionId
    await app.edit(
      'notes.proto',
      '  rpc Echo(Note) returns (Note) {}\n',
      '  rpc Echo(Note) returns (Note) {}\n  // Shout the note back\n  rpc Shout(Note) returns (Note) {}\n',
    )
    await vi.waitFor(async () => expect(await toolNames()).toEqual(['Echo', 'Shout']), WAIT)
    await vi.waitFor(() => expect(listChanged).toBeGreaterThan(before), WAIT)
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBe(session)
    // The backend bound before the edit still answers the old RPC, and the
    // implementation module did not run again (its state survives).
    expect(await echo('again')).toBe('v1:again')
    expect(evaluationsOfMcp()).toBe(evaluations)
    const shout = (await client.callTool({ name: 'Shout', arguments: { text: 'x' } })) as { content: { text: string }[]; isError?: boolean }
    expect(shout.isError).toBe(true)
    expect(shout.content[0]!.text).toContain('code = Unimplemented')
  })

  it('a field added to an imported .proto shows up', async () => {
    const before = listChanged
    await app.edit('common.proto', '  string text = 1;\n', '  string text = 1;\n  int32 volume = 2;\n')
    await vi.waitFor(async () => {
      const echoTool = (await client.listTools()).tools.find((t) => t.name === 'Echo')
      expect(Object.keys(echoTool?.inputSchema.properties ?? {})).toEqual(['text', 'volume'])
    }, WAIT)
    expect(listChanged).toBeGreaterThan(before)
  })

  it('a broken .proto keeps the last good tools serving and reports the error', async () => {
    const errorsBefore = app.errors.length
    await app.edit('notes.proto', 'rpc Shout(Note)', 'rpc Shout(Note')
    await vi.waitFor(() => expect(app.errors.slice(errorsBefore).join('\n')).toMatch(/notes\.proto:\d+:\d+/), WAIT)
    expect(await toolNames()).toEqual(['Echo', 'Shout'])
    expect(await echo('still')).toBe('v1:still')

    await app.edit('notes.proto', 'rpc Shout(Note', 'rpc Whisper(Note)')
    await vi.waitFor(async () => expect(await toolNames()).toEqual(['Echo', 'Whisper']), WAIT)
  })

  it('an edit of the implementation module rebinds the backend on the same server', async () => {
    const session = (client.transport as StreamableHTTPClientTransport).sessionId
    const evaluations = evaluationsOfMcp()
    await app.edit('mcp.ts', 'v1:', 'v2:')
    await vi.waitFor(async () => expect(await echo('hi')).toBe('v2:hi'), WAIT)
    expect(evaluationsOfMcp()).toBe(evaluations + 1)
    // The same server kept serving: the session and the tools edited in before survive.
    expect((client.transport as StreamableHTTPClientTransport).sessionId).toBe(session)
    expect(await toolNames()).toEqual(['Echo', 'Whisper'])
  })
})

describe('a .proto broken from the start', () => {
  it('reports the error, answers with it, and serves once fixed', async () => {
    const broken = await startDevApp('dev-broken-start', {
      prepare(root) {
        const file = join(root, 'notes.proto')
        writeFileSync(file, readFileSync(file, 'utf8').replace('rpc Echo(Note)', 'rpc Echo(Note'))
      },
    })
    try {
      await vi.waitFor(() => expect(broken.errors.join('\n')).toMatch(/cannot load "\.\/mcp\.ts".*notes\.proto:\d+:\d+/), WAIT)
      const res = await fetch(`${broken.origin}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      })
      expect(res.status).toBe(500)
      expect((await res.json()).error.message).toMatch(/^the MCP server module "\.\/mcp\.ts" failed to load: .*notes\.proto:\d+:\d+/)

      await broken.edit('notes.proto', 'rpc Echo(Note', 'rpc Echo(Note)')
      const fixed = new Client({ name: 'dev-test', version: '1.0.0' })
      await vi.waitFor(() => fixed.connect(new StreamableHTTPClientTransport(new URL(`${broken.origin}/mcp`))), WAIT)
      expect((await fixed.listTools()).tools.map((t) => t.name)).toEqual(['Echo'])
      await fixed.close()
    } finally {
      await broken.close()
    }
  })
})

describe('type detail in the dev loop', () => {
  it("an edit of a message the budget cut changes the type tool's answer and its resource, announced on the same session", async () => {
    const fields = (prefix: string) => Array.from({ length: 6 }, (_, i) => `  string ${prefix}_${i} = ${i + 1};`).join('\n')
    const typed = await startDevApp('dev-types', {
      plugin: { toolTokenBudget: 100 },
      prepare(root) {
        writeFileSync(
          join(root, 'common.proto'),
          'syntax = "proto3";\n\npackage dev.v1;\n\n' +
            `message Leaf {\n${fields('leaf')}\n}\n\nmessage Stem {\n${fields('stem')}\n}\n\n` +
            '// A note\nmessage Note {\n  string text = 1;\n  Leaf leaf = 2;\n  Stem stem = 3;\n}\n',
        )
      },
    })
    const c = new Client({ name: 'dev-test', version: '1.0.0' })
    let resourcesChanged = 0
    c.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      resourcesChanged++
    })
    const uri = 'proto-mcp://notes/types/dev.v1.Leaf'
    const read = async () => ((await c.readResource({ uri })).contents[0] as { text: string }).text
    const answer = async () =>
      ((await c.callTool({ name: 'describe_type', arguments: { type: 'dev.v1.Leaf' } })) as { content: { text: string }[] }).content[0]!
        .text
    try {
      await c.connect(new StreamableHTTPClientTransport(new URL(`${typed.origin}/mcp`)))
      expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['Echo', 'describe_type'])
      expect(await read()).not.toContain('addedField')
      await typed.edit('common.proto', '  string leaf_5 = 6;\n', '  string leaf_5 = 6;\n  string added_field = 7;\n')
      await vi.waitFor(async () => expect(await read()).toContain('addedField'), WAIT)
      expect(await answer()).toBe(await read())
      expect(resourcesChanged).toBeGreaterThan(0)
    } finally {
      await c.close()
      await typed.close()
    }
  })
})

describe('a server the module builds itself (include)', () => {
  it('is rebuilt after each edit and moved into the serving server: the session stays and hears list_changed', async () => {
    const composite = await startDevApp('dev-composite', { server: './app.ts' })
    const c = new Client({ name: 'dev-test', version: '1.0.0' })
    let heard = 0
    c.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heard++
    })
    const names = async () => (await c.listTools()).tools.map((t) => t.name).sort()
    const call = async (name: string, args: Record<string, unknown>) => text(await c.callTool({ name, arguments: args }))
    try {
      await c.connect(new StreamableHTTPClientTransport(new URL(`${composite.origin}/mcp`)))
      const session = (c.transport as StreamableHTTPClientTransport).sessionId
      expect(await names()).toEqual(['Echo', 'Ping'])
      await composite.edit(
        'notes.proto',
        '  rpc Echo(Note) returns (Note) {}\n',
        '  rpc Echo(Note) returns (Note) {}\n  rpc Shout(Note) returns (Note) {}\n',
      )
      // No request in between: the rebuilt server is swapped in and announced on its own.
      await vi.waitFor(() => expect(heard).toBeGreaterThan(0), WAIT)
      expect(await names()).toEqual(['Echo', 'Ping', 'Shout'])
      expect(JSON.parse(await call('Echo', { text: 'x' }))).toEqual({ text: 'v1:x' })

      // An edit of the module itself, then of the module binding the backend: same session throughout.
      await composite.edit('app.ts', "text: 'pong'", "text: 'pong 2'")
      await vi.waitFor(async () => expect(await call('Ping', {})).toBe('pong 2'), WAIT)
      await composite.edit('mcp.ts', 'v1:', 'v2:')
      await vi.waitFor(async () => expect(JSON.parse(await call('Echo', { text: 'y' }))).toEqual({ text: 'v2:y' }), WAIT)
      expect(await names()).toEqual(['Echo', 'Ping', 'Shout'])
      expect((c.transport as StreamableHTTPClientTransport).sessionId).toBe(session)
    } finally {
      await c.close()
      await composite.close()
    }
  })
})

describe('Host and Origin on the dev mount', () => {
  /** A raw initialize with the given Host and Origin (fetch cannot set Host). */
  const initializeAs = (origin: string, host: string, from: string | undefined): Promise<number> =>
    new Promise((resolve, reject) => {
      const url = new URL(`${origin}/mcp`)
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            host,
            ...(from ? { origin: from } : {}),
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
        },
        (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        },
      )
      req.on('error', reject)
      req.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
        }),
      )
    })

  it('on loopback: localhost only', async () => {
    const port = new URL(app.origin).port
    expect(await initializeAs(app.origin, `127.0.0.1:${port}`, app.origin)).toBe(200)
    expect(await initializeAs(app.origin, `127.0.0.1:${port}`, 'http://evil.example')).toBe(403)
  })

  it('on another loopback address (127.0.0.2): that address and the localhost names, as serveHttp() does; nothing else', async () => {
    const other = await startDevApp('dev-loopback-2', { host: '127.0.0.2' })
    try {
      const port = new URL(other.origin).port
      expect(other.origin).toBe(`http://127.0.0.2:${port}`)
      expect(await initializeAs(other.origin, `127.0.0.2:${port}`, `http://127.0.0.2:${port}`)).toBe(200)
      expect(await initializeAs(other.origin, `localhost:${port}`, undefined)).toBe(200)
      expect(await initializeAs(other.origin, `evil.example:${port}`, undefined)).toBe(403)
      // Loopback, not a LAN bind: this machine's other addresses are not accepted names.
      const lan = Object.values(networkInterfaces())
        .flat()
        .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)
      if (lan) expect(await initializeAs(other.origin, `${lan.address}:${port}`, undefined)).toBe(403)
      expect(await initializeAs(other.origin, `127.0.0.2:${port}`, 'http://evil.example')).toBe(403)
    } finally {
      await other.close()
    }
  })

  it('listening beyond loopback: the names Vite allows are accepted as Host and Origin, others refused', async () => {
    const lan = await startDevApp('dev-lan', { host: '0.0.0.0', allowedHosts: ['mcp.lan'] })
    try {
      const port = new URL(lan.origin).port
      expect(await initializeAs(lan.origin, `mcp.lan:${port}`, `http://mcp.lan:${port}`)).toBe(200)
      expect(await initializeAs(lan.origin, `127.0.0.1:${port}`, 'http://evil.example')).toBe(403)
    } finally {
      await lan.close()
    }
  })
})

describe('builds carry no hot-reload code', () => {
  for (const bundler of ['vite', 'rolldown'] as const) {
    it(`${bundler} build of the same module`, async () => {
      const out = join(REPO, '.tmp', 'dev', `build-${bundler}`)
      const { file } = await bundle(bundler, join(app.root, 'mcp.ts'), out, { dev: { server: './mcp.ts' } })
      const code = readFileSync(file, 'utf8')
      expect(code.includes('createProtoServer')).toBe(true)
      expect(code.match(/import\.meta\.hot|\.hot\.data|replaceTools/g)).toBeNull()
    })
  }
})
