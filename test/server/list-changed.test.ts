/**
 * `notifications/tools/list_changed` after a ServerHandle change reaches
 * every client that can receive it — SDK v1 over stdio and over an HTTP
 * session, SDK v2 in 2026-07-28 through `subscriptions/listen` (HTTP and
 * stdio) — and no client that did not subscribe.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bundleServerFixture } from '../helpers/bundle-server.ts'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { Closer } from '../helpers/closer.ts'

const dir = mkdtempSync(join(tmpdir(), 'list-changed-'))
const script = join(dir, 'changing-server.mjs')
const closers = new Closer()

beforeAll(async () => {
  await bundleServerFixture('changing-server', script)
}, 60_000)

afterAll(async () => {
  await closers.close()
  rmSync(dir, { recursive: true, force: true })
})

const info = { name: 'list-changed-test', version: '0.0.0' }
const names = (list: { tools: Array<{ name: string }> }) => list.tools.map((t) => t.name)
const ok = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: false })

/** A server with one tool, served over HTTP; `toggle()` adds or removes a second tool. */
async function serveToggling(): Promise<{ http: HttpHandle; toggle: () => void }> {
  const server = Server.builder('toggling')
    .tool({ name: 'First', inputSchema: { type: 'object' } }, () => ok('first'))
    .build()
  const handle = server.handle()
  const http = await server.serveHttp({ port: 0 })
  closers.push(() => http.close())
  const toggle = (): void => {
    if (!handle.removeTool('Second')) handle.addTool({ name: 'Second', inputSchema: { type: 'object' } }, () => ok('second'))
  }
  return { http, toggle }
}

describe('stdio', () => {
  it('SDK v1 client (initialize era) gets list_changed, then lists the new tool', async () => {
    const client = new ClientV1(info)
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    await client.connect(new StdioV1({ command: process.execPath, args: [script], stderr: 'pipe' }))
    closers.push(() => client.close())
    expect(names(await client.listTools())).toEqual(['Grow'])
    expect(await client.callTool({ name: 'Grow', arguments: {} })).toMatchObject(ok('grown'))
    await vi.waitFor(() => expect(changed).toBe(1))
    expect(names(await client.listTools())).toEqual(['Grow', 'Late'])
    expect(await client.callTool({ name: 'Late', arguments: {} })).toMatchObject(ok('late'))
  })

  it('SDK v2 client pinned to 2026-07-28 gets it through subscriptions/listen', async () => {
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    let changed = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++
    })
    await client.connect(new StdioV2({ command: process.execPath, args: [script], stderr: 'pipe' }))
    closers.push(() => client.close())
    expect(client.getProtocolEra()).toBe('modern')
    const subscription = await client.listen({ toolsListChanged: true })
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true })
    await client.callTool({ name: 'Grow', arguments: {} })
    await vi.waitFor(() => expect(changed).toBe(1))
    expect(names(await client.listTools())).toEqual(['Grow', 'Late'])
  })

  it('an SDK v2 client on 2026-07-28 that did not subscribe hears nothing, though stdio could carry it', async () => {
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    let changed = 0
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      changed++
    })
    await client.connect(new StdioV2({ command: process.execPath, args: [script], stderr: 'pipe' }))
    closers.push(() => client.close())
    expect(client.getProtocolEra()).toBe('modern')
    await client.callTool({ name: 'Grow', arguments: {} })
    // Round trips after the change on the same pipe: a notification sent before them would have arrived first.
    expect(names(await client.listTools())).toEqual(['Grow', 'Late'])
    expect(names(await client.listTools())).toEqual(['Grow', 'Late'])
    expect(changed).toBe(0)
  })
})

describe('HTTP', () => {
  it('SDK v1 client gets it over its session GET stream', async () => {
    const { http, toggle } = await serveToggling()
    const client = new ClientV1(info)
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      changed++
    })
    await client.connect(new HttpV1(new URL(http.url)))
    closers.push(() => client.close())
    expect(http.sessionCount).toBe(1)
    // The client opens its GET stream just after connecting; each attempt is a real change.
    await vi.waitFor(
      () => {
        toggle()
        expect(changed).toBeGreaterThan(0)
      },
      { timeout: 5000, interval: 50 },
    )
    const now = names(await client.listTools())
    expect(now[0]).toBe('First')
  })

  it('SDK v2 client in auto mode (2026-07-28) gets it through listen; a client that did not subscribe gets nothing', async () => {
    const { http, toggle } = await serveToggling()
    const listening = new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
    const silent = new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
    let heard = 0
    let overheard = 0
    listening.setNotificationHandler('notifications/tools/list_changed', () => {
      heard++
    })
    silent.setNotificationHandler('notifications/tools/list_changed', () => {
      overheard++
    })
    await listening.connect(new HttpV2(new URL(http.url)))
    await silent.connect(new HttpV2(new URL(http.url)))
    closers.push(
      () => listening.close(),
      () => silent.close(),
    )
    expect(listening.getProtocolEra()).toBe('modern')
    expect(silent.getProtocolEra()).toBe('modern')
    const subscription = await listening.listen({ toolsListChanged: true })
    closers.push(() => subscription.close())
    expect(http.sessionCount).toBe(0)

    toggle()
    await vi.waitFor(() => expect(heard).toBe(1))
    expect(names(await listening.listTools())).toEqual(['First', 'Second'])
    // A full round trip on the silent client after the change: anything sent to it would have arrived.
    expect(names(await silent.listTools())).toEqual(['First', 'Second'])
    expect(overheard).toBe(0)

    await subscription.close()
    toggle()
    expect(names(await listening.listTools())).toEqual(['First'])
    expect(heard).toBe(1)
  })
})
