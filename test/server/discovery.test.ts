/**
 * Tool discovery (docs/guide/big-apis.md): in `search` mode a server lists
 * search_tools, describe_tool and call_tool; call_tool runs a tool as a
 * direct call does (same texts, scopes, Tasks, progress); bad input is a
 * tool error; `auto` switches over 40 tools; a catalog change keeps the list.
 * SDK v1 and v2 clients over stdio and HTTP, both eras.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client'
import { buildProtoTools, compileInProcess } from '../../src/codegen/build-proto.ts'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/server/index.ts'
import { catalogTools } from '../../fixtures/scripts/server/discovery-tools.ts'
import { bundleServerFixture } from '../helpers/bundle-server.ts'
import { httpDispatch } from '../helpers/raw-dispatch.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { loadMcpModule } from '../helpers/load-module.ts'
import { text } from '../helpers/result.ts'
import { Closer } from '../helpers/closer.ts'
import { checkClientRules } from '../../src/schema/client-rules.ts'

const info = { name: 'discovery-test', version: '0.0.0' }
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const META = ['search_tools', 'describe_tool', 'call_tool']
const closers = new Closer()
const dir = mkdtempSync(join(tmpdir(), 'discovery-'))
const stdioScript = join(dir, 'discovery-server.mjs')

const PROTO = `syntax = "proto3";
package shop.v1;
message Order { string id = 1; int32 quantity = 2; string sku = 3; }
message GetOrderRequest { string order_id = 1; }
message CancelOrderRequest { string order_id = 1; string reason = 2; }
message ListShipmentsRequest { string warehouse = 1; int32 page_size = 2; }
message ListShipmentsResponse { repeated string ids = 1; }
message Empty {}
// Manages a shop's orders.
service Orders {
  // Reads one order by its id. Missing orders are NOT_FOUND.
  rpc GetOrder(GetOrderRequest) returns (Order);
  // Places a new order for a stock keeping unit.
  rpc PlaceOrder(Order) returns (Order);
  // Cancels an order that has not shipped yet.
  rpc CancelOrder(CancelOrderRequest) returns (Empty);
  // Lists the shipments leaving a warehouse.
  rpc ListShipments(ListShipmentsRequest) returns (ListShipmentsResponse);
}
`

/** The shop proto as a spec (the command's build), with `options` for the build. */
function shopSpec(options: Parameters<typeof buildProtoTools>[1] = {}, source = PROTO) {
  const file = join(writeProtos({ 'shop.proto': source }), 'shop.proto')
  return compileInProcess(buildProtoTools(file, { methodScopes: { 'shop.v1.Orders.CancelOrder': 'orders.write' }, ...options }))
}

/** The shop server in `search` mode with an in-process implementation. */
function shopServer(): Server {
  const server = createProtoServer(shopSpec({ discovery: { mode: 'search' } }).spec)
  server.implement('shop.v1.Orders', {
    GetOrder: (req: { orderId: string }) => {
      if (req.orderId === 'gone') throw Object.assign(new Error('order gone was deleted'), { code: 5 })
      return { id: req.orderId, quantity: 2, sku: 'tea' }
    },
    PlaceOrder: (req: { sku: string }) => ({ id: 'o-1', sku: req.sku, quantity: 1 }),
    CancelOrder: () => ({}),
    ListShipments: (req: { warehouse: string }) => ({ ids: [`${req.warehouse}-1`] }),
  })
  return server
}

const search = async (server: Server, query: string, extra: Record<string, unknown> = {}, authInfo?: unknown) =>
  server.call('search_tools', { query, ...extra }, authInfo === undefined ? {} : { authInfo: authInfo as never })
const hitNames = (result: { structuredContent?: unknown }): string[] =>
  (result.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name)
const writer = { token: 't', clientId: 'c', scopes: ['orders.write'] }

beforeAll(async () => {
  await bundleServerFixture('discovery-server', stdioScript)
}, 60_000)

afterAll(async () => {
  await closers.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('search mode, in process', () => {
  const server = shopServer()

  it('lists the three meta-tools only; a direct call of a real name still works', async () => {
    expect(server.listTools().map((t) => t.name)).toEqual(META)
    expect(JSON.parse(text(await server.call('GetOrder', { orderId: 'a' })))).toEqual({ id: 'a', quantity: 2, sku: 'tea' })
  })

  it("the meta-tools' schemas pass every client rule set but the strict modes (as portable tools)", () => {
    const listed = server.listTools() as never
    const rejecting = checkClientRules(listed, { server: 'shop' })
      .filter((r) => r.violations.some((v) => v.sev === 'reject'))
      .map((r) => r.name)
    expect(rejecting).toEqual(['openai-strict', 'anthropic-strict'])
  })

  it("a strict server's meta-tools pass OpenAI's and Anthropic's strict sets; call_tool takes arguments as JSON text or an object", async () => {
    const strict = createProtoServer(shopSpec({ profile: 'strict', discovery: { mode: 'search' } }).spec)
    strict.implement('shop.v1.Orders', { GetOrder: (req: { orderId: string }) => ({ id: req.orderId, quantity: 2, sku: 'tea' }) })
    const listed = strict.listTools()
    expect(listed.map((t) => t.name)).toEqual(META)
    const reports = checkClientRules(listed as never, { server: 'shop' })
    const rejecting = reports.filter((r) => r.violations.some((v) => v.sev === 'reject')).map((r) => r.name)
    expect(reports.map((r) => r.name)).toEqual(expect.arrayContaining(['openai-strict', 'anthropic-strict']))
    // The one set the strict shape fails is Gemini's `parameters`, which refuses additionalProperties: as the strict tools themselves do.
    const own = checkClientRules(shopSpec({ profile: 'strict' }).spec.tools as never, { server: 'shop' })
      .filter((r) => r.violations.some((v) => v.sev === 'reject'))
      .map((r) => r.name)
    expect(rejecting).toEqual(['gemini-legacy'])
    expect(own).toContain('gemini-legacy')
    // What a strict-mode model sends: every argument, null for an unset limit, the arguments as JSON text.
    expect(hitNames(await strict.call('search_tools', { query: 'order id', limit: null }))).toContain('GetOrder')
    const viaText = await strict.call('call_tool', { name: 'GetOrder', arguments: '{"orderId":"a"}' })
    const viaObject = await strict.call('call_tool', { name: 'GetOrder', arguments: { orderId: 'a' } })
    expect(viaText).toEqual(viaObject)
    expect(JSON.parse(text(viaText))).toEqual({ id: 'a', quantity: 2, sku: 'tea' })
    expect(text(await strict.call('call_tool', { name: 'GetOrder', arguments: '{"orderId":' }))).toMatch(/text that is not JSON/)
  })

  it('call_tool with arguments as JSON text keeps a 64-bit number as written (its own text is its number source)', async () => {
    const source = `syntax = "proto3";
package ledger.v1;
message Amount { int64 cents = 1; }
service Ledger { rpc Credit(Amount) returns (Amount); }
`
    const seen: unknown[] = []
    const ledger = createProtoServer(shopSpec({ discovery: { mode: 'search' } }, source).spec)
    ledger.implement('ledger.v1.Ledger', {
      Credit: (req: { cents: unknown }) => {
        seen.push(String(req.cents))
        return req
      },
    })
    const viaText = await ledger.call('call_tool', { name: 'Credit', arguments: '{"cents": 9007199254740993}' })
    expect(viaText.isError).not.toBe(true)
    expect(seen).toEqual(['9007199254740993'])
    expect(JSON.parse(text(viaText))).toEqual({ cents: '9007199254740993' })
  })

  it('search_tools ranks by the comments, gives summaries, annotations and token costs; an exact name ranks first', async () => {
    const found = await search(server, 'which shipments leave a warehouse')
    expect(found.isError).toBe(false)
    const hits = (found.structuredContent as { tools: Array<Record<string, unknown>> }).tools
    expect(hits[0]).toMatchObject({ name: 'ListShipments', summary: 'Lists the shipments leaving a warehouse.' })
    expect(hits[0]!.tokens).toBeGreaterThan(10)
    expect(hitNames(await search(server, 'PlaceOrder'))[0]).toBe('PlaceOrder')
    expect(hitNames(await search(server, 'place_order'))[0]).toBe('PlaceOrder')
    expect(hitNames(await search(server, 'order id'))).toContain('GetOrder')
    // The same query, the same answer.
    expect(await search(server, 'order')).toEqual(await search(server, 'order'))
    expect(hitNames(await search(server, 'order', { limit: 1 }))).toHaveLength(1)
  })

  it('a question in the verbs people use finds the RPC named with another (send → Publish, erase → Delete, look up → Get)', async () => {
    const topics = `syntax = "proto3";
package topics.v1;
message Topic { string name = 1; map<string, string> labels = 2; }
message TopicRequest { string topic = 1; }
message PublishRequest { string topic = 1; repeated bytes messages = 2; }
message PublishResponse { repeated string message_ids = 1; }
message ListTopicsRequest { string project = 1; }
message ListTopicsResponse { repeated Topic topics = 1; }
message Empty {}
service Topics {
  // Creates the given topic.
  rpc CreateTopic(Topic) returns (Topic);
  // Changes the labels of a topic.
  rpc UpdateTopic(Topic) returns (Topic);
  // Returns the topic's configuration.
  rpc GetTopic(TopicRequest) returns (Topic);
  // Lists the topics of a project.
  rpc ListTopics(ListTopicsRequest) returns (ListTopicsResponse);
  // Deletes the topic with the given name.
  rpc DeleteTopic(TopicRequest) returns (Empty);
  // Adds one or more messages to the topic.
  rpc Publish(PublishRequest) returns (PublishResponse);
}
`
    const server = createProtoServer(shopSpec({ discovery: { mode: 'search' } }, topics).spec)
    const first = async (query: string) => hitNames(await search(server, query, { limit: 1 }))[0]
    expect(await first('send a message to a topic')).toBe('Publish')
    expect(await first('erase a topic')).toBe('DeleteTopic')
    expect(await first('look up a topic')).toBe('GetTopic')
    expect(await first('modify the labels of a topic')).toBe('UpdateTopic')
    // A query in the RPC's own words is not moved by the synonyms of its other words.
    expect(await first('adds messages to the topic')).toBe('Publish')
  })

  it("a query that is a tool's name ranks that tool first, even where the words favour another", async () => {
    const ok = () => ({ content: [] })
    const words = Server.builder('words')
      .discovery('search')
      .tool({ name: 'Note', description: 'Stores a short text.', inputSchema: { type: 'object' } }, ok)
      .tool({ name: 'NoteNotes', description: 'Note notes: a note of notes, noted.', inputSchema: { type: 'object' } }, ok)
      .build()
    expect(hitNames(await search(words, 'notes'))[0]).toBe('NoteNotes')
    expect(hitNames(await search(words, 'note'))[0]).toBe('Note')
  })

  it("a query matching only a service's comment finds that service's RPCs, from the spec and from a generated module", async () => {
    const source = `syntax = "proto3";
package ledger.v1;
message Entry { string id = 1; }
message Empty {}
// Keeps the general ledger: journal postings, reconciliation and audit trails.
service Books {
  // Reads one entry.
  rpc GetEntry(Entry) returns (Entry);
  // Writes one entry.
  rpc PutEntry(Entry) returns (Empty);
}
service Other {
  // Reads one entry of another kind.
  rpc GetOther(Entry) returns (Entry);
}
`
    const built = shopSpec({ discovery: { mode: 'search' } }, source)
    expect(built.spec.serviceComments).toEqual({
      'ledger.v1.Books': 'Keeps the general ledger: journal postings, reconciliation and audit trails.',
    })
    const fromSpec = createProtoServer(built.spec)
    const file = join(writeProtos({ 'ledger.proto': source }), 'ledger.proto')
    const { server: fromModule, code } = await loadMcpModule(file, { discovery: { mode: 'search' } })
    expect(code).toContain('const serviceComments = ')
    for (const server of [fromSpec, fromModule]) {
      // No tool's name, comment, fields or messages say "reconciliation" or "journal".
      expect(hitNames(await search(server, 'reconciliation journal')).sort()).toEqual(['GetEntry', 'PutEntry'])
      expect(hitNames(await search(server, 'entry of another kind'))[0]).toBe('GetOther')
    }
    // Without a comment nothing is written for it.
    expect(shopSpec({}, source.replace(/\/\/ Keeps the general[^\n]*\n/, '')).spec).not.toHaveProperty('serviceComments')
  })

  it('describe_tool answers the whole definition as structured content', async () => {
    const described = await server.call('describe_tool', { name: 'GetOrder' })
    const direct = shopSpec().spec.tools.find((t) => t.name === 'GetOrder')!
    expect(described.structuredContent).toMatchObject({
      name: 'GetOrder',
      inputSchema: direct.inputSchema,
      outputSchema: direct.outputSchema,
    })
  })

  it('describe_tool answers a message a placeholder names as describe_type does (search mode lists no type tool)', async () => {
    const deep = `syntax = "proto3";
package deep.v1;
// A node of a tree. Each holds a label and children.
message Node { string label = 1; repeated Node children = 2; Leaf leaf = 3; }
// A leaf with its weight and a long note about what the weight means for the tree.
message Leaf { double weight = 1; string note = 2; string unit = 3; string source = 4; }
message Ack {}
service Trees {
  // Plants a whole tree.
  rpc Plant(Node) returns (Ack);
}
`
    const cut = createProtoServer(shopSpec({ discovery: { mode: 'search' }, toolTokenBudget: 120 }, deep).spec)
    const listed = JSON.stringify((await cut.call('describe_tool', { name: 'Plant' })).structuredContent)
    expect(listed).toContain('JSON text of deep.v1.Leaf; schema: describe_type')
    const direct = await cut.call('describe_type', { type: 'deep.v1.Leaf' })
    expect(direct.isError).toBe(false)
    expect(await cut.call('describe_tool', { name: 'deep.v1.Leaf' })).toEqual(direct)
    expect(await cut.call('describe_tool', { name: '.deep.v1.Leaf' })).toEqual(direct)
    expect(text(await cut.call('describe_tool', { name: 'deep.v1.Twig' }))).toMatch(/^describe_tool: no tool is named "deep.v1.Twig"/)
  })

  it('call_tool gives the result and error texts of a direct call', async () => {
    const cases: Array<[string, unknown]> = [
      ['GetOrder', { orderId: 'a' }],
      ['GetOrder', { orderId: 'gone' }],
      ['GetOrder', { orderId: 7 }],
      ['GetOrder', { orderID: 'a' }],
      ['PlaceOrder', { sku: 'tea', quantity: 'many' }],
      ['ListShipments', { warehouse: 'north', pageSize: 3 }],
    ]
    for (const [name, args] of cases) {
      const direct = await server.call(name, args)
      const through = await server.call('call_tool', { name, arguments: args })
      expect(through, `${name} ${JSON.stringify(args)}`).toEqual(direct)
    }
    expect((await server.call('GetOrder', { orderId: 7 })).isError).toBe(true)
    // The arguments as JSON text (a client that sends open objects so) are the same call.
    expect(await server.call('call_tool', { name: 'GetOrder', arguments: '{"orderId":"a"}' })).toEqual(
      await server.call('GetOrder', { orderId: 'a' }),
    )
  })

  it('bad input is a clear tool error', async () => {
    const errors: Array<[string, unknown, RegExp]> = [
      ['search_tools', { query: '' }, /search_tools: query is empty/],
      ['search_tools', { query: 'x'.repeat(10_000) }, /query is 10000 characters, over the 1000 searched/],
      ['search_tools', { query: 'order', limit: 0 }, /limit must be a whole number from 1 to 50, got 0/],
      ['search_tools', { query: 'order', limit: 10_000 }, /limit must be a whole number from 1 to 50, got 10000/],
      ['search_tools', {}, /query must be a string, got none/],
      ['describe_tool', { name: 'GetOrders' }, /no tool is named "GetOrders"; the nearest are "GetOrder", "PlaceOrder", "ListShipments"/],
      ['call_tool', { name: 'PlaceOrders', arguments: {} }, /call_tool: no tool is named "PlaceOrders"; the nearest are "PlaceOrder"/],
      ['call_tool', { arguments: {} }, /call_tool: name must be a tool's name/],
      ['call_tool', { name: 'GetOrder', arguments: [1] }, /arguments must be an object of "GetOrder"'s arguments, got \[1\]/],
      [
        'call_tool',
        { name: 'GetOrder', arguments: '{"orderId"' },
        /arguments must be an object .* \(or its JSON text\), got text that is not JSON/,
      ],
    ]
    for (const [tool, args, want] of errors) {
      const result = await server.call(tool, args)
      expect(result.isError, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(true)
      expect(text(result)).toMatch(want)
    }
  })

  it('a tool hidden from the caller is unknown to search, describe and call alike', async () => {
    expect(hitNames(await search(server, 'cancel an order'))).not.toContain('CancelOrder')
    expect(hitNames(await search(server, 'CancelOrder'))).not.toContain('CancelOrder')
    expect(text(await server.call('describe_tool', { name: 'CancelOrder' }))).toMatch(/no tool is named "CancelOrder"; the nearest are/)
    const hidden = await server.call('call_tool', { name: 'CancelOrder', arguments: { orderId: 'a' } })
    expect(text(hidden)).toMatch(/no tool is named "CancelOrder"/)
    expect(text(hidden)).not.toMatch(/"CancelOrder",/)
    expect(hitNames(await search(server, 'CancelOrder', {}, writer))[0]).toBe('CancelOrder')
    const allowed = await server.call('call_tool', { name: 'CancelOrder', arguments: { orderId: 'a' } }, { authInfo: writer as never })
    expect(allowed.isError).toBe(false)
  })
})

describe('names, collisions and auto', () => {
  it('a proto tool named like a meta-tool is a build error naming both, at the RPC', () => {
    const clash = PROTO.replace('rpc PlaceOrder(Order)', 'rpc search_tools(Order)')
    expect(() => shopSpec({ discovery: { mode: 'search' } }, clash)).toThrow(
      /shop\.proto.*tool "search_tools" \(RPC shop\.v1\.Orders\.search_tools\) has the name of the discovery meta-tool "search_tools".*\(line 14\)/s,
    )
    // Renamed meta-tools: no clash; `tools` has no meta-tools to clash with.
    expect(() => shopSpec({ discovery: { mode: 'search', names: { search: 'find_tools' } } }, clash)).not.toThrow()
    expect(() => shopSpec({ discovery: { mode: 'tools' } }, clash)).not.toThrow()
  })

  it('a hand-written tool named like a meta-tool is refused by build() and by the handle', () => {
    const builder = Server.builder('x').discovery('search')
    builder.tool({ name: 'call_tool', inputSchema: { type: 'object' } }, () => ({ content: [] }))
    expect(() => builder.build()).toThrow(/tool "call_tool" has the name of the discovery meta-tool "call_tool" \(discoveryNames\.call\)/)
    const server = Server.builder('y').discovery('search', { call: 'run_tool' }).build()
    expect(server.listTools().map((t) => t.name)).toEqual(['search_tools', 'describe_tool', 'run_tool'])
    expect(() => server.handle().addTool({ name: 'run_tool', inputSchema: { type: 'object' } }, () => ({ content: [] }))).toThrow(
      /meta-tool "run_tool"/,
    )
    expect(() => Server.builder('z').discovery('search', { call: 'search_tools' })).toThrow(/the three discoveryNames must differ/)
    expect(() => Server.builder('z').discovery('lots' as never)).toThrow(/discovery must be one of auto, tools, search, got "lots"/)
  })

  it("a hit's token cost is the build's exact count; auto decides on the counts a spec carries, estimating only without one", async () => {
    const built = shopSpec({ discovery: { mode: 'search' } })
    const exact = new Map(built.costs().map((c) => [c.name, c.tokens]))
    const server = createProtoServer(built.spec)
    const hits = (await search(server, 'order')).structuredContent as { tools: Array<{ name: string; tokens: number }> }
    expect(hits.tools.length).toBeGreaterThan(2)
    for (const hit of hits.tools) expect(hit.tokens, hit.name).toBe(exact.get(hit.name))
    const described = await server.call('describe_tool', { name: 'GetOrder' })
    expect((described.structuredContent as { tokens: number }).tokens).toBe(exact.get('GetOrder'))
    // Four characters a token would say otherwise for at least one of them (the estimate is not what is shown).
    const estimate = (t: { name: string; description?: string; inputSchema: unknown }) =>
      Math.ceil(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema }).length / 4)
    expect(built.spec.tools.some((t) => estimate(t) !== t.tokens)).toBe(true)
    // auto: four tools (three visible without orders.write) whose counts pass 30,000 tokens list the meta-tools; without counts (full, a small list) the estimate decides.
    const auto = shopSpec({})
    expect(createProtoServer(auto.spec).listTools()).toHaveLength(3)
    // Counts are read only past 30,000 bytes (a token is at least a byte): descriptions that long, an estimate
    // (a quarter of the characters) well under 30,000, and counts over it.
    const long = (t: { description?: string }) => `${t.description ?? ''} ${'long words '.repeat(800)}`
    const heavy = { ...auto.spec, tools: auto.spec.tools.map((t) => ({ ...t, description: long(t), tokens: 8_000 })) }
    expect(heavy.tools.reduce((sum, t) => sum + estimate(t), 0)).toBeLessThan(30_000)
    expect(
      createProtoServer(heavy)
        .listTools()
        .map((t) => t.name),
    ).toEqual(META)
    const full = shopSpec({ profile: 'full' })
    expect(full.spec.tools.every((t) => t.tokens === undefined)).toBe(true)
    expect(createProtoServer(full.spec).listTools()).toHaveLength(3)
    const hit = (await search(createProtoServer(shopSpec({ profile: 'full', discovery: { mode: 'search' } }).spec), 'GetOrder'))
      .structuredContent as { tools: Array<{ tokens: number }> }
    expect(hit.tools[0]!.tokens).toBe(estimate(full.spec.tools.find((t) => t.name === 'GetOrder')!))
  })

  it('auto lists tools up to 40 and the meta-tools above, with a build warning naming the option', () => {
    const many = (n: number) =>
      `syntax = "proto3"; package m.v1; message M {}\nservice S { ${Array.from({ length: n }, (_, i) => `rpc R${i}(M) returns (M);`).join(' ')} }`
    const at40 = shopSpec({}, many(40))
    expect(at40.warnings.map((w) => w.code)).not.toContain('DISCOVERY_SEARCH')
    expect(createProtoServer(at40.spec).listTools()).toHaveLength(40)
    const at41 = shopSpec({}, many(41))
    const warning = at41.warnings.find((w) => w.code === 'DISCOVERY_SEARCH')!
    expect(warning.message).toMatch(
      /41 tools, over 40: discovery 'auto' lists the meta-tools search_tools, describe_tool and call_tool.*discovery: 'tools'/,
    )
    expect(
      createProtoServer(at41.spec)
        .listTools()
        .map((t) => t.name),
    ).toEqual(META)
    expect(createProtoServer(shopSpec({ discovery: { mode: 'tools' } }, many(41)).spec).listTools()).toHaveLength(41)
    // auto decides on the merged server: two of 25 tools each are 50.
    const twenty5 = (pkg: string) =>
      createProtoServer(
        shopSpec({}, many(25).replace('package m.v1', `package ${pkg}`).replace(/rpc R/g, `rpc ${pkg.toUpperCase()[0]}`)).spec,
      )
    expect(twenty5('a.v1').listTools()).toHaveLength(25)
    expect(
      Server.builder('both')
        .include(twenty5('a.v1'), twenty5('b.v1'))
        .build()
        .listTools()
        .map((t) => t.name),
    ).toEqual(META)
    // include(): the included server's mode, unless the builder gives one.
    const included = createProtoServer(shopSpec({ discovery: { mode: 'search' } }).spec)
    expect(
      Server.builder('all')
        .include(included)
        .build()
        .listTools()
        .map((t) => t.name),
    ).toEqual(META)
    expect(Server.builder('all').discovery('tools').include(included).build().listTools()).toHaveLength(3)
  })
})

/** SDK v1 and v2 clients to run the same script against. */
type AnyClient = {
  listTools(): Promise<{ tools: Array<{ name: string }> }>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
}

/** A model's script: search, describe, then call through call_tool; the result is the direct call's. */
async function modelScript(client: AnyClient): Promise<void> {
  expect((await client.listTools()).tools.map((t) => t.name)).toEqual(META)
  const found = (await client.callTool({ name: 'search_tools', arguments: { query: 'give money back for a payment' } })) as {
    structuredContent: { tools: Array<{ name: string }> }
  }
  expect(found.structuredContent.tools[0]!.name).toBe('RefundPayment')
  const described = (await client.callTool({ name: 'describe_tool', arguments: { name: 'RefundPayment' } })) as {
    structuredContent: unknown
  }
  expect(described.structuredContent).toMatchObject({ inputSchema: { required: ['paymentId'] } })
  const through = await client.callTool({ name: 'call_tool', arguments: { name: 'RefundPayment', arguments: { paymentId: 'p1' } } })
  const direct = await client.callTool({ name: 'RefundPayment', arguments: { paymentId: 'p1' } })
  expect(text(through)).toBe('refunded p1')
  expect(through).toEqual(direct)
  const badThrough = await client.callTool({ name: 'call_tool', arguments: { name: 'CreateInvoice', arguments: { cents: 0 } } })
  const badDirect = await client.callTool({ name: 'CreateInvoice', arguments: { cents: 0 } })
  expect((badThrough as { isError: boolean }).isError).toBe(true)
  expect(badThrough).toEqual(badDirect)
}

describe('real clients', () => {
  let http: HttpHandle
  beforeAll(async () => {
    const builder = Server.builder('discovery').discovery('search').logging({ logger: false }).tasks({ pollIntervalMs: 20 })
    for (const { tool, handler } of catalogTools) builder.tool(tool, handler)
    http = await builder.build().serveHttp({ port: 0 })
    closers.push(() => http.close())
  })

  it('SDK v1 over HTTP (initialize era)', async () => {
    const client = new ClientV1(info)
    await client.connect(new HttpV1(new URL(http.url)))
    closers.push(() => client.close())
    await modelScript(client as unknown as AnyClient)
  })

  it('SDK v2 over HTTP (2026-07-28)', async () => {
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    expect(client.getProtocolEra()).toBe('modern')
    await modelScript(client as unknown as AnyClient)
  })

  it('SDK v1 over stdio (initialize era)', async () => {
    const client = new ClientV1(info)
    await client.connect(new StdioV1({ command: process.execPath, args: [stdioScript], stderr: 'pipe' }))
    closers.push(() => client.close())
    await modelScript(client as unknown as AnyClient)
  })

  it('SDK v2 over stdio (2026-07-28)', async () => {
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
    await client.connect(new StdioV2({ command: process.execPath, args: [stdioScript], stderr: 'pipe' }))
    closers.push(() => client.close())
    expect(client.getProtocolEra()).toBe('modern')
    await modelScript(client as unknown as AnyClient)
  })

  it('progress through call_tool reaches the caller', async () => {
    const client = new ClientV1(info)
    await client.connect(new HttpV1(new URL(http.url)))
    closers.push(() => client.close())
    const seen: unknown[] = []
    const result = await client.callTool(
      { name: 'call_tool', arguments: { name: 'ExportLedger', arguments: { format: 'json' } } },
      undefined,
      {
        onprogress: (p) => seen.push(p),
      },
    )
    expect(text(result)).toBe('ledger as json')
    expect(seen).toEqual([{ progress: 1, total: 2, message: 'half way' }])
  })

  it('a call through call_tool becomes a task as the direct call does (ext-tasks)', async () => {
    const client = new ClientV2(info, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { ...TASKS } })
    await client.connect(new HttpV2(new URL(http.url)))
    closers.push(() => client.close())
    const session = createTaskSessionFromClient(client, {
      endpointId: 'discovery-test',
      rawDispatch: httpDispatch(http.url),
      v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo: info, clientCapabilities: {} },
    })
    closers.push(() => session.close())
    const execution = await session.callTool('call_tool', { name: 'ExportLedger', arguments: { format: 'xml' } })
    expect(execution.kind).toBe('task')
    expect(text(resultFromTaskOutcome((await execution.settle()).outcome))).toBe('ledger as xml')
  })

  it('a catalog change sends no list_changed in search mode, and the index follows it', async () => {
    const server = Server.builder('changing').discovery('search').logging({ logger: false }).build()
    const served = await server.serveHttp({ port: 0 })
    closers.push(() => served.close())
    const client = new ClientV1(info)
    let changed = 0
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changed++)
    await client.connect(new HttpV1(new URL(served.url)))
    closers.push(() => client.close())
    const before = (await client.listTools()).tools
    server.handle().addTool({ name: 'BakeBread', description: 'Bakes a loaf of bread.', inputSchema: { type: 'object' } }, () => ({
      content: [{ type: 'text', text: 'baked' }],
    }))
    const found = (await client.callTool({ name: 'search_tools', arguments: { query: 'bake a loaf' } })) as unknown as {
      structuredContent: { tools: Array<{ name: string }> }
    }
    expect(found.structuredContent.tools.map((t) => t.name)).toEqual(['BakeBread'])
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(changed).toBe(0)
    expect((await client.listTools()).tools).toEqual(before)
  })
})
