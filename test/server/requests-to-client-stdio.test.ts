/**
 * Logging, elicitation and sampling over stdio: an SDK v1 client (the
 * initialize era: requests to the client) and an SDK v2 client pinned to
 * 2026-07-28 (`input_required` rounds) against a spawned server.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundleServerFixture } from '../helpers/bundle-server.ts'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const dir = mkdtempSync(join(tmpdir(), 'asking-'))
const script = join(dir, 'asking-server.mjs')
const closers = new Closer()
const info = { name: 'stdio-asking-test', version: '0.0.0' }

beforeAll(async () => {
  await bundleServerFixture('asking-server', script)
}, 60_000)

afterAll(async () => {
  await closers.close()
  rmSync(dir, { recursive: true, force: true })
})

it('SDK v1 (initialize era): a level that filters, and elicitation and sampling round trips', async () => {
  const client = new ClientV1(info, { capabilities: { elicitation: {}, sampling: {} } })
  const logs: string[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data))
  })
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada' } }))
  client.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', content: { type: 'text', text: 'hello' }, model: 'm' }))
  await client.connect(new StdioV1({ command: process.execPath, args: [script], stderr: 'pipe' }))
  closers.push(() => client.close())
  await client.setLoggingLevel('warning')
  expect(text(await client.callTool({ name: 'Log', arguments: {} }))).toBe('logged')
  expect(logs).toEqual(['error entry'])
  expect(text(await client.callTool({ name: 'Ask', arguments: {} }))).toBe('{"name":"Ada"} hello')
})

it('SDK v2 pinned to 2026-07-28: the same questions as input_required rounds', async () => {
  const client = new ClientV2(info, {
    versionNegotiation: { mode: { pin: '2026-07-28' } },
    capabilities: { elicitation: { form: {} }, sampling: {} },
  })
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { name: 'Grace' } }))
  client.setRequestHandler('sampling/createMessage', () => ({ role: 'assistant', content: { type: 'text', text: 'hey' }, model: 'm' }))
  await client.connect(new StdioV2({ command: process.execPath, args: [script], stderr: 'pipe' }))
  closers.push(() => client.close())
  expect(client.getProtocolEra()).toBe('modern')
  expect(text(await client.callTool({ name: 'Ask', arguments: {} }))).toBe('{"name":"Grace"} hey')
})
