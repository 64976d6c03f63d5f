/**
 * The README as a new user follows it, from the package npm would give them:
 * `npm pack`, the tarball installed with Vite into a fresh app outside the
 * repository (the run's packed app, test/helpers/packed-app.ts, which also
 * has esbuild and webpack; this file works in a folder of it), the quick start's files written as the README shows them
 * (each `// <path>` line of its proto and TypeScript blocks starts a file),
 * type-checked under `strict` with `unplugin-proto-mcp/client` and built by
 * the README's command, then every client configuration of the README (each
 * `mcpServers` entry) launched as a client would launch it and driven by the
 * SDK's MCP client over stdio.
 *
 * The production guide (docs/guide/production.md) is followed the same way
 * in a folder of that app: its files written, type-checked, built with its
 * command, and the built entry started as the quick start's configuration
 * starts one, with the name and version the guide sets.
 *
 * A configuration names `/path/to/your/app` and a gRPC server at
 * `127.0.0.1:50051`; the test puts the app's folder and the address of a
 * grpc-js server it starts in their place. A client runs `npx -y -p
 * unplugin-proto-mcp ...` anywhere and npm fetches the published package;
 * here it runs in the app, offline, so the installed tarball is what answers.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import type * as grpc from '@grpc/grpc-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serviceDefinition, startGrpcServer, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { packedApp, packedAppFolder } from '../helpers/packed-app.ts'
import { REPO } from '../helpers/repo.ts'

const README = readFileSync(join(REPO, 'README.md'), 'utf8')
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
/** What the configurations say where a user's own folder and gRPC server go. */
const APP_PLACEHOLDER = '/path/to/your/app'
const GRPC_PLACEHOLDER = '127.0.0.1:50051'
/** npm's install-time lifecycle scripts: none may ship (they would run, or warn, on every user's install). */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare']

/** This file's folder of the packed app, and the app's root (its node_modules). */
let app = ''
let root = ''
let installOutput = ''
let packedFiles: string[] = []
let backend: GrpcTestServer | undefined

/** The fenced code blocks of a Markdown text: language and body. */
const codeBlocks = (text: string) => [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }))

/** The README section under the heading `## <title>`, up to the next `## `. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`)
  if (start < 0) throw new Error(`README.md has no "## ${title}" section`)
  const end = README.indexOf('\n## ', start + 1)
  return README.slice(start, end < 0 ? undefined : end)
}

/** The quick start's files: in the Use section's proto and ts blocks, each `// <path>` line starts the file at that path. */
const quickStartFiles = (): Map<string, string> => filesOf(section('Use'))

/** The files a Markdown text's proto and ts blocks show, each starting at a `// <path>` line. */
function filesOf(text: string): Map<string, string> {
  const files = new Map<string, string>()
  for (const { lang, body } of codeBlocks(text)) {
    if (lang !== 'proto' && lang !== 'ts') continue
    const parts = body.split(/^\/\/ ([\w./-]+\.(?:proto|ts))\b.*\n/m)
    for (let i = 1; i < parts.length; i += 2) files.set(parts[i]!, parts[i + 1]!.trim() + '\n')
  }
  return files
}

/** Every `mcpServers` entry of the README's JSON blocks. */
function clientConfigurations(): Array<[string, { command: string; args: string[] }]> {
  return codeBlocks(README)
    .filter(({ lang, body }) => lang === 'json' && body.includes('"mcpServers"'))
    .flatMap(({ body }) =>
      Object.entries((JSON.parse(body) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers),
    )
}

/** The environment a client gives a server it starts (the SDK's default), with this node and npm first on the PATH. */
const clientEnvironment = (): Record<string, string> => ({
  ...getDefaultEnvironment(),
  PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
  // npx may not fetch: the tarball installed in the app is what must run.
  npm_config_offline: 'true',
})

beforeAll(async () => {
  if (!existsSync(join(REPO, 'dist', 'runtime.mjs'))) throw new Error('no dist/: run `npm run build` first (npm test does)')
  const installed = await packedApp()
  root = installed.root
  app = packedAppFolder(installed, 'quick-start')
  packedFiles = installed.files
  installOutput = installed.installOutput
  for (const [path, text] of quickStartFiles()) {
    mkdirSync(join(app, dirname(path)), { recursive: true })
    writeFileSync(join(app, path), text)
  }
  // The README's TypeScript set-up: `"types": ["unplugin-proto-mcp/client"]`, under `strict`.
  const compilerOptions = {
    target: 'ES2022',
    module: 'ESNext',
    moduleResolution: 'Bundler',
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['unplugin-proto-mcp/client'],
  }
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions, include: ['vite.config.ts', 'src'] }))
  // The gRPC server the gateway's configuration forwards to: the quick start's service, starting `chill`.
  let current = 'chill'
  const impl: grpc.UntypedServiceImplementation = {
    SetVibe: (call: grpc.ServerUnaryCall<{ vibe: string }, unknown>, done: grpc.sendUnaryData<unknown>) => {
      done(null, { previousVibe: current, vibe: (current = call.request.vibe) })
    },
    GetVibe: (_call: grpc.ServerUnaryCall<unknown, unknown>, done: grpc.sendUnaryData<unknown>) => done(null, { vibe: current }),
  }
  backend = await startGrpcServer([{ definition: serviceDefinition(join(app, 'protos', 'vibe.proto'), 'examples.v1.VibeService'), impl }])
}, 600_000)

afterAll(async () => {
  await backend?.stop()
})

describe('the package from npm', () => {
  it('ships no install-time script, so installing it runs and warns about none of ours', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'node_modules', 'unplugin-proto-mcp', 'package.json'), 'utf8')) as {
      scripts?: Record<string, string>
    }
    expect(Object.keys(manifest.scripts ?? {}).filter((name) => INSTALL_SCRIPTS.includes(name))).toEqual([])
    expect(installOutput).not.toMatch(/unplugin-proto-mcp@[^\s]+ \(/)
  })

  it('names its repository, homepage and issue tracker', () => {
    const manifest = JSON.parse(readFileSync(join(root, 'node_modules', 'unplugin-proto-mcp', 'package.json'), 'utf8')) as {
      repository?: { url?: string }
      homepage?: string
      bugs?: { url?: string }
    }
    const home = manifest.homepage?.replace(/#.*$/, '') ?? ''
    expect(home).toMatch(/^https:\/\/github\.com\/[\w-]+\/[\w.-]+$/)
    expect(manifest.repository?.url).toBe(`git+${home}.git`)
    expect(manifest.bugs?.url).toBe(`${home}/issues`)
  })

  it('has a README whose relative links lead to files in the tarball (others are absolute: test/docs.test.ts checks those)', () => {
    const prose = README.replace(/^```[^\n]*\n[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '')
    const relative = [...prose.matchAll(/\]\(([^)\s]+)\)/g)]
      .map((m) => m[1]!.split('#')[0]!)
      .filter((path) => path !== '' && !/^[a-z][a-z+.-]*:/i.test(path))
    expect(relative.filter((path) => !packedFiles.includes(path))).toEqual([])
  })
})

describe("the README's quick start", () => {
  it('has a proto, a Vite config and an entry', () => {
    expect([...quickStartFiles().keys()]).toEqual(['protos/vibe.proto', 'vite.config.ts', 'src/mcp.ts'])
  })

  it('type-checks under strict with unplugin-proto-mcp/client, as written', () => {
    const run = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], {
      cwd: app,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(`${run.stdout}${run.stderr}`).toBe('')
    expect(run.status).toBe(0)
  })

  it("builds with the README's command", () => {
    const command = /`(npx vite build [^`]+)`/.exec(section('Use'))?.[1]
    expect(command).toBe('npx vite build --ssr src/mcp.ts')
    const [npx, ...args] = command!.split(' ') as [string, ...string[]]
    execFileSync(npx, args, { cwd: app, env: clientEnvironment(), stdio: 'pipe', timeout: 120_000 })
    expect(existsSync(join(app, 'dist', 'mcp.js'))).toBe(true)
  })
})

describe('the production guide', () => {
  const guide = readFileSync(join(REPO, 'docs/guide/production.md'), 'utf8')
  let folder = ''

  it('has a Vite config, a server module and an entry', () => {
    expect([...filesOf(guide).keys()]).toEqual(['vite.config.ts', 'src/mcp.ts', 'src/main.ts'])
  })

  it('type-checks under strict, builds with its command and serves stdio under the name and version it sets', async () => {
    // A folder of the quick start's app: the installed tarball and vite resolve from its node_modules, the proto is the quick start's.
    folder = join(app, 'production')
    mkdirSync(join(folder, 'protos'), { recursive: true })
    writeFileSync(join(folder, 'protos', 'vibe.proto'), readFileSync(join(app, 'protos', 'vibe.proto')))
    for (const [path, text] of filesOf(guide)) {
      mkdirSync(join(folder, dirname(path)), { recursive: true })
      writeFileSync(join(folder, path), text)
    }
    writeFileSync(join(folder, 'tsconfig.json'), readFileSync(join(app, 'tsconfig.json')))
    const checked = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], {
      cwd: folder,
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(`${checked.stdout}${checked.stderr}`).toBe('')
    const command = /`(npx vite build [^`]+)`/.exec(guide)?.[1]
    expect(command).toBe('npx vite build --ssr src/main.ts')
    const [npx, ...args] = command!.split(' ') as [string, ...string[]]
    execFileSync(npx, args, { cwd: folder, env: clientEnvironment(), stdio: 'pipe', timeout: 120_000 })
    const started = /`node (\/path\/to\/your\/app\/[^`]+)`/.exec(guide)?.[1]
    expect(started).toBe(`${APP_PLACEHOLDER}/dist/main.js`)
    const transport = new StdioClientTransport({
      command: 'node',
      args: [started!.replace(APP_PLACEHOLDER, folder)],
      cwd: folder,
      env: clientEnvironment(),
      stderr: 'pipe',
    })
    const client = new Client({ name: 'production-guide-test', version: '1.0.0' })
    try {
      await client.connect(transport)
      expect(client.getServerVersion()).toMatchObject({ name: 'vibe', version: '1.2.0' })
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(['SetVibe', 'GetVibe'])
      const result = (await client.callTool({ name: 'SetVibe', arguments: { vibe: 'hyped' } })) as { content: Array<{ text: string }> }
      expect(JSON.parse(result.content[0]!.text)).toEqual({ previousVibe: 'chill', vibe: 'hyped' })
    } finally {
      await client.close()
    }
  })
})

describe("the README's client configurations", () => {
  it('start the built server and the gateway', () => {
    expect(clientConfigurations().map(([, { command, args }]) => [command, ...args].join(' '))).toEqual([
      `node ${APP_PLACEHOLDER}/dist/mcp.js`,
      `npx -y -p unplugin-proto-mcp proto-mcp serve ${APP_PLACEHOLDER}/protos/vibe.proto --grpc ${GRPC_PLACEHOLDER}`,
    ])
  })

  it.each(clientConfigurations())(
    '"%s": %j starts a server the MCP client lists and calls over stdio',
    async (_name, { command, args }) => {
      const filled = args.map((arg) => arg.replace(APP_PLACEHOLDER, app).replace(GRPC_PLACEHOLDER, backend!.address))
      const transport = new StdioClientTransport({ command, args: filled, cwd: app, env: clientEnvironment(), stderr: 'pipe' })
      let stderr = ''
      transport.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      const client = new Client({ name: 'quick-start-test', version: '1.0.0' })
      try {
        await client.connect(transport)
        const { tools } = await client.listTools()
        expect(tools.map((tool) => tool.name)).toEqual(['SetVibe', 'GetVibe'])
        const text = async (name: string, args: Record<string, unknown>) => {
          const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: Array<{ text: string }> }
          expect(result.isError ?? false).toBe(false)
          return JSON.parse(result.content[0]!.text) as unknown
        }
        expect(await text('SetVibe', { vibe: 'hyped' })).toEqual({ previousVibe: 'chill', vibe: 'hyped' })
        expect(await text('GetVibe', {})).toEqual({ vibe: 'hyped' })
      } catch (error) {
        throw new Error(`${(error as Error).message}\nserver stderr:\n${stderr}`, { cause: error })
      } finally {
        await client.close()
      }
    },
  )
})
