/**
 * Real clients against a child process running the built runtime: over
 * stdio, SDK v1 (initialize era) and SDK v2 in legacy, auto and pinned-2026
 * modes; over HTTP, SDK v1 and SDK v2 (auto).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { buildAppPerProfile } from '../bundlers/harness.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'
import { nullArgumentsFor } from '../helpers/null-arguments.ts'

/** fixtures/apps/wire built by the plugin (esbuild), one output per profile. */
const built: Record<string, string> = {}
const closers = new Closer()

beforeAll(async () => {
  Object.assign(built, await buildAppPerProfile('wire', 'wire'))
}, 120_000)

afterAll(() => closers.close())

function params(profile = 'full') {
  return {
    command: process.execPath,
    args: [built[profile]!, 'stdio'],
    stderr: 'pipe' as const,
  }
}

describe('SDK v1 client over stdio (initialize era)', () => {
  it('lists tools, calls one (success, failure) and gets -32602 for an unknown tool', async () => {
    const transport = new StdioV1(params())
    const client = new ClientV1({ name: 'v1', version: '0.0.0' })
    closers.push(() => client.close())
    await client.connect(transport)
    expect(client.getServerVersion()).toEqual({ name: 'example', version: '0.0.0' })
    const { tools } = await client.listTools()
    expect(tools.map((t) => t.name)).toEqual(['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects'])
    expect(tools[0]!.inputSchema).toMatchObject({ type: 'object', properties: { vibe: { type: 'string' } } })

    const ok = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'chill' } })
    expect(ok).toMatchObject({
      content: [{ type: 'text', text: '{"vibe":"chill"}' }],
      isError: false,
      structuredContent: { vibe: 'chill' },
    })
    const bad = await client.callTool({ name: 'SetVibe', arguments: { vibe: 5 } })
    expect(bad).toMatchObject({ isError: true })
    expect(text(bad)).toBe('invalid arguments: /vibe: 5 is not of type "string"')
    const missing = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'missing' } })
    expect(text(missing)).toBe('rpc error: code = NotFound desc = vibe not found')
    await expect(client.callTool({ name: 'Nope', arguments: {} })).rejects.toMatchObject({ code: -32602 })
    // Still serving after the protocol error.
    expect(text(await client.callTool({ name: 'GetVibe' }))).toBe('{"vibe":"chill"}')
    await client.close()
  })

  it('resolves serveStdio with a report when stdin closes', async () => {
    const transport = new StdioV1(params('topeka'))
    const stderr: string[] = []
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
    const client = new ClientV1({ name: 'v1', version: '0.0.0' })
    await client.connect(transport)
    const result = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'x' } })
    expect(result.structuredContent).toBeUndefined()
    await client.callTool({ name: 'SetVibe', arguments: { vibe: 5 } })
    await expect(client.callTool({ name: 'Nope' })).rejects.toMatchObject({ code: -32602 })
    await client.close()
    const reportLine = () =>
      stderr
        .join('')
        .split('\n')
        .find((l) => l.startsWith('REPORT '))
    const line = await vi.waitFor(
      () => {
        const found = reportLine()
        expect(found).toBeDefined()
        return found
      },
      { timeout: 10_000, interval: 50 },
    )
    const report = JSON.parse(line!.slice(7))
    expect(report).toMatchObject({ toolCalls: 3, errors: 2 })
    expect(report.requests).toBeGreaterThanOrEqual(4)
    expect(typeof report.durationMs).toBe('number')
  })
})

describe('SDK v2 client over stdio', () => {
  const modes = [
    ['default (legacy)', undefined, 'legacy'],
    ['auto', { mode: 'auto' as const }, 'modern'],
    ['pinned 2026-07-28', { mode: { pin: '2026-07-28' } }, 'modern'],
  ] as const

  for (const [label, versionNegotiation, era] of modes) {
    it(`${label}: era ${era}, list and call`, async () => {
      const client = new ClientV2({ name: 'v2', version: '0.0.0' }, versionNegotiation ? { versionNegotiation } : {})
      closers.push(() => client.close())
      await client.connect(new StdioV2(params()))
      expect(client.getProtocolEra()).toBe(era)
      if (era === 'modern') expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
      const { tools } = await client.listTools()
      expect(tools).toHaveLength(5)
      const ok = await client.callTool({ name: 'SetVibe', arguments: { vibe: 'v2' } })
      expect(ok).toMatchObject({ isError: false, structuredContent: { vibe: 'v2' } })
      expect(text(ok)).toBe('{"vibe":"v2"}')
      const bad = await client.callTool({ name: 'SetVibe', arguments: { previous_vibe: 'x' } })
      expect(text(bad)).toBe('invalid arguments: /previous_vibe: unknown field')
      await expect(client.callTool({ name: 'Nope', arguments: {} })).rejects.toMatchObject({ code: -32602 })
      await client.close()
    })
  }
})

describe('built runtime over HTTP (child process)', () => {
  it('serves SDK v1 and v2 clients, then closes when stdin ends', async () => {
    const child = spawn(process.execPath, [built.full!, 'http'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    closers.push(async () => child.kill())
    const exited = new Promise<number | null>((r) => child.once('exit', r))
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout! }).once('line', resolve)
      child.once('exit', () => reject(new Error('server exited before listening')))
    })
    const url = new URL((JSON.parse(first) as { url: string }).url)

    const v1 = new ClientV1({ name: 'v1', version: '0' })
    await v1.connect(new HttpV1(url))
    expect(text(await v1.callTool({ name: 'SetVibe', arguments: { vibe: 'child' } }))).toBe('{"vibe":"child"}')
    await expect(v1.callTool({ name: 'Nope' })).rejects.toMatchObject({ code: -32602 })
    await v1.close()

    const v2 = new ClientV2({ name: 'v2', version: '0' }, { versionNegotiation: { mode: 'auto' } })
    await v2.connect(new HttpV2(url))
    expect(v2.getProtocolEra()).toBe('modern')
    expect(text(await v2.callTool({ name: 'GetVibe' }))).toBe('{"vibe":"child"}')
    expect(text(await v2.callTool({ name: 'SetVibe', arguments: { vibe: 'missing' } }))).toBe(
      'rpc error: code = NotFound desc = vibe not found',
    )
    await v2.close()

    child.stdin!.end()
    expect(await exited).toBe(0)
  })
})

describe('null arguments are {} (docs/calls.md, "The pipeline"), not -32602', () => {
  it('raw JSON-RPC over stdio (initialize era): tools/call with "arguments": null is a normal tool result', async () => {
    const child = spawn(process.execPath, [built.full!, 'stdio'], { stdio: ['pipe', 'pipe', 'pipe'] })
    closers.push(async () => child.kill())
    const lines = createInterface({ input: child.stdout! })
    const pending = new Map<number, (message: any) => void>()
    lines.on('line', (line) => {
      const message = JSON.parse(line)
      pending.get(message.id)?.(message)
    })
    const request = (id: number, method: string, params: unknown) =>
      new Promise<any>((resolve) => {
        pending.set(id, resolve)
        child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
      })
    const init = await request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '0' },
    })
    expect(init.result.serverInfo).toMatchObject({ name: 'example' })
    child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
    expect((await request(2, 'tools/call', { name: 'SetVibe', arguments: { vibe: 'raw' } })).result.isError).toBe(false)
    const got = await request(3, 'tools/call', { name: 'GetVibe', arguments: null })
    expect(got).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: { content: [{ type: 'text', text: '{"vibe":"raw"}' }], isError: false, structuredContent: { vibe: 'raw' } },
    })
    // SetVibe with null arguments is SetVibe with {}: the vibe is cleared.
    const set = await request(4, 'tools/call', { name: 'SetVibe', arguments: null })
    expect(set.result).toMatchObject({ content: [{ type: 'text', text: '{"previousVibe":"raw"}' }], isError: false })
    child.stdin!.end()
  })

  it('SDK v2 client over stdio pinned to 2026-07-28', async () => {
    const client = new ClientV2({ name: 'v2', version: '0.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    closers.push(() => client.close())
    await client.connect(nullArgumentsFor(new StdioV2(params()), 'GetVibe'))
    expect(client.getProtocolEra()).toBe('modern')
    await client.callTool({ name: 'SetVibe', arguments: { vibe: 'modern' } })
    const got = await client.callTool({ name: 'GetVibe', arguments: {} })
    expect(got).toMatchObject({ isError: false, structuredContent: { vibe: 'modern' } })
    expect(text(got)).toBe('{"vibe":"modern"}')
    await client.close()
  })
})
