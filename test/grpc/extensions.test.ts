/**
 * Proto2 extensions of a request message (docs/mapping.md, "Input schema:
 * the shape"): a tool's schemas key them by their dotted full names
 * (`ext.v1.author`: protobuf JSON's `[ext.v1.author]` is no property key
 * Anthropic takes), described by the comments of their declarations and
 * shaped by their options, and a call that sets them reaches a real grpc-js
 * server with them set. Before, the schema advertised protobufjs's internal
 * name (`.ext.v1.author`), undescribed, which the decoder then refused: no
 * call could set one.
 */
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import protobuf from 'protobufjs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { grpc, type GrpcBackend } from '../../src/entries/grpc.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import type { Server } from '../../src/server/index.ts'
import { loadMcpModule } from '../helpers/load-module.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { modernRequest } from '../helpers/modern-wire.ts'
import { text } from '../helpers/result.ts'
import { echoBytesService, startGrpcServer, type GrpcTestServer } from './grpc-server.ts'

const PROTO = fileURLToPath(new URL('../../fixtures/protos/grpc/extensions.proto', import.meta.url))

/** The request type as the grpc-js server decodes it: its own protobufjs root, extensions and all. */
const root = new protobuf.Root()
// Its import of field_behavior.proto, from the package's protos/, and that file's of descriptor.proto, from protobufjs's copy.
const PACKAGE = fileURLToPath(new URL('../../', import.meta.url))
root.resolvePath = (origin, target) =>
  target.startsWith('google/api/')
    ? `${PACKAGE}protos/${target}`
    : target.startsWith('google/protobuf/')
      ? `${PACKAGE}node_modules/protobufjs/${target}`
      : protobuf.util.path.resolve(origin, target)
root.loadSync(PROTO)
root.resolveAll()
const Note = root.lookupType('ext.v1.Note')

/** Every request the grpc-js server received, decoded (extensions under protobufjs's `.ext.v1.name`). */
const received: Array<Record<string, unknown>> = []
let grpcServer: GrpcTestServer
let backend: GrpcBackend
/** The built package's backend, for the `?mcp` module (which runs on the built runtime). */
let builtBackend: GrpcBackend
const closers: Array<() => unknown> = []

beforeAll(async () => {
  // The server decodes with the root above and answers the request's own bytes.
  const service = echoBytesService('/ext.v1.Notes/Save', (request) =>
    received.push(Note.toObject(Note.decode(request), { longs: String, bytes: String })),
  )
  grpcServer = await startGrpcServer([service])
  backend = grpc(grpcServer.address)
  const built = (await import('unplugin-proto-mcp/grpc')) as { grpc: typeof grpc }
  builtBackend = built.grpc(grpcServer.address)
})
afterAll(async () => {
  for (const close of closers.splice(0).reverse()) await close()
  backend.close()
  builtBackend.close()
  await grpcServer.stop()
})

const servers: Array<[string, () => Promise<Server>]> = [
  ['compiled in process (the command)', async () => createProtoServer(buildServerSpec(PROTO).spec).forward('Notes', backend)],
  ['the ?mcp module', async () => (await loadMcpModule(PROTO)).server.forward('Notes', builtBackend)],
]

/** Serves `server` over HTTP; the URL. */
async function served(server: Server): Promise<string> {
  const http = await server.logging({ logger: false }).serveHttp({ port: 0 })
  closers.push(() => http.close())
  return http.url
}

/** An SDK v2 client on `url`. */
async function clientOf(url: string): Promise<ClientV2> {
  const client = new ClientV2({ name: 'extensions-test', version: '1.0.0' })
  await client.connect(new HttpV2(new URL(url)))
  closers.push(() => client.close())
  return client
}

describe.each(servers)('proto2 extensions of a request, %s', (_, make) => {
  it('tools/list keys them by their dotted full names, described by their declarations', async () => {
    const client = await clientOf(await served(await make()))
    const [tool] = (await client.listTools()).tools
    const properties = tool!.inputSchema.properties as Record<string, { description?: string; type?: unknown }>
    // ext.v1.source is OUTPUT_ONLY (google.api.field_behavior): the options of its declaration.
    expect(Object.keys(properties).sort()).toEqual([
      'ext.v1.Holder.tag',
      'ext.v1.author',
      'ext.v1.blob',
      'ext.v1.detail',
      'ext.v1.views',
      'title',
    ])
    expect(properties['ext.v1.author']!.description).toBe('Who wrote the note.')
    expect(properties['ext.v1.views']!.description).toBe('How often the note was read. (decimal int64)')
    expect(properties['ext.v1.Holder.tag']!.description).toBe('A tag, declared inside a message.')
    expect(properties.title!.description).toBe("The note's title.")
    // The answer is a Note too: its schema keys them the same way, the output-only one with them.
    expect(Object.keys(tool!.outputSchema!.properties as object).sort()).toEqual([...Object.keys(properties), 'ext.v1.source'].sort())
  })

  it('a call that sets them reaches the grpc-js server with them set; the answer carries them (checked by the client against the output schema)', async () => {
    const client = await clientOf(await served(await make()))
    const args = {
      title: 'hello',
      'ext.v1.author': 'ada',
      'ext.v1.views': '42',
      'ext.v1.detail': { level: 3 },
      'ext.v1.blob': 'aGk=',
      'ext.v1.Holder.tag': 'red',
    }
    received.length = 0
    const result = await client.callTool({ name: 'Save', arguments: args })
    expect(result.isError).toBe(false)
    expect(received).toEqual([
      {
        title: 'hello',
        '.ext.v1.author': 'ada',
        '.ext.v1.views': '42',
        '.ext.v1.detail': { level: 3 },
        '.ext.v1.blob': 'aGk=',
        '.ext.v1.Holder.tag': 'red',
      },
    ])
    expect(result.structuredContent).toEqual(args)
  })

  it('a 64-bit extension written past 2^53 is read exactly from the request text', async () => {
    const url = await served(await make())
    received.length = 0
    const answer = await modernRequest(
      url,
      'tools/call',
      { name: 'Save', arguments: { 'ext.v1.views': 0 } },
      { rewrite: (body) => body.replace('"ext.v1.views":0', '"ext.v1.views":9007199254740993') },
    )
    expect(answer.body.result?.isError).toBe(false)
    expect(received).toEqual([{ '.ext.v1.views': '9007199254740993' }])
  })

  it('a bad value of an extension is refused at its key', async () => {
    const server = await make()
    expect(text(await server.call('Save', { 'ext.v1.detail': { level: 'high' } }))).toBe(
      'invalid arguments: /ext.v1.detail/level: "high" is not of type "integer"',
    )
    // Base64 protobufjs would decode to other bytes (`=` inside), refused as for a field of the message.
    expect(text(await server.call('Save', { 'ext.v1.blob': 'AQ=D' }))).toBe('decoding arguments: ext.v1.blob: invalid base64: "AQ=D"')
    // protobufjs's own name for it, or its short name, is no key: refused, the right one offered.
    expect(text(await server.call('Save', { '.ext.v1.author': 'ada' }))).toBe(
      'invalid arguments: /.ext.v1.author: unknown field (did you mean "ext.v1.author"?)',
    )
    expect(text(await server.call('Save', { author: 'ada' }))).toBe(
      'invalid arguments: /author: unknown field (did you mean "ext.v1.author"?)',
    )
  })

  it("protobuf JSON's bracketed key is read as the dotted one (the lenient pass)", async () => {
    received.length = 0
    const result = await (await make()).call('Save', { '[ext.v1.author]': 'ada', '[ext.v1.Holder.tag]': 'red' })
    expect(result.isError).toBe(false)
    expect(received).toEqual([{ '.ext.v1.author': 'ada', '.ext.v1.Holder.tag': 'red' }])
    expect(result.structuredContent).toEqual({ 'ext.v1.author': 'ada', 'ext.v1.Holder.tag': 'red' })
  })
})

describe.each<[string, () => Promise<Server>]>([
  ['compiled in process (the command)', async () => createProtoServer(buildServerSpec(PROTO).spec)],
  ['the ?mcp module', async () => (await loadMcpModule(PROTO)).server],
])('a reply with extensions, %s', (_, make) => {
  it('is encoded with them; one lacking a required field inside an extension, or with an own __proto__ key, is refused', async () => {
    const server = await make()
    const replies: unknown[] = [
      { 'ext.v1.detail': { level: 2 }, 'ext.v1.source': 'web' },
      { 'ext.v1.detail': {} },
      JSON.parse('{"__proto__":{"a":1},"ext.v1.author":"x"}'),
    ]
    server.implement('Notes', { Save: () => replies.shift() as object })
    const saved = await server.call('Save', {})
    expect(saved.structuredContent).toEqual({ 'ext.v1.detail': { level: 2 }, 'ext.v1.source': 'web' })
    expect(text(await server.call('Save', {}))).toBe('encoding response: ext.v1.detail.level: required field not set')
    // An own `__proto__` key stays a key when the keys are renamed: refused as without extensions.
    expect(text(await server.call('Save', {}))).toBe('encoding response: __proto__: unknown field: "__proto__"')
  })
})

/** Extensions keyed by number, packed in an Any, and in a long-running operation's response. */
const EDGES = `syntax = "proto2";
package com.example.platform.notifications.v1alpha1;

import "google/protobuf/any.proto";
import "google/longrunning/operations.proto";

message Note {
  optional string title = 1;
  extensions 100 to 199;
}

extend Note {
  // The display name of the note's first author.
  optional string primary_author_display_name = 100;
}

message Holder {
  optional google.protobuf.Any packed = 1;
}

service Notes {
  rpc Hold(Holder) returns (Holder);
  rpc Export(Note) returns (google.longrunning.Operation) {
    option (google.longrunning.operation_info) = { response_type: "Note" metadata_type: "Note" };
  }
}
`
/** No package: the extension's name is a field's too. */
const CLASH = `syntax = "proto2";

message Note {
  optional string author = 1;
  extensions 100 to 199;
}

extend Note {
  optional string author = 100;
}

service Notes {
  rpc Save(Note) returns (Note);
}
`
/** A custom option, in a file whose request holds descriptor.proto's FieldOptions as data. */
const OPTIONS = `syntax = "proto2";
package opt.v1;

import "google/protobuf/descriptor.proto";

extend google.protobuf.FieldOptions {
  optional string sensitive = 50001;
}

message Req {
  optional google.protobuf.FieldOptions opts = 1;
}

service Svc {
  rpc Put(Req) returns (Req);
}
`
const NAME = 'com.example.platform.notifications.v1alpha1.primary_author_display_name'
const NOTE_URL = 'type.googleapis.com/com.example.platform.notifications.v1alpha1.Note'

describe.each<[string, (file: string) => Promise<Server>]>([
  ['compiled in process (the command)', async (file) => createProtoServer(buildServerSpec(file).spec)],
  ['the ?mcp module', async (file) => (await loadMcpModule(file)).server],
])('extensions whose name cannot be the key, and inside an Any, %s', (_, make) => {
  it(`a name past 64 characters is keyed by its number (${NAME.length} characters here)`, async () => {
    const server = await make(join(writeProtos({ 'edges.proto': EDGES }), 'edges.proto'))
    const save = server.listTools().find((t) => t.name === 'Export')!
    expect(Object.keys(save.inputSchema.properties as object).sort()).toEqual(['extension_100', 'title'])
    expect((save.inputSchema.properties as any).extension_100.description).toBe("The display name of the note's first author.")
  })

  it('inside an Any and in a long-running operation, the extension is keyed as everywhere, both ways', async () => {
    const server = await make(join(writeProtos({ 'edges.proto': EDGES }), 'edges.proto'))
    const seen: unknown[] = []
    server.implement('Notes', {
      Hold: (request: Record<string, unknown>) => (seen.push(request), request),
      Export: () => ({ name: 'operations/1', done: true, response: { '@type': NOTE_URL, title: 't', extension_100: 'ada' } }),
    })
    const packed = { '@type': NOTE_URL, title: 't', extension_100: 'ada' }
    const held = await server.call('Hold', { packed })
    expect(held.isError).toBe(false)
    expect(seen).toEqual([{ packed }])
    expect(held.structuredContent).toEqual({ packed })
    const exported = await server.call('Export', {})
    expect(exported.structuredContent).toEqual({ title: 't', extension_100: 'ada' })
    // The operation's output schema is the Note's: the same keys.
    const tool = server.listTools().find((t) => t.name === 'Export')!
    expect(Object.keys((tool.outputSchema as any).properties).sort()).toEqual(['extension_100', 'title'])
  })

  it('a custom option is no data of the options message it extends: not advertised (the runtime does not read it)', async () => {
    const server = await make(join(writeProtos({ 'options.proto': OPTIONS }), 'options.proto'))
    const put = server.listTools().find((t) => t.name === 'Put')!
    expect(JSON.stringify(put.inputSchema)).not.toContain('opt.v1.sensitive')
    server.implement('Svc', { Put: (request: Record<string, unknown>) => request })
    expect((await server.call('Put', { opts: { deprecated: true } })).structuredContent).toEqual({ opts: { deprecated: true } })
  })

  it("without a package, an extension named as a field is keyed by its number: the field stays the field's", async () => {
    const server = await make(join(writeProtos({ 'clash.proto': CLASH }), 'clash.proto'))
    const save = server.listTools().find((t) => t.name === 'Save')!
    expect(Object.keys(save.inputSchema.properties as object).sort()).toEqual(['author', 'extension_100'])
    server.implement('Notes', { Save: (request: Record<string, unknown>) => request })
    const saved = await server.call('Save', { author: 'field', extension_100: 'extension' })
    expect(saved.structuredContent).toEqual({ author: 'field', extension_100: 'extension' })
  })
})
