/**
 * One built `?mcp` app (fixtures/apps/anywhere) answering `server.fetch()`
 * in Bun, Deno and workerd (through Miniflare, without `nodejs_compat`),
 * each installed from npm as a dev dependency, driven over HTTP by real MCP
 * clients (SDK v1, initialize era; SDK v2 pinned to 2026-07-28): the tool
 * list, a good call with a Timestamp and an int64 past 2^53, a bad argument,
 * a bad Timestamp, and an int64 out of range (decoded by the reflection
 * fallback, where Workers forbid code generation). And the same app behind
 * `fetch(request, { auth })` at /secure/mcp: the SDK client's OAuth against
 * a real OpenID provider on loopback, jose verifying in each runtime.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { build } from 'esbuild'
import { Miniflare } from 'miniflare'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ClientCredentialsProvider, Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { createWorkspace } from '../bundlers/harness.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'
import { unpluginProtoMcp } from '../../src/plugin/unplugin.ts'
import { text } from '../helpers/result.ts'
import { REPO } from '../helpers/repo.ts'

const RUNTIMES = ['bun', 'deno', 'workerd'] as const
type RuntimeName = (typeof RUNTIMES)[number]
const FLAVOURS = ['sdk-v1', 'sdk-v2-2026'] as const
type Flavour = (typeof FLAVOURS)[number]

/** Deno's launcher, which runs the binary of the platform package `deno` depends on. */
const DENO = join(REPO, 'node_modules', 'deno', 'bin.cjs')

/**
 * Bun's binary: `bun`'s postinstall moves it from the platform package
 * (`@oven/bun-<os>-<arch>`) over a placeholder of a few hundred bytes in
 * `bun/bin/bun.exe`; where install scripts did not run, it is still in the
 * platform package.
 */
function bunBinary(): string {
  const oven = join(REPO, 'node_modules', '@oven')
  const candidates = [
    join(REPO, 'node_modules', 'bun', 'bin', 'bun.exe'),
    ...(existsSync(oven) ? readdirSync(oven).map((name) => join(oven, name, 'bin', 'bun')) : []),
  ]
  const found = candidates.find((path) => existsSync(path) && statSync(path).size > 1_000_000)
  if (!found) throw new Error(`bun: no binary in ${candidates.join(', ')}: run npm install`)
  return found
}

const urls = new Map<RuntimeName, string>()
const failures = new Map<RuntimeName, unknown>()
const children: ChildProcess[] = []
let miniflare: Miniflare | undefined
let ws = ''
/** The OpenID provider whose tokens the app's /secure/mcp accepts (`AUTH_ISSUER` in each runtime's environment). */
let oidc: OidcProvider

/**
 * Installs the package as built (`npm run build`: dist/ with its web build)
 * into the workspace, so `unplugin-proto-mcp/runtime` resolves through the
 * package's conditional exports as it does for a user.
 */
function installBuiltPackage(): void {
  if (!existsSync(join(REPO, 'dist', 'web', 'runtime.mjs'))) throw new Error('no dist/web/: run `npm run build` first (npm test does)')
  const pkg = join(ws, 'node_modules', 'unplugin-proto-mcp')
  mkdirSync(pkg, { recursive: true })
  cpSync(join(REPO, 'package.json'), join(pkg, 'package.json'))
  cpSync(join(REPO, 'dist'), join(pkg, 'dist'), { recursive: true })
}

/** Bundles `entry` of the app with every dependency inlined, for `runtime`. */
async function bundleFor(runtime: RuntimeName, entry: string): Promise<string> {
  const app = join(ws, 'fixtures', 'apps', 'anywhere')
  const outfile = join(ws, 'out', runtime, 'main.mjs')
  const web = runtime === 'workerd'
  await build({
    entryPoints: [join(app, 'src', entry)],
    absWorkingDir: ws,
    bundle: true,
    format: 'esm',
    outfile,
    logLevel: 'silent',
    minify: web,
    // Not the repository's tsconfig, whose `paths` map the runtime to src/: the built package, as a user has it.
    tsconfigRaw: '{}',
    // Workers: the conditions wrangler resolves with, and no Node built-ins to fall back on.
    ...(web
      ? { platform: 'browser' as const, conditions: ['workerd', 'worker', 'browser'] }
      : {
          platform: 'node' as const,
          banner: {
            js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
          },
        }),
    plugins: [unpluginProtoMcp.esbuild()],
  })
  return outfile
}

/** Spawns `command args` and resolves with the URL it prints (`listening <url>`). */
function startListening(command: string, args: string[]): Promise<string> {
  // A process group of its own: the deno package's launcher is a node script that starts the deno binary, which must stop with it.
  const child = spawn(command, args, {
    cwd: ws,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, AUTH_ISSUER: oidc.issuer },
    detached: process.platform !== 'win32',
  })
  children.push(child)
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${command} did not start in 30 s:\n${stderr}`)), 30_000)
    child.once('exit', (code) => reject(new Error(`${command} exited (${code}):\n${stderr}`)))
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const match = /^listening (\S+)$/.exec(line)
      if (match) {
        clearTimeout(timer)
        resolve(match[1]!)
      }
    })
  })
}

async function start(runtime: RuntimeName): Promise<string> {
  switch (runtime) {
    case 'bun':
      return startListening(bunBinary(), [await bundleFor('bun', 'serve-bun.js')])
    case 'deno':
      return startListening(process.execPath, [
        DENO,
        'run',
        '--quiet',
        '--no-prompt',
        '--allow-net',
        '--allow-read',
        '--allow-env',
        '--allow-sys',
        await bundleFor('deno', 'serve-deno.js'),
      ])
    case 'workerd': {
      miniflare = new Miniflare({
        modules: true,
        scriptPath: await bundleFor('workerd', 'worker.js'),
        compatibilityDate: '2026-07-30',
        bindings: { AUTH_ISSUER: oidc.issuer },
        host: '127.0.0.1',
        port: 0,
      })
      return new URL('/mcp', await miniflare.ready).href
    }
  }
}

beforeAll(async () => {
  ws = createWorkspace('runtimes')
  installBuiltPackage()
  oidc = await startOidcProvider()
  // One after another: this machine has two cores.
  for (const runtime of RUNTIMES) {
    try {
      urls.set(runtime, await start(runtime))
    } catch (error) {
      failures.set(runtime, error)
    }
  }
}, 180_000)

afterAll(async () => {
  for (const child of children) {
    try {
      if (process.platform === 'win32' || child.pid === undefined) child.kill()
      else process.kill(-child.pid, 'SIGTERM')
    } catch {
      // Already gone.
    }
  }
  await miniflare?.dispose()
  await oidc?.close()
})

interface Session {
  listTools(): Promise<{ tools: { name: string }[] }>
  callTool(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: unknown[] }>
  close(): Promise<void>
}

async function connect(flavour: Flavour, url: string): Promise<Session> {
  const info = { name: 'runtimes-test', version: '1.0.0' }
  if (flavour === 'sdk-v1') {
    const client = new ClientV1(info)
    await client.connect(new HttpV1(new URL(url)))
    return {
      listTools: () => client.listTools(),
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
      close: () => client.close(),
    }
  }
  const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new HttpV2(new URL(url)))
  expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
  return {
    listTools: () => client.listTools(),
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
    close: () => client.close(),
  }
}

describe.each(RUNTIMES)('server.fetch() in %s', (runtime) => {
  const url = (): string => {
    const found = urls.get(runtime)
    if (!found) throw failures.get(runtime) ?? new Error(`${runtime}: not started`)
    return found
  }

  it.each(FLAVOURS)('lists and calls the tools for the %s client', async (flavour) => {
    const session = await connect(flavour, url())
    try {
      expect((await session.listTools()).tools.map((t) => t.name)).toEqual(['Record'])

      const ok = await session.callTool('Record', { account: 'a', amount: '9007199254740993', at: '2026-11-29T10:20:30.500Z' })
      expect(ok.isError ?? false).toBe(false)
      const reply = JSON.parse(text(ok)) as Record<string, string>
      expect(reply).toMatchObject({ account: 'a', amount: '9007199254740993', at: '2026-11-29T10:20:30.500Z' })
      // The total is the process's running sum: a string of digits, every one kept.
      expect(reply.total).toMatch(/^[0-9]+$/)

      const bad = await session.callTool('Record', { account: 5 })
      expect(bad.isError).toBe(true)
      expect(text(bad)).toBe('invalid arguments: /account: 5 is not of type "string"')

      const badTime = await session.callTool('Record', { at: 'yesterday' })
      expect(badTime.isError).toBe(true)
      expect(text(badTime)).toMatch(/^invalid arguments: \/at/)

      // Past int64: the schema's pattern lets it through, the decoder names the field.
      const tooLarge = await session.callTool('Record', { amount: '99999999999999999999' })
      expect(tooLarge.isError).toBe(true)
      expect(text(tooLarge)).toMatch(/amount/)
      expect(text(tooLarge)).not.toMatch(/code generation/i)
    } finally {
      await session.close()
    }
  })
})

describe.each(RUNTIMES)('server.fetch(request, { auth }) in %s', (runtime) => {
  it('serves the metadata; the SDK client authorizes itself at the OpenID provider and calls; another audience is refused', async () => {
    const base = urls.get(runtime)
    if (!base) throw failures.get(runtime) ?? new Error(`${runtime}: not started`)
    const secure = new URL('/secure/mcp', base).href
    const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/secure/mcp', base))
    expect(await metadata.json()).toMatchObject({ resource: secure, authorization_servers: [oidc.issuer] })
    const provider = new ClientCredentialsProvider({ clientId: 'service', clientSecret: 'service-secret', expectedIssuer: oidc.issuer })
    const client = new ClientV2({ name: 'runtimes-auth', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new HttpV2(new URL(secure), { authProvider: provider }))
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['Record'])
      expect(await client.callTool({ name: 'Record', arguments: { account: 'a', amount: '1' } })).toMatchObject({ isError: false })
    } finally {
      await client.close()
    }
    const elsewhere = await oidc.token('service', 'http://127.0.0.1:9/mcp')
    const refused = await fetch(secure, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${elsewhere}` },
      body: '{}',
    })
    expect(refused.status).toBe(401)
    expect(await refused.json()).toEqual({ error: 'invalid_token', error_description: 'token was not issued for this resource' })
  })
})

describe('Workers specifics (workerd, no nodejs_compat)', () => {
  const check = async (name: string): Promise<unknown> => {
    const url = urls.get('workerd')
    if (!url) throw failures.get('workerd') ?? new Error('workerd: not started')
    return (await fetch(new URL(`/check/${name}`, url))).json()
  }

  it('serveStdio() and serveHttp() reject with NODE_ONLY, pointing at fetch()', async () => {
    for (const method of ['serveStdio', 'serveHttp']) {
      expect(await check(method === 'serveStdio' ? 'serve-stdio' : 'serve-http')).toEqual({
        error: {
          code: 'NODE_ONLY',
          message: `${method}() needs Node, Bun or Deno (node:http, stdio): in this runtime, answer requests with server.fetch(request)`,
        },
      })
    }
  })

  it('hand-written tools added at start-up validate and answer', async () => {
    expect(await check('hand-tool-at-start-up')).toEqual({
      ok: [
        { content: [{ type: 'text', text: 'hi' }] },
        { content: [{ type: 'text', text: 'invalid arguments: /text: 5 is not of type "string"' }], isError: true },
      ],
    })
  })

  it('search discovery works in the web build: the index is built and searched in the Worker, call_tool answers as a direct call', async () => {
    expect(await check('search-tools')).toMatchObject({
      ok: { listed: ['search_tools', 'describe_tool', 'call_tool'], hits: expect.arrayContaining(['Record']), same: true },
    })
  })

  it('a hand-written tool added inside a request fails: its schema needs code generation', async () => {
    expect(await check('hand-tool-in-request')).toMatchObject({
      error: { code: 'BAD_SPEC', message: expect.stringMatching(/^tool "Echo": .*Code generation from strings disallowed/) },
    })
  })
})
