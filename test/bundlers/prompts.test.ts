/**
 * Prompts from the proto through the plugin (docs/guide/resources.md,
 * Prompts): fixtures/apps/prompts built by Rollup, its `?mcp` module's
 * prompts included beside a hand-written one, got by SDK v1 and v2 clients
 * (v2 in the initialize era and pinned to 2026-07-28) over stdio and HTTP;
 * a prompt naming an unknown argument fails the build at its line.
 */
import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Client as StdioClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundle, createWorkspace, installRuntimePackage } from './harness.ts'
import { CLIENTS, type ClientName } from './mcp-clients.ts'
import { SET_VIBE_PROMPT } from '../helpers/vibes-prompts.ts'

let ws = ''
let file = ''
const children: Array<() => void> = []

beforeAll(async () => {
  ws = createWorkspace('prompts')
  await installRuntimePackage(ws)
  file = (await bundle('rollup', join(ws, 'fixtures', 'apps', 'prompts', 'main.mjs'), join(ws, 'out', 'rollup'))).file
}, 120_000)
afterAll(() => {
  for (const kill of children) kill()
})

interface PromptClient {
  listPrompts(): Promise<{ prompts: Array<Record<string, unknown>> }>
  getPrompt(params: { name: string; arguments?: Record<string, string> }): Promise<{ description?: string; messages: unknown[] }>
  close(): Promise<void>
}

const info = { name: 'prompts-test', version: '1.0.0' }
const v2Options = (flavour: ClientName) =>
  flavour === 'sdk-v2-2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' as const } } } : {}

async function stdioClient(flavour: ClientName): Promise<PromptClient> {
  const params = { command: process.execPath, args: [file, 'stdio'], stderr: 'pipe' as const }
  if (flavour === 'sdk-v1') {
    const client = new StdioClientV1(info)
    await client.connect(new StdioV1(params))
    return client as unknown as PromptClient
  }
  const client = new ClientV2(info, v2Options(flavour))
  await client.connect(new StdioV2(params))
  if (flavour === 'sdk-v2-2026') expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
  return client as unknown as PromptClient
}

async function httpClient(flavour: ClientName): Promise<PromptClient> {
  const child = spawn(process.execPath, [file, 'http'], { stdio: ['pipe', 'pipe', 'inherit'] })
  children.push(() => child.kill())
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve)
    child.once('exit', () => reject(new Error('server exited before listening')))
  })
  const url = new URL((JSON.parse(first) as { url: string }).url)
  const client = flavour === 'sdk-v1' ? new ClientV1(info) : new ClientV2(info, v2Options(flavour))
  await client.connect(flavour === 'sdk-v1' ? new HttpV1(url) : new HttpV2(url))
  if (flavour === 'sdk-v2-2026') expect((client as ClientV2).getNegotiatedProtocolVersion()).toBe('2026-07-28')
  return {
    listPrompts: () => client.listPrompts() as ReturnType<PromptClient['listPrompts']>,
    getPrompt: (params) => client.getPrompt(params) as ReturnType<PromptClient['getPrompt']>,
    close: async () => {
      await client.close()
      child.stdin.end()
    },
  }
}

/** What every client sees: the proto's three prompts and the hand-written one, rendered; a missing required argument is -32602. */
async function check(client: PromptClient): Promise<void> {
  const { prompts } = await client.listPrompts()
  expect(prompts.map((p) => p.name)).toEqual(['vibe_report', 'set_vibe', 'explain_vibe', 'greet'])
  expect(prompts[1]).toEqual(SET_VIBE_PROMPT)
  expect(prompts[0]).toMatchObject({ name: 'vibe_report', title: 'Vibe report' })
  // (2026-07-28 results carry the server's `_meta` too.)
  const { _meta: _, ...got } = (await client.getPrompt({
    name: 'set_vibe',
    arguments: { region: 'north', vibe: 'CALM', changeReason: 'rain' },
  })) as Record<string, unknown>
  expect(got).toEqual({
    description: 'Asks the model to set a vibe.',
    messages: [{ role: 'user', content: { type: 'text', text: 'Set the vibe of north to CALM. Reason: rain.' } }],
  })
  // An optional argument not given is empty.
  const report = await client.getPrompt({ name: 'vibe_report', arguments: { region: 'south' } })
  expect(report.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Write a  report on the vibe in south.' } }])
  expect((await client.getPrompt({ name: 'greet', arguments: { who: 'Ada' } })).messages).toEqual([
    { role: 'user', content: { type: 'text', text: 'Say hello to Ada.' } },
  ])
  await expect(client.getPrompt({ name: 'set_vibe', arguments: { region: 'north' } })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('Prompt set_vibe: missing required argument "vibe"'),
  })
  await expect(client.getPrompt({ name: 'nope' })).rejects.toMatchObject({ code: -32602 })
}

describe('prompts of a ?mcp module built by Rollup', () => {
  for (const flavour of CLIENTS) {
    it(`over stdio with ${flavour}`, async () => {
      const client = await stdioClient(flavour)
      try {
        await check(client)
      } finally {
        await client.close()
      }
    })
    it(`over HTTP with ${flavour}`, async () => {
      const client = await httpClient(flavour)
      try {
        await check(client)
      } finally {
        await client.close()
      }
    })
  }

  it('include() with a hand-written prompt of a proto prompt name fails, naming both', async () => {
    const child = spawn(process.execPath, [file, 'clash'], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    await new Promise((resolve) => child.once('exit', resolve))
    expect(out.trim()).toBe('prompt "set_vibe" is defined twice, by include(vibes) and by prompt(): prompt names must be unique')
  })

  it('a prompt naming an unknown argument fails the build at its line, with loc', async () => {
    const dir = join(ws, 'fixtures', 'apps', 'prompts')
    const error = (await bundle('rollup', join(dir, 'bad.mjs'), join(ws, 'out', 'rollup-bad')).then(
      () => undefined,
      (e: unknown) => e,
    )) as { id?: string; loc?: unknown; message?: string }
    expect(error, 'the build must fail').toBeDefined()
    expect(error.id).toBe(`${join(dir, 'bad.proto')}?mcp`)
    expect(error.loc).toEqual({ file: join(dir, 'bad.proto'), line: 12, column: 18 })
    expect(error.message).toContain(
      'prompt "ask" ((proto_mcp.prompt) of RPC prompts.bad.BadService.Ask): the text names {{whom}}, which is no argument (its arguments: who)',
    )
  })
})
