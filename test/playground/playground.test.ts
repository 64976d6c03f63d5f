/**
 * The playground as a user runs it: `npm run playground` (Vite's dev server
 * on `playground/`, serving `/mcp` and `/__mcp/`), and `playground/server.ts`
 * built with rolldown and the plugin, then run with `--stdio` or `--port 0`,
 * driven by the SDK's clients. The backend keeps state across calls, errors
 * carry gRPC status texts, and stdio mode writes nothing but MCP messages to
 * stdout.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as StreamableHTTPClientTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { bundle, installRuntimePackage } from '../bundlers/harness.ts'
import { REPO } from '../helpers/repo.ts'

const WS = join(REPO, '.tmp', 'playground-test')
let file = ''
const children: ChildProcess[] = []

beforeAll(async () => {
  rmSync(WS, { recursive: true, force: true })
  mkdirSync(WS, { recursive: true })
  writeFileSync(join(WS, 'package.json'), '{ "name": "playground-workspace", "private": true, "type": "module" }\n')
  await installRuntimePackage(WS)
  file = (await bundle('rolldown', join(REPO, 'playground', 'server.ts'), join(WS, 'out'))).file
})

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

afterAll(() => {
  rmSync(WS, { recursive: true, force: true })
})

/** Spawns the built playground (or another script) with `args`, collecting its output. */
function run(args: string[], script = file) {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  children.push(child)
  const out = { stdout: '', stderr: '' }
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    out.stdout += chunk
  })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    out.stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve))
  return { child, out, exited }
}

/** Resolves once `test(read())` holds; rejects after `ms`. */
function until(read: () => string, test: (text: string) => boolean, ms = 15_000): Promise<string> {
  return vi.waitFor(
    () => {
      if (!test(read())) throw new Error(`timed out waiting; got: ${read()}`)
      return read()
    },
    { timeout: ms, interval: 20 },
  )
}

type Call = (name: string, args: Record<string, unknown>) => Promise<{ isError: boolean; json: any; text: string }>

function caller(client: Client | ClientV2): Call {
  return async (name, args) => {
    const result = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { text: string }[] }
    const text = result.content[0]!.text
    return { isError: result.isError === true, text, json: result.isError ? undefined : JSON.parse(text) }
  }
}

describe('npm run playground: the dev server', () => {
  // What `npm run playground` runs once the package is built (npm test builds it first).
  const dev = join(REPO, 'playground', 'dev.mjs')

  it('prints both URLs, serves /mcp on the in-process backend and /__mcp/, and stops on SIGTERM', async () => {
    const { child, out, exited } = run(['--port', '0'], dev)
    const printed = await until(
      () => out.stdout,
      (text) => text.includes('Ctrl-C to stop.'),
      60_000,
    )
    const url = /MCP endpoint: (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(printed)?.[1]
    const page = /Tools page: {3}(http:\/\/127\.0\.0\.1:\d+\/__mcp\/)\n/.exec(printed)?.[1]
    expect(url).toBeDefined()
    expect(page).toBe(url!.replace(/mcp$/, '__mcp/'))
    expect([...printed.matchAll(/^\{\n[\s\S]*?^\}$/gm)].map((m) => JSON.parse(m[0]))).toEqual([{ mcpServers: { vibe: { url } } }])

    const client = new Client({ name: 'playground-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransportV1(new URL(url!)))
    expect((await client.listTools()).tools).toHaveLength(17)
    const call = caller(client)
    await call('SetVibe', { mood: 'MOOD_CHAOTIC', note: 'dev server' })
    expect((await call('GetVibe', {})).json).toMatchObject({ mood: 'MOOD_CHAOTIC', note: 'dev server', changeCount: '1' })
    await client.close()

    const html = await (await fetch(page!)).text()
    expect(html).toContain('<meta name="mcp-endpoint" content="/mcp">')
    expect((await fetch(new URL('app.js', page!))).headers.get('content-type')).toBe('text/javascript; charset=utf-8')

    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('refuses a bad --port with a message and exit code 1', async () => {
    const { out, exited } = run(['--port', '70000'], dev)
    expect(await exited).toBe(1)
    expect(out.stderr).toBe('playground: invalid --port "70000": expected an integer from 0 to 65535\n')
  })
})

describe('playground over stdio', () => {
  it('keeps state across calls in every service', async () => {
    const transport = new StdioClientTransport({ command: process.execPath, args: [file, '--stdio'], stderr: 'pipe' })
    const client = new Client({ name: 'playground-test', version: '1.0.0' })
    await client.connect(transport)
    try {
      const call = caller(client)
      expect((await client.listTools()).tools.find((t) => t.name === 'ResetVibe')?.description).toBe('Reset Vibe')

      const set = await call('SetVibe', { mood: 'MOOD_HYPED', note: 'bass drop', intensity: 0.75 })
      expect(set.json.previous.mood).toBe('MOOD_CHILL')
      expect(set.json.current).toMatchObject({ mood: 'MOOD_HYPED', note: 'bass drop', intensity: 0.75, changeCount: '1' })
      await call('UpdateVibe', { vibe: { tags: { lights: 'dim' }, note: 'ignored' }, updateMask: 'tags' })
      expect((await call('GetVibe', {})).json).toMatchObject({
        mood: 'MOOD_HYPED',
        note: 'bass drop',
        tags: { lights: 'dim' },
        changeCount: '2',
      })
      expect((await call('VibeHistory', { mood: 'MOOD_CHILL' })).json.changes).toHaveLength(1)
      expect((await call('SetVibe', { mood: 'MOOD_CHILL', intensity: 2 })).text).toBe(
        'rpc error: code = OutOfRange desc = intensity 2 is outside 0..1',
      )

      const list = await call('CreatePlaylist', { name: 'Focus', moods: ['MOOD_FOCUSED'] })
      await call('AddTrack', { playlistId: list.json.id, catalogId: 'cat-4' })
      const added = await call('AddTrack', {
        playlistId: list.json.id,
        track: { title: 'Mine', audio: { fingerprint: '18446744073709551615', sampleCount: 42 } },
        position: 0,
      })
      expect(added.json.tracks.map((t: { title: string }) => t.title)).toEqual(['Mine', 'Static Hearts'])
      expect(added.json.byFingerprint['18446744073709551615'].audio.sampleCount).toBe('42')
      expect(added.json.explicitCounts).toEqual({ false: 1, true: 1 })
      const rated = await call('RateTrack', {
        playlistId: list.json.id,
        trackId: added.json.tracks[1].id,
        rating: { stars: 5, listenedMs: '5000' },
      })
      expect(rated.json.rating).toEqual({ stars: 5, listenedMs: '5000' })
      expect((await call('GetPlaylist', { id: 'pl-9' })).text).toBe('rpc error: code = NotFound desc = playlist "pl-9" not found')

      const entry = await call('WriteEntry', {
        text: 'Rainy day',
        mood: 'MOOD_MELLOW',
        weather: 'rain',
        attachment: { '@type': 'type.googleapis.com/playground.v1.Link', url: 'https://example.com' },
      })
      await call('AddComment', {
        entryId: entry.json.id,
        comment: { author: 'ann', text: 'same', replies: [{ author: 'bo', text: 'me too' }] },
      })
      const thread = await call('AddComment', { entryId: entry.json.id, parentId: 'c-2', comment: { author: 'cy', text: 'deeper' } })
      expect(thread.json.comments[0].replies[0].replies[0]).toMatchObject({ id: 'c-3', author: 'cy', text: 'deeper' })
      expect((await call('SearchEntries', { query: 'rainy', moods: ['MOOD_MELLOW'] })).json.moodCounts).toEqual({ MOOD_MELLOW: '1' })
      await call('DeleteEntry', { id: entry.json.id })
      expect((await call('GetEntry', { id: entry.json.id })).isError).toBe(true)
    } finally {
      await client.close()
    }
  })

  it('writes only MCP messages to stdout and status lines to stderr', async () => {
    const { child, out, exited } = run(['--stdio'])
    child.stdin!.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`,
    )
    await until(
      () => out.stdout,
      (text) => text.includes('\n'),
    )
    child.stdin!.end()
    expect(await exited).toBe(0)
    const lines = out.stdout.split('\n').filter(Boolean)
    expect(lines.map((line) => JSON.parse(line).id)).toEqual([1])
    expect(out.stderr).toContain('Server(vibe@0.0.0, 17 tools) serving on stdio')
    expect(out.stderr).toMatch(/stdin closed: 1 requests, 0 tool calls, 0 errors in \d+ ms/)
  })
})

describe('built playground over HTTP (npm run playground:built)', () => {
  it('prints its URL and client configuration, serves, and stops on SIGTERM', async () => {
    const { child, out, exited } = run(['--port', '0'])
    const printed = await until(
      () => out.stdout,
      (text) => text.includes('Ctrl-C to stop.'),
    )
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)\n/.exec(printed)?.[1]
    expect(url).toBeDefined()
    const configs = [...printed.matchAll(/^\{\n[\s\S]*?^\}$/gm)].map((m) => JSON.parse(m[0]))
    expect(configs).toEqual([{ mcpServers: { vibe: { url } } }, { mcpServers: { vibe: { command: 'node', args: [file, '--stdio'] } } }])
    const client = new ClientV2({ name: 'playground-test', version: '1.0.0' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url!)))
    const call = caller(client)
    await call('SetVibe', { mood: 'MOOD_FOCUSED' })
    expect((await call('GetVibe', {})).json.mood).toBe('MOOD_FOCUSED')
    await client.close()
    child.kill('SIGTERM')
    expect(await exited).toBe(0)
  })

  it('refuses a bad --port with a message and exit code 1', async () => {
    const { out, exited } = run(['--port', 'nope'])
    expect(await exited).toBe(1)
    expect(out.stderr).toBe('playground: invalid --port "nope": expected an integer from 0 to 65535\n')
    expect(out.stdout).toBe('')
  })
})
