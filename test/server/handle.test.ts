/**
 * ServerHandle: atomic replacement (a tools/list sees the old set or the new
 * one, never a mix), calls in flight finish on their definition, backends
 * stay bound across a replace, resources and prompts change while serving.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server, type ToolWithHandler } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { ECHO_PROTO, EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'

const info = { name: 'handle-test', version: '0.0.0' }
const ok = (text: string) => ({ content: [{ type: 'text' as const, text }], isError: false })

/** 20 tools named `<prefix>0`..`<prefix>19`. */
function toolsNamed(prefix: string): ToolWithHandler[] {
  return Array.from({ length: 20 }, (_, i) => ({
    tool: { name: `${prefix}${i}`, description: `${prefix} tool ${i}`, inputSchema: { type: 'object' } },
    handler: () => ok(`${prefix}${i}`),
  }))
}

describe('replaceTools', () => {
  it(
    '100 concurrent tools/list racing replacements: every answer is wholly the old set or wholly the new one',
    { timeout: 120_000 },
    async () => {
      await using closers = new Closer()
      const server = Server.builder('racing').build()
      const handle = server.handle()
      const lists = { old: toolsNamed('Old'), new: toolsNamed('New') }
      // Servers of each set, built once: replacing by a server compiles nothing.
      const sets = {
        old: Server.builder('old-set').include(Server.builder('x').build()).build(),
        new: Server.builder('new-set').build(),
      }
      sets.old.handle().replaceTools(lists.old)
      sets.new.handle().replaceTools(lists.new)
      const expected = { old: lists.old.map((t) => t.tool.name).join(','), new: lists.new.map((t) => t.tool.name).join(',') }
      handle.replaceTools(sets.old)
      const http = await server.serveHttp({ port: 0 })
      closers.push(() => http.close())
      const client = new ClientV1(info)
      await client.connect(new HttpV1(new URL(http.url)))
      closers.push(() => client.close())

      const seen = new Set<string>()
      let current: 'old' | 'new' = 'old'
      // Batches until both sets have been answered (a swap lands between two answers of a batch).
      for (let batch = 0; batch < 20 && seen.size < 2; batch++) {
        const swapper = setInterval(() => {
          current = current === 'old' ? 'new' : 'old'
          handle.replaceTools(sets[current])
        }, 2)
        const answers = await Promise.all(Array.from({ length: 100 }, () => client.listTools()))
        clearInterval(swapper)
        for (const answer of answers) {
          const joined = answer.tools.map((t) => t.name).join(',')
          expect([expected.old, expected.new]).toContain(joined)
          seen.add(joined)
        }
      }
      expect(seen).toEqual(new Set([expected.old, expected.new]))
    },
  )

  it('a slow call started before a replace completes with the old definition; the next call gets the new one', async () => {
    await using closers = new Closer()
    let release!: () => void
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    let entered!: () => void
    const started = new Promise<void>((resolve) => {
      entered = resolve
    })
    const server = Server.builder('slow')
      .tool({ name: 'Slow', inputSchema: { type: 'object' } }, async () => {
        entered()
        await gate
        return ok('old definition')
      })
      .build()
    const http = await server.serveHttp({ port: 0 })
    closers.push(() => http.close())
    const client = new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())

    const pending = client.callTool({ name: 'Slow', arguments: {} })
    await started
    server.handle().replaceTools([{ tool: { name: 'Slow', inputSchema: { type: 'object' } }, handler: () => ok('new definition') }])
    release()
    expect(text(await pending)).toBe('old definition')
    expect(text(await client.callTool({ name: 'Slow', arguments: {} }))).toBe('new definition')
  })

  it('keeps implement() backends bound across replaceTools(otherServer), and implement() binds the new tools', async () => {
    const spec = specFromProto(EXAMPLE_PROTO)
    const server = createProtoServer(spec).implement('VibeService', { GetVibe: () => ({ vibe: 'bound before' }) })
    const fresh = createProtoServer(spec)
    server.handle().replaceTools(fresh)
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"bound before"}')
    // The other server's own tools are untouched: still unbound.
    expect(text(await fresh.call('GetVibe', {}))).toBe('rpc error: code = Unimplemented desc = no backend for examples.v1.VibeService')
    server.implement('VibeService', { GetVibe: () => ({ vibe: 'bound after' }) })
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"bound after"}')
    expect(String(server)).toBe('Server(example@0.0.0, 5 tools)')

    // A replace by a set without the service keeps the binding for a later set that has it again.
    server.handle().replaceTools([])
    expect(String(server)).toBe('Server(example@0.0.0, 0 tools)')
    server.handle().replaceTools(createProtoServer(spec))
    expect(text(await server.call('GetVibe', {}))).toBe('{"vibe":"bound after"}')
  })

  it("replaceTools(otherServer): the other server's own bindings win per service, this server's stay for the rest", async () => {
    const vibe = specFromProto(EXAMPLE_PROTO)
    const echo = specFromProto(ECHO_PROTO)
    const composite = (vibeReply: string | undefined, echoName: string | undefined) => {
      const v = createProtoServer(vibe)
      if (vibeReply !== undefined) v.implement('VibeService', { GetVibe: () => ({ vibe: vibeReply }) })
      const e = createProtoServer(echo)
      if (echoName !== undefined) e.implement('EchoService', { Echo: () => ({ name: echoName }) })
      return Server.builder('app').include(v, e).build()
    }
    const served = composite('vibe 1', 'echo 1')
    // Rebuilt as the dev server's implementation module would be: a new VibeService backend, EchoService left unbound.
    const next = composite('vibe 2', undefined)
    served.handle().replaceTools(next)
    expect(text(await served.call('GetVibe', {}))).toBe('{"vibe":"vibe 2"}')
    expect(text(await served.call('Echo', {}))).toBe('{"name":"echo 1"}')
    expect(text(await next.call('Echo', {}))).toBe('rpc error: code = Unimplemented desc = no backend for runtime.v1.EchoService')
    // The adopted binding is this server's from now on: a bare set of the service gets it.
    served.handle().replaceTools(createProtoServer(vibe))
    expect(text(await served.call('GetVibe', {}))).toBe('{"vibe":"vibe 2"}')
    // And binding the other server later does not reach into this one.
    next.implement('VibeService', { GetVibe: () => ({ vibe: 'vibe 3' }) })
    expect(text(await served.call('GetVibe', {}))).toBe('{"vibe":"vibe 2"}')
  })

  it('rejects what is not a server or a tool list, and a duplicate name', () => {
    const handle = Server.builder('x').build().handle()
    expect(() => handle.replaceTools({} as never)).toThrow('replaceTools takes a Server or an array of { tool, handler }')
    handle.addTool({ name: 'A', inputSchema: { type: 'object' } }, () => ok('a'))
    expect(() => handle.addTool({ name: 'A', inputSchema: { type: 'object' } }, () => ok('a'))).toThrow('tool "A" is already defined')
    expect(() => handle.replaceTools([...toolsNamed('D'), ...toolsNamed('D')])).toThrow('tool "D0" is defined twice')
    expect(handle.toolNames).toEqual(['A'])
  })
})

describe('replaceAll', () => {
  it("moves another server's tools, resources, prompts and state in while serving, each list announced once", async () => {
    await using closers = new Closer()
    const served = Server.builder('served')
      .state({ who: 'served' })
      .resource({ uri: 'memo://old', name: 'old' }, (_uri, ctx) => ctx.state.who)
      .tool({ name: 'Old', inputSchema: { type: 'object' } }, (_args, ctx) => ok(ctx.state.who))
      .build()
    const rebuilt = Server.builder('rebuilt')
      .state({ who: 'rebuilt' })
      .resource({ uri: 'memo://new', name: 'new' }, (_uri, ctx) => ctx.state.who)
      .prompt({ name: 'greet' }, (_args, ctx) => `hello from ${ctx.state.who}`)
      .tool({ name: 'New', inputSchema: { type: 'object' } }, (_args, ctx) => ok(ctx.state.who))
      .build()
    const http = await served.serveHttp({ port: 0 })
    closers.push(() => http.close())
    const client = new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
    const heard: string[] = []
    for (const kind of ['tools', 'resources', 'prompts'] as const) {
      client.setNotificationHandler(`notifications/${kind}/list_changed`, () => {
        heard.push(kind)
      })
    }
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    await client.listen({ toolsListChanged: true, resourcesListChanged: true, promptsListChanged: true })

    served.handle().replaceAll(rebuilt)
    await expect.poll(() => [...heard].sort()).toEqual(['prompts', 'resources', 'tools'])
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['New'])
    expect(text(await client.callTool({ name: 'New', arguments: {} }))).toBe('rebuilt')
    expect((await client.readResource({ uri: 'memo://new' })).contents).toEqual([{ uri: 'memo://new', text: 'rebuilt' }])
    await expect(client.readResource({ uri: 'memo://old' })).rejects.toThrow('memo://old')
    expect((await client.getPrompt({ name: 'greet' })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'hello from rebuilt' } },
    ])
    // The name stays: clients learned it when they connected.
    expect(String(served)).toBe('Server(served@0.0.0, 1 tool)')
    expect(() => served.handle().replaceAll({})).toThrow('replaceAll takes a Server')
    expect(heard).toHaveLength(3)
  })

  it("takes the other server's page size; a cursor given before still reaches the next tool", async () => {
    await using closers = new Closer()
    const withTools = (builder: ReturnType<typeof Server.builder>) =>
      toolsNamed('P')
        .slice(0, 5)
        .reduce((b, { tool, handler }) => b.tool(tool, handler), builder)
    const served = withTools(Server.builder('served')).build()
    const http = await served.serveHttp({ port: 0 })
    closers.push(() => http.close())
    // SDK v1's listTools answers one page (v2's aggregates them when asked for the first).
    const client = new ClientV1(info)
    await client.connect(new HttpV1(new URL(http.url)))
    closers.push(() => client.close())
    const names = (result: { tools: Array<{ name: string }> }) => result.tools.map((t) => t.name)
    const list = (cursor?: string) => client.listTools(cursor === undefined ? {} : { cursor })

    expect(names(await list())).toEqual(['P0', 'P1', 'P2', 'P3', 'P4'])
    served.handle().replaceAll(withTools(Server.builder('paged').pageSize(2)).build())
    const first = await list()
    expect([names(first), first.nextCursor !== undefined]).toEqual([['P0', 'P1'], true])
    // Back to one page: the cursor from the paged list goes on from where it was.
    served.handle().replaceAll(withTools(Server.builder('unpaged')).build())
    const rest = await list(first.nextCursor)
    expect([names(rest), rest.nextCursor]).toEqual([['P2', 'P3', 'P4'], undefined])
  })
})

describe('resources and prompts', () => {
  it('are added and removed while serving, each change announced through listen', async () => {
    await using closers = new Closer()
    const server = Server.builder('docs').state({ greeting: 'hello' }).build()
    const handle = server.handle<{ greeting: string }>()
    const http = await server.serveHttp({ port: 0 })
    closers.push(() => http.close())
    const client = new ClientV2(info, { versionNegotiation: { mode: 'auto' } })
    const heard: string[] = []
    client.setNotificationHandler('notifications/resources/list_changed', () => {
      heard.push('resources')
    })
    client.setNotificationHandler('notifications/prompts/list_changed', () => {
      heard.push('prompts')
    })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    await client.listen({ resourcesListChanged: true, promptsListChanged: true })

    handle.addResource({ uri: 'memo://notes', name: 'notes', mimeType: 'text/plain' }, (uri, ctx) => `${ctx.state.greeting} from ${uri}`)
    handle.addPrompt({ name: 'greet', arguments: [{ name: 'who', required: true }] }, (args, ctx) => `${ctx.state.greeting}, ${args.who}`)
    await expect.poll(() => heard).toEqual(['resources', 'prompts'])
    expect((await client.listResources()).resources).toEqual([{ uri: 'memo://notes', name: 'notes', mimeType: 'text/plain' }])
    expect((await client.readResource({ uri: 'memo://notes' })).contents).toEqual([
      { uri: 'memo://notes', mimeType: 'text/plain', text: 'hello from memo://notes' },
    ])
    expect((await client.getPrompt({ name: 'greet', arguments: { who: 'you' } })).messages).toEqual([
      { role: 'user', content: { type: 'text', text: 'hello, you' } },
    ])
    await expect(client.getPrompt({ name: 'greet', arguments: {} })).rejects.toMatchObject({ code: -32602 })

    expect(handle.removeResource('memo://notes')).toBe(true)
    expect(handle.removePrompt('greet')).toBe(true)
    expect(handle.removePrompt('greet')).toBe(false)
    await expect.poll(() => heard).toEqual(['resources', 'prompts', 'resources', 'prompts'])
    expect((await client.listResources()).resources).toEqual([])
    await expect(client.readResource({ uri: 'memo://notes' })).rejects.toThrow('memo://notes')
  })
})

describe('an implementation naming an RPC the new proto lacks', () => {
  it('replaceTools warns at once, naming the method and the closest current RPC; the rest stays bound', async () => {
    const proto = (rpcs: string) =>
      join(
        writeProtos({ 'items.proto': `syntax = "proto3";\npackage items.v1;\nmessage M { string id = 1; }\nservice Items {\n${rpcs}}\n` }),
        'items.proto',
      )
    const warnings: string[] = []
    const server = createProtoServer(specFromProto(proto('  rpc GetItem(M) returns (M);\n  rpc Ping(M) returns (M);\n')))
      .logging({ logger: { warn: (message) => warnings.push(message) } })
      .implement('Items', { GetItem: (req: { id?: string }) => ({ id: `got ${req.id}` }), Ping: () => ({ id: 'pong' }) })
    server.handle().replaceTools(createProtoServer(specFromProto(proto('  rpc FetchItem(M) returns (M);\n  rpc Ping(M) returns (M);\n'))))
    expect(warnings).toEqual([
      `${server.name}: unknown method "GetItem" in the implementation of "items.v1.Items": its RPCs are "FetchItem", "Ping"; did you mean "FetchItem"?`,
    ])
    expect(text(await server.call('Ping', {}))).toBe('{"id":"pong"}')
    expect(text(await server.call('FetchItem', { id: 'a' }))).toContain('code = Unimplemented')
  })
})
