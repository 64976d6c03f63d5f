/**
 * Prompts from the proto in Vite's dev server (docs/guide/resources.md,
 * Prompts): an edit of a `(proto_mcp.prompt)` option reaches the open
 * session as the tools do, with `notifications/prompts/list_changed`.
 */
import { join } from 'node:path'
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { startDevApp, type DevApp } from './dev-app.ts'

const WAIT = { timeout: 20_000, interval: 50 }
const PROMPT = `rpc Echo(Note) returns (Note) {
    option (proto_mcp.prompt) = { name: "echo_back" text: "Echo {{text}} back." };
  }`
let app: DevApp
let client: Client
const seen: string[] = []

beforeAll(async () => {
  app = await startDevApp('dev-prompts', {
    prepare(root) {
      const path = join(root, 'notes.proto')
      const text = readFileSync(path, 'utf8')
        .replace('import "common.proto";', 'import "common.proto";\nimport "proto_mcp/options.proto";')
        .replace('rpc Echo(Note) returns (Note) {}', PROMPT)
      writeFileSync(path, text)
    },
  })
  client = new Client({ name: 'dev-prompts', version: '1' })
  client.fallbackNotificationHandler = async (n) => void seen.push(n.method)
  await client.connect(new StreamableHTTPClientTransport(new URL(`${app.origin}/mcp`)))
})
afterAll(async () => {
  await client?.close()
  await app?.close()
})

describe('an edited prompt in the dev server', () => {
  it('is listed and got with its new text in the same session', async () => {
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['echo_back'])
    const got = await client.getPrompt({ name: 'echo_back', arguments: { text: 'hi' } })
    expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Echo hi back.' } }])
    await app.edit('notes.proto', 'name: "echo_back" text: "Echo {{text}} back."', 'name: "shout" text: "Shout {{text}}!"')
    await vi.waitFor(async () => expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['shout']), WAIT)
    expect(seen).toContain('notifications/prompts/list_changed')
    expect((await client.getPrompt({ name: 'shout', arguments: { text: 'hi' } })).messages[0]!.content).toEqual({
      type: 'text',
      text: 'Shout hi!',
    })
    expect((await client.callTool({ name: 'Echo', arguments: { text: 'x' } })).content).toEqual([{ type: 'text', text: '{"text":"v1:x"}' }])
  })
})
