/**
 * Swaps under load: 20 `replaceTools` between two versions of the example
 * proto while HTTP clients and in-process callers keep calling. A call no
 * version would refuse (SetVibe, in both) never fails; a call to a tool only
 * one version has (GetVibe) either succeeds or is the unknown-tool error,
 * nothing else; every session stays open and hears the swaps.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { type Server } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { scaled } from './scale.ts'
import { Closer } from '../helpers/closer.ts'

const SWAPS = 20
/** Calls each caller makes between two swaps. */
const CALLS_PER_SWAP = scaled(3, 25)

const closers = new Closer()
afterAll(() => closers.close())

/** Version B of the example proto: SetVibe's request gains a field, GetVibe is gone. */
function versionB(): string {
  const text = readFileSync(EXAMPLE_PROTO, 'utf8')
  const next = text
    .replace('  string vibe = 1;\n}', '  string vibe = 1;\n  string mood = 2;\n}')
    .replace(/\n[^\n]*\n?\s*rpc GetVibe\(GetVibeRequest\) returns \(GetVibeResponse\) \{\}/, '\n')
  expect(next).toContain('string mood = 2;')
  expect(next).not.toContain('rpc GetVibe(')
  return join(writeProtos({ 'example.proto': next }), 'example.proto')
}

interface Outcome {
  tool: string
  ok: boolean
  detail: string
}

type Caller = (tool: string, args: Record<string, unknown>) => Promise<Outcome>

const outcomeOf = (tool: string, result: { isError?: boolean; content: Array<{ text?: string }> }, expected: string): Outcome => ({
  tool,
  ok: result.isError !== true && result.content[0]?.text === expected,
  detail: JSON.stringify(result),
})

/** Wraps a client's callTool: an unknown-tool rejection (-32602) is an outcome, anything else thrown too. */
function caller(call: (tool: string, args: Record<string, unknown>) => Promise<any>): Caller {
  return async (tool, args) => {
    const expected = tool === 'SetVibe' ? JSON.stringify({ vibe: args.vibe }) : '{"vibe":"steady"}'
    try {
      return outcomeOf(tool, await call(tool, args), expected)
    } catch (error) {
      const { code, message } = error as { code?: number; message: string }
      return { tool, ok: false, detail: `rejected ${code}: ${message}` }
    }
  }
}

describe(`${SWAPS} replaceTools under a stream of calls`, () => {
  it('no call fails that either tool set would have answered; sessions stay and hear every swap', { timeout: 120_000 }, async () => {
    const specA = specFromProto(EXAMPLE_PROTO)
    const specB = specFromProto(versionB())
    const sets: Record<'A' | 'B', Server> = { A: createProtoServer(specA), B: createProtoServer(specB) }
    const server = createProtoServer(specA).implement('VibeService', {
      SetVibe: async (req: { vibe?: string }) => {
        // Yield once, so calls are in flight while a swap lands.
        await new Promise((resolve) => setImmediate(resolve))
        return { vibe: req.vibe ?? '' }
      },
      GetVibe: () => ({ vibe: 'steady' }),
    })
    const handle = server.handle()
    const http = await server.serveHttp({ port: 0 })
    closers.push(() => http.close())

    const heard = { v1: 0, v2: 0 }
    const v1 = new ClientV1({ name: 'swap-v1', version: '0' })
    v1.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      heard.v1++
    })
    await v1.connect(new HttpV1(new URL(http.url)))
    closers.push(() => v1.close())
    const v2 = new ClientV2({ name: 'swap-v2', version: '0' })
    v2.setNotificationHandler('notifications/tools/list_changed', () => {
      heard.v2++
    })
    await v2.connect(new HttpV2(new URL(http.url)))
    closers.push(() => v2.close())
    const modern = new ClientV2({ name: 'swap-2026', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await modern.connect(new HttpV2(new URL(http.url)))
    closers.push(() => modern.close())

    const callers: Caller[] = [
      caller((name, args) => v1.callTool({ name, arguments: args })),
      caller((name, args) => v2.callTool({ name, arguments: args })),
      caller((name, args) => modern.callTool({ name, arguments: args })),
      caller((name, args) => server.call(name, args)),
      caller((name, args) => server.call(name, args)),
    ]
    const outcomes: Outcome[] = []
    let swaps = 0
    let done = 0
    // Swaps are paced by completed calls, not by the clock: each lands while every caller is mid-stream.
    const swapEvery = callers.length * CALLS_PER_SWAP
    const streams = callers.map(async (call, c) => {
      for (let i = 0; i < (SWAPS + 1) * CALLS_PER_SWAP; i++) {
        const tool = i % 3 === 2 ? 'GetVibe' : 'SetVibe'
        outcomes.push(await call(tool, tool === 'SetVibe' ? { vibe: `c${c}-${i}` } : {}))
        if (++done % swapEvery === 0 && swaps < SWAPS) handle.replaceTools(sets[++swaps % 2 === 1 ? 'B' : 'A'])
      }
    })
    await Promise.all(streams)
    expect(swaps).toBe(SWAPS)

    const setVibe = outcomes.filter((o) => o.tool === 'SetVibe')
    expect(setVibe.filter((o) => !o.ok).map((o) => o.detail)).toEqual([])
    const getVibe = outcomes.filter((o) => o.tool === 'GetVibe')
    // Refused only as an unknown tool (while version B served), never otherwise.
    const refused = getVibe.filter((o) => !o.ok)
    expect(refused.filter((o) => !/^rejected -32602: .*GetVibe/.test(o.detail)).map((o) => o.detail)).toEqual([])
    // Both sets really answered: GetVibe both succeeded and was refused.
    expect(getVibe).toContainEqual(expect.objectContaining({ ok: true }))
    expect(refused.length).toBeGreaterThan(0)
    // The sessions stayed open through every swap and heard them all.
    await vi.waitFor(() => expect(heard).toEqual({ v1: SWAPS, v2: SWAPS }), { timeout: 10_000 })
    expect(http.sessionCount).toBe(2)
    expect(server.listTools().map((t) => t.name)).toEqual(sets.A.listTools().map((t) => t.name))
  })
})
