/**
 * Resource templates (`resources/templates/list`, reads through a URI
 * template), `completion/complete` for prompt arguments and template
 * variables, and `resources/subscribe` with `handle.notifyResourceUpdated`,
 * through SDK v1 and v2 clients over HTTP (both eras where they apply).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ResourceListChangedNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, ResourceNotFoundError, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { isRuntimeError, Server, type HttpHandle, type ServerHandle } from '../../src/entries/runtime.ts'
import { Closer } from '../helpers/closer.ts'

const info = { name: 'resource-features-test', version: '0.0.0' }
const CITIES = ['paris', 'park', 'party', 'perth', 'porto']

let http: HttpHandle
let handle: ServerHandle<{ greeting: string }>
const closers = new Closer()

beforeAll(async () => {
  const server = Server.builder('resourceful')
    .state({ greeting: 'hello' })
    .resource({ uri: 'notes://fixed/data', name: 'fixed', mimeType: 'text/plain' }, () => 'the listed resource')
    .resource({ uri: 'notes://watched', name: 'watched' }, () => 'watched')
    .resourceTemplate(
      { uriTemplate: 'notes://{folder}/{id}', name: 'note', mimeType: 'application/json' },
      (uri, variables, ctx) => JSON.stringify({ uri, ...variables, greeting: ctx.state.greeting }),
      {
        complete: { folder: (value) => ['inbox', 'archive'].filter((f) => f.startsWith(value)) },
      },
    )
    .prompt({ name: 'trip', arguments: [{ name: 'city', required: true }, { name: 'when' }] }, ({ city }) => `visit ${city}`, {
      complete: { city: (value, ctx) => CITIES.filter((c) => c.startsWith(value) && c !== ctx.arguments.when) },
    })
    .build()
  handle = server.handle()
  http = await server.serveHttp({ port: 0 })
})

afterAll(async () => {
  await closers.close()
  await http?.close()
})

async function v1(): Promise<ClientV1> {
  const client = new ClientV1(info)
  await client.connect(new HttpV1(new URL(http.url)))
  closers.push(() => client.close())
  return client
}

/**
 * Resolves once `client`'s GET stream carries unsolicited messages: an
 * initialize-era client opens it just after connecting, and what is sent
 * before then has nowhere to go.
 */
async function streamOpen(client: ClientV1): Promise<void> {
  let heard = false
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, () => {
    heard = true
  })
  await client.subscribeResource({ uri: 'probe://stream' })
  await vi.waitFor(
    () => {
      handle.notifyResourceUpdated('probe://stream')
      expect(heard).toBe(true)
    },
    { timeout: 5000, interval: 50 },
  )
  await client.unsubscribeResource({ uri: 'probe://stream' })
}

async function v2(mode: 'legacy' | 'auto'): Promise<ClientV2> {
  const client = new ClientV2(info, mode === 'legacy' ? {} : { versionNegotiation: { mode } })
  await client.connect(new HttpV2(new URL(http.url)))
  closers.push(() => client.close())
  return client
}

describe('resource templates', () => {
  it.each(['v1', 'v2 legacy', 'v2 auto'] as const)('%s: lists the template and reads a matching URI with its variables', async (kind) => {
    const client = kind === 'v1' ? await v1() : await v2(kind === 'v2 auto' ? 'auto' : 'legacy')
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates).toEqual([{ uriTemplate: 'notes://{folder}/{id}', name: 'note', mimeType: 'application/json' }])
    const read = await client.readResource({ uri: 'notes://inbox/42' })
    expect(read.contents).toEqual([
      {
        uri: 'notes://inbox/42',
        mimeType: 'application/json',
        text: JSON.stringify({ uri: 'notes://inbox/42', folder: 'inbox', id: '42', greeting: 'hello' }),
      },
    ])
  })

  it('a listed resource wins over a template matching its URI', async () => {
    const client = await v1()
    expect((await client.readResource({ uri: 'notes://fixed/data' })).contents[0]).toMatchObject({ text: 'the listed resource' })
  })

  // Resource not found is -32002 before the 2026-07-28 revision and -32602 from it (SEP-2164), data.uri in both.
  // SDK v2 clients make either code a ResourceNotFoundError (its code -32602): the wire shows which was sent.
  it.each([
    ['v1', -32002],
    ['v2 legacy', -32002],
    ['v2 auto', -32602],
  ] as const)('%s: an unmatched URI is resource-not-found, %i on the wire', async (kind, code) => {
    const transport = kind === 'v1' ? new HttpV1(new URL(http.url)) : new HttpV2(new URL(http.url))
    const client =
      kind === 'v1' ? new ClientV1(info) : new ClientV2(info, kind === 'v2 auto' ? { versionNegotiation: { mode: 'auto' } } : {})
    await client.connect(transport as HttpV2 & HttpV1)
    closers.push(() => client.close())
    const errors: unknown[] = []
    const wire = transport as unknown as { onmessage: (message: Record<string, unknown>, extra?: unknown) => void }
    const onmessage = wire.onmessage.bind(wire)
    wire.onmessage = (message, extra) => {
      if ('error' in message) errors.push(message.error)
      onmessage(message, extra)
    }
    const read = client.readResource({ uri: 'other://x' })
    if (kind === 'v1') await expect(read).rejects.toMatchObject({ code, data: { uri: 'other://x' } })
    else await expect(read).rejects.toBeInstanceOf(ResourceNotFoundError)
    // The next error of the same connection keeps its code: only the not-found answer changed.
    await expect(client.getPrompt({ name: 'nope', arguments: {} })).rejects.toMatchObject({ code: -32602 })
    expect(errors).toEqual([
      { code, message: 'Resource not found: other://x', data: { uri: 'other://x' } },
      expect.objectContaining({ code: -32602 }),
    ])
  })

  it('a handle adds and removes templates, announcing the resource list', async () => {
    const client = await v1()
    await streamOpen(client)
    let changed = 0
    client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
      changed++
    })
    handle.addResourceTemplate({ uriTemplate: 'late://{x}', name: 'late' }, (_uri, { x }) => `late ${String(x)}`)
    await vi.waitFor(() => expect(changed).toBe(1))
    expect((await client.readResource({ uri: 'late://1' })).contents[0]).toMatchObject({ text: 'late 1' })
    expect(handle.removeResourceTemplate('late://{x}')).toBe(true)
    expect(handle.removeResourceTemplate('late://{x}')).toBe(false)
    await vi.waitFor(() => expect(changed).toBe(2))
    await expect(client.readResource({ uri: 'late://1' })).rejects.toMatchObject({ code: -32002 })
  })

  it('a bad template or a completer of a variable it lacks fails where it is added', () => {
    const read = () => ''
    expect(() => Server.builder('x').resourceTemplate({ uriTemplate: '', name: 'n' }, read)).toThrow(
      'a resource template needs a non-empty "uriTemplate"',
    )
    let error: unknown
    try {
      Server.builder('x').resourceTemplate({ uriTemplate: 'a://{id}', name: 'n' }, read, { complete: { other: () => [] } })
    } catch (e) {
      error = e
    }
    expect(isRuntimeError(error, 'BAD_SPEC')).toBe(true)
    expect((error as Error).message).toBe('resource template "a://{id}" has no variable "other" to complete')
    expect(() => Server.builder('x').prompt({ name: 'p' }, () => '', { complete: { city: () => [] } })).toThrow(
      'prompt "p" has no argument "city" to complete',
    )
  })
})

describe('completion/complete', () => {
  it.each(['v1', 'v2 legacy', 'v2 auto'] as const)('%s: prompt arguments and template variables', async (kind) => {
    const client = kind === 'v1' ? await v1() : await v2(kind === 'v2 auto' ? 'auto' : 'legacy')
    expect(client.getServerCapabilities()?.completions).toEqual({})
    const prompt = await client.complete({ ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'city', value: 'par' } })
    expect(prompt.completion).toEqual({ values: ['paris', 'park', 'party'], total: 3, hasMore: false })
    const template = await client.complete({
      ref: { type: 'ref/resource', uri: 'notes://{folder}/{id}' },
      argument: { name: 'folder', value: 'a' },
    })
    expect(template.completion).toEqual({ values: ['archive'], total: 1, hasMore: false })
  })

  it('the arguments already given reach the completer; no completer is an empty answer; an unknown prompt is -32602', async () => {
    const client = await v1()
    const given = await client.complete({
      ref: { type: 'ref/prompt', name: 'trip' },
      argument: { name: 'city', value: 'p' },
      context: { arguments: { when: 'park' } },
    })
    expect(given.completion.values).toEqual(['paris', 'party', 'perth', 'porto'])
    const none = await client.complete({ ref: { type: 'ref/prompt', name: 'trip' }, argument: { name: 'when', value: '' } })
    expect(none.completion).toEqual({ values: [], total: 0, hasMore: false })
    await expect(client.complete({ ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'a', value: '' } })).rejects.toMatchObject({
      code: -32602,
    })
  })
})

describe('resources/subscribe', () => {
  it('SDK v1: a subscriber hears updates of its URI only, and none after unsubscribing', async () => {
    const client = await v1()
    const other = await v1()
    await streamOpen(client)
    await streamOpen(other)
    expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true })
    const heard: string[] = []
    const overheard: string[] = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.push(n.params.uri)
    })
    other.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      overheard.push(n.params.uri)
    })
    expect(await client.subscribeResource({ uri: 'notes://watched' })).toEqual({})
    handle.notifyResourceUpdated('notes://watched')
    handle.notifyResourceUpdated('notes://fixed/data')
    await vi.waitFor(() => expect(heard).toEqual(['notes://watched']))
    expect(await client.unsubscribeResource({ uri: 'notes://watched' })).toEqual({})
    handle.notifyResourceUpdated('notes://watched')
    // A ping round trip: anything sent before it has arrived.
    await client.ping()
    expect(heard).toEqual(['notes://watched'])
    expect(overheard).toEqual([])
  })

  it('SDK v2 initialize era: the same', async () => {
    const client = await v2('legacy')
    const heard: string[] = []
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      heard.push(n.params.uri)
    })
    await client.subscribeResource({ uri: 'notes://inbox/1' })
    // Until its GET stream is open, an update has nowhere to go: announce until one arrives.
    await vi.waitFor(
      () => {
        handle.notifyResourceUpdated('notes://inbox/1')
        expect(heard.length).toBeGreaterThan(0)
      },
      { timeout: 5000, interval: 50 },
    )
    expect(new Set(heard)).toEqual(new Set(['notes://inbox/1']))
  })

  it('SDK v2 2026-07-28: a listen stream with resourceSubscriptions hears updates of those URIs only', async () => {
    const client = await v2('auto')
    expect(client.getProtocolEra()).toBe('modern')
    const heard: string[] = []
    client.setNotificationHandler('notifications/resources/updated', (n) => {
      heard.push(n.params.uri)
    })
    const subscription = await client.listen({ resourceSubscriptions: ['notes://watched'] })
    closers.push(() => subscription.close())
    handle.notifyResourceUpdated('notes://fixed/data')
    handle.notifyResourceUpdated('notes://watched')
    await vi.waitFor(() => expect(heard).toEqual(['notes://watched']))
  })
})
