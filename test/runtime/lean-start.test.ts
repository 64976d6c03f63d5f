/**
 * A `?mcp` module loads only what it uses (docs/serving.md, "Transports", "What a server loads"): a stdio
 * server answering a real client's `tools/list` loads no HTTP stack, no
 * protobufjs and no Ajv compiler of this package (hand-written tools use
 * the SDK's copy on Node). The loaded modules are recorded by loader hooks
 * in the child; a server on HTTP shows the recorder sees `node:http`.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildModuleSource } from '../../src/codegen/build-proto.ts'
import { REPO } from '../helpers/repo.ts'

const DIST = join(REPO, 'dist')
const OUT = join(REPO, '.tmp', 'lean-start')
const FIXTURES = fileURLToPath(new URL('../../fixtures/scripts/runtime/', import.meta.url))
const REGISTER = join(FIXTURES, 'register-record-loads.mjs')
const SERVE = join(FIXTURES, 'lean-serve.mjs')
/** How the package build marks a bundled module: Ajv's compiler is every module under ajv/dist/compile. */
const AJV_COMPILER = '//#region node_modules/ajv/dist/compile/'

let module: string

beforeAll(() => {
  rmSync(OUT, { recursive: true, force: true })
  mkdirSync(OUT, { recursive: true })
  module = join(OUT, 'playground.mjs')
  writeFileSync(module, buildModuleSource(join(REPO, 'playground', 'vibe.proto')).code)
})

/** The URLs the process recorded in `log`, one per module. */
const loaded = (log: string): string[] => readFileSync(log, 'utf8').split('\n').filter(Boolean)

/** The loaded files of this package's dist/ that bundle Ajv's compiler. */
const withAjvCompiler = (urls: string[]): string[] =>
  urls
    .filter((url) => url.startsWith(pathToFileURL(DIST).href))
    .filter((url) => readFileSync(fileURLToPath(url), 'utf8').includes(AJV_COMPILER))

describe('what a stdio server loads', () => {
  it('answers tools/list without the HTTP stack, protobufjs or an Ajv compiler of its own', async () => {
    const log = join(OUT, 'stdio.log')
    writeFileSync(log, '')
    const client = new Client({ name: 'lean', version: '0.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', REGISTER, SERVE, module],
        env: { ...(process.env as Record<string, string>), LEAN_LOG: log },
        stderr: 'pipe',
      }),
    )
    const { tools } = await client.listTools()
    // The playground's 16 RPC tools and describe_type (AddComment's replies past the inlining depth are a placeholder).
    expect(tools).toHaveLength(17)
    await client.close()

    const urls = loaded(log)
    // The recorder saw the runtime itself, so what is absent below was not loaded.
    expect(urls).toContain(pathToFileURL(join(DIST, 'codegen-v1.mjs')).href)
    expect(urls).toContainEqual(expect.stringContaining('@modelcontextprotocol/server/dist/stdio'))
    expect(urls.filter((url) => /^node:(?:http|https|http2)$/.test(url))).toEqual([])
    expect(urls.filter((url) => url.includes('@modelcontextprotocol/node'))).toEqual([])
    // Without an OpenTelemetry SDK registered, the API is never imported (runtime/otel.ts).
    expect(urls.filter((url) => url.includes('@opentelemetry/'))).toEqual([])
    expect(urls.filter((url) => /\/dist\/(?:protobufjs|http)-[\w-]+\.mjs$/.test(url))).toEqual([])
    expect(withAjvCompiler(urls)).toEqual([])
  }, 60_000)

  it('the checks can fail: dist/ does bundle Ajv compiler, and an HTTP server loads node:http', async () => {
    const files = readdirSync(DIST).filter((name) => name.endsWith('.mjs'))
    expect(withAjvCompiler(files.map((name) => pathToFileURL(join(DIST, name)).href)).length).toBeGreaterThan(0)

    const log = join(OUT, 'http.log')
    writeFileSync(log, '')
    const child = spawn(process.execPath, ['--import', REGISTER, SERVE, module, 'http'], {
      env: { ...process.env, LEAN_LOG: log },
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    try {
      const [url] = await new Promise<string[]>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', (line) => resolve([line]))
        child.once('exit', (code) => reject(new Error(`the HTTP server exited (${code}) before listening`)))
      })
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/)
    } finally {
      child.kill()
    }
    expect(loaded(log)).toContain('node:http')
  }, 60_000)
})

describe('what the command loads', () => {
  /** The modules `proto-mcp ...args` loaded (its stdin closed at once), and its exit code. */
  function commandLoads(args: string[]): { urls: string[]; status: number | null } {
    const log = join(
      OUT,
      `command-${args
        .join('-')
        .replace(/[^\w-]/g, '_')
        .slice(-60)}.log`,
    )
    writeFileSync(log, '')
    const run = spawnSync(process.execPath, ['--import', REGISTER, join(DIST, 'cli.mjs'), ...args], {
      env: { ...process.env, LEAN_LOG: log },
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    })
    return { urls: loaded(log), status: run.status }
  }
  const SERVER_MODULES = /@modelcontextprotocol|@grpc|protobufjs|\/zod\/|\/ajv\//

  it('answers --help, --version and a usage error from the arguments alone; serve loads the server (the control)', () => {
    for (const [args, code] of [
      [['--help'], 0],
      [['--version'], 0],
      [['serve', '--bogus'], 2],
    ] as const) {
      const { urls, status } = commandLoads([...args])
      expect(status, args.join(' ')).toBe(code)
      // The recorder saw the command itself, so what is absent below was not loaded.
      expect(urls).toContain(pathToFileURL(join(DIST, 'cli.mjs')).href)
      expect(
        urls.filter((url) => SERVER_MODULES.test(url)),
        args.join(' '),
      ).toEqual([])
    }
    const proto = join(REPO, 'fixtures', 'protos', 'grpc', 'counter.proto')
    const serve = commandLoads(['serve', proto, '--grpc', '127.0.0.1:1'])
    expect(serve.status).toBe(0)
    expect(serve.urls.filter((url) => SERVER_MODULES.test(url)).length).toBeGreaterThan(0)
  }, 60_000)

  /** The CommonJS files `proto-mcp serve <proto> ...flags` required by the time a client had its tools/list. */
  async function required(proto: string, flags: string[]): Promise<string[]> {
    const log = join(OUT, `cjs-${flags.length}.log`)
    const preload = join(OUT, 'record-required.cjs')
    writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.LEAN_LOG, Object.keys(require.cache).join('\\n')))\n",
    )
    const client = new Client({ name: 'lean', version: '0.0.0' })
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--require', preload, join(DIST, 'cli.mjs'), 'serve', proto, '--grpc', '127.0.0.1:1', ...flags],
        env: { ...(process.env as Record<string, string>), LEAN_LOG: log },
        stderr: 'pipe',
      }),
    )
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    await client.close()
    return loaded(log)
  }

  it('counts no token for a proto whose tools are fewer bytes than the budget: the tokenizer stays unloaded; --verbose, which reports counts, loads it', async () => {
    const proto = join(REPO, 'fixtures', 'protos', 'grpc', 'counter.proto')
    const tokenizer = (files: string[]) => files.filter((file) => file.includes(`${join('node_modules', 'gpt-tokenizer')}`))
    const quiet = await required(proto, [])
    // The recorder saw the command's own CommonJS dependencies, so an absent tokenizer was not loaded.
    expect(quiet).toContainEqual(expect.stringContaining(join('node_modules', '@grpc', 'grpc-js')))
    expect(tokenizer(quiet)).toEqual([])
    expect(tokenizer(await required(proto, ['--verbose'])).length).toBeGreaterThan(0)
  }, 60_000)
})
