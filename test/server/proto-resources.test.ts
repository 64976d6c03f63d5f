/**
 * A `?mcp` module's resource templates (from `google.api.resource`, built
 * into the module: docs/guide/resources.md) under the tools' scopes and
 * auth: a read is a call of the Get RPC's tool as the caller, so a token
 * without the tool's scope cannot read, and with it reads what the backend
 * answers; a completion is a List call as the caller. SDK v1 and v2 clients
 * over HTTP with tokens from a real OpenID provider on loopback.
 */
import { join } from 'node:path'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { Closer } from '../helpers/closer.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { loadMcpModule } from '../helpers/load-module.ts'
import { startOidcProvider, type OidcProvider } from '../helpers/oidc-provider.ts'

const PROTO = `syntax = "proto3";
package shelf.v1;
import "google/api/resource.proto";

// A book on a shelf.
message Book {
  option (google.api.resource) = { type: "library.example.com/Book" pattern: "shelves/{shelf}/books/{book}" };
  string name = 1;
  string title = 2;
}
message GetBookRequest { string name = 1; }
message ListBooksRequest { string parent = 1; int32 page_size = 2; }
message ListBooksResponse { repeated Book books = 1; }
service Library {
  rpc GetBook(GetBookRequest) returns (Book);
  rpc ListBooks(ListBooksRequest) returns (ListBooksResponse);
}
`
const BOOKS = ['shelves/s1/books/dune', 'shelves/s1/books/emma', 'shelves/s2/books/ulysses']

let oidc: OidcProvider
let http: HttpHandle
const closers = new Closer()
const calls: string[] = []

beforeAll(async () => {
  oidc = await startOidcProvider()
  const file = join(writeProtos({ 'library.proto': PROTO }), 'library.proto')
  const { server } = await loadMcpModule(file, {
    methodScopes: { 'shelf.v1.Library.GetBook': 'notes.write', 'shelf.v1.Library.ListBooks': 'notes.write' },
    listResources: { under: ['shelves/s1', 'projects/p1'] },
  })
  server.logging({ logger: false }).implement('shelf.v1.Library', {
    GetBook: (request: { name: string }) => {
      calls.push(`GetBook ${request.name}`)
      return { name: request.name, title: request.name.split('/').at(-1)!.toUpperCase() }
    },
    ListBooks: (request: { parent: string }) => {
      calls.push(`ListBooks ${request.parent}`)
      return { books: BOOKS.filter((b) => b.startsWith(`${request.parent}/`)).map((name) => ({ name })) }
    },
  })
  http = await server.serveHttp({ port: 0, auth: { issuer: oidc.issuer, scopes: ['mcp'] } })
}, 60_000)

afterAll(async () => {
  await closers.close()
  await http?.close()
  await oidc?.close()
})

async function connect(kind: 'v1' | 'v2 legacy' | 'v2 2026', client: 'service' | 'reader'): Promise<ClientV1 | ClientV2> {
  const token = await oidc.token(client, http.url)
  const requestInit = { headers: { authorization: `Bearer ${token}` } }
  const info = { name: 'proto-resources', version: '1.0.0' }
  if (kind === 'v1') {
    const c = new ClientV1(info)
    await c.connect(new HttpV1(new URL(http.url), { requestInit }))
    closers.push(() => c.close())
    return c
  }
  const c = new ClientV2(info, kind === 'v2 2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {})
  await c.connect(new HttpV2(new URL(http.url), { requestInit }))
  closers.push(() => c.close())
  return c
}

describe.each(['v1', 'v2 legacy', 'v2 2026'] as const)('%s', (kind) => {
  it('a caller with the Get tool scope reads and completes through the tools', async () => {
    const client = await connect(kind, 'service')
    const templates = (await client.listResourceTemplates()).resourceTemplates
    expect(templates).toEqual([
      {
        uriTemplate: 'library://shelves/{shelf}/books/{book}',
        name: 'Book',
        title: 'Book',
        description: 'A book on a shelf.',
        mimeType: 'application/json',
      },
    ])
    calls.length = 0
    const read = await client.readResource({ uri: 'library://shelves/s1/books/dune' })
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ name: 'shelves/s1/books/dune', title: 'DUNE' })
    const completed = await client.complete({
      ref: { type: 'ref/resource', uri: 'library://shelves/{shelf}/books/{book}' },
      argument: { name: 'book', value: 'e' },
      context: { arguments: { shelf: 's1' } },
    })
    expect(completed.completion.values).toEqual(['emma'])
    expect(calls).toEqual(['GetBook shelves/s1/books/dune', 'ListBooks shelves/s1'])
  })

  it('a caller without it cannot read (the tool is hidden from it), and the backend is never called', async () => {
    const client = await connect(kind, 'reader')
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([])
    calls.length = 0
    await expect(client.readResource({ uri: 'library://shelves/s1/books/dune' })).rejects.toThrow(/GetBook/)
    // Nor list: the List tool is hidden from it too, so its listing is empty and the rest of the answer stands.
    expect((await client.listResources()).resources.filter((r) => r.uri.startsWith('library://'))).toEqual([])
    expect(calls).toEqual([])
  })
})

it("listResources lists under the parents of the pattern's shape only (projects/p1 is none of a book's)", async () => {
  const client = await connect('v2 2026', 'service')
  calls.length = 0
  expect((await client.listResources()).resources.filter((r) => r.uri.startsWith('library://'))).toEqual([
    { uri: 'library://shelves/s1/books/dune', name: 'shelves/s1/books/dune', title: 'Book', mimeType: 'application/json' },
    { uri: 'library://shelves/s1/books/emma', name: 'shelves/s1/books/emma', title: 'Book', mimeType: 'application/json' },
  ])
  expect(calls).toEqual(['ListBooks shelves/s1'])
})

it('a URI names its resource percent-decoded; a query, a fragment or a segment with a slash in it names none', async () => {
  // SDK v1: the initialize era's -32002 as the server wrote it.
  const client = await connect('v1', 'service')
  calls.length = 0
  const read = await client.readResource({ uri: 'library://shelves/s%201/books/du%6Ee' })
  expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ name: 'shelves/s 1/books/dune', title: 'DUNE' })
  for (const uri of [
    'library://shelves/s1/books/dune?x=1',
    'library://shelves/s1/books/dune#frag',
    'library://shelves/s%2F1/books/dune',
    'library://shelves/s1/books/%E0%A4%A',
  ]) {
    await expect(client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32002 })
  }
  expect(calls).toEqual(['GetBook shelves/s 1/books/dune'])
})

describe('the templates go with the tools', () => {
  const file = () => join(writeProtos({ 'library.proto': PROTO }), 'library.proto')
  const impl = {
    GetBook: (request: { name: string }) => ({ name: request.name, title: 'T' }),
    ListBooks: () => ({ books: [{ name: 'shelves/s1/books/dune' }] }),
  }
  async function v2(url: string): Promise<ClientV2> {
    const client = new ClientV2({ name: 'carry', version: '1.0.0' })
    await client.connect(new HttpV2(new URL(url)))
    closers.push(() => client.close())
    return client
  }

  it('include() carries them, reading through the included tools', async () => {
    const { server: library } = await loadMcpModule(file())
    library.implement('shelf.v1.Library', impl)
    const outer = Server.builder('outer').include(library).build()
    const served = await outer.logging({ logger: false }).serveHttp({ port: 0 })
    closers.push(() => served.close())
    const client = await v2(served.url)
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      'library://shelves/{shelf}/books/{book}',
    ])
    const read = await client.readResource({ uri: 'library://shelves/s1/books/dune' })
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ name: 'shelves/s1/books/dune', title: 'T' })
  })

  it('replaceTools() swaps them with the tools (hot reload), a template added by hand stays', async () => {
    const { server } = await loadMcpModule(file())
    server.implement('shelf.v1.Library', impl)
    server.handle().addResourceTemplate({ uriTemplate: 'notes://{id}', name: 'note' }, (_uri, { id }) => `note ${String(id)}`)
    const served = await server.logging({ logger: false }).serveHttp({ port: 0 })
    closers.push(() => served.close())
    const { server: next } = await loadMcpModule(file(), { resourceScheme: 'books' })
    server.handle().replaceTools(next)
    const client = await v2(served.url)
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual([
      'books://shelves/{shelf}/books/{book}',
      'notes://{id}',
    ])
    const read = await client.readResource({ uri: 'books://shelves/s1/books/dune' })
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({ name: 'shelves/s1/books/dune', title: 'T' })
  })
})

it('a List that fails leaves its resources out of resources/list and says why in the log; a failed read or completion is logged as well', async () => {
  const file = join(writeProtos({ 'library.proto': PROTO }), 'library.proto')
  const { server } = await loadMcpModule(file, { listResources: { under: ['shelves/s1', 'shelves/s2'] } })
  const warnings: string[] = []
  server.logging({ logger: { warn: (message) => warnings.push(message) } }).implement('shelf.v1.Library', {
    GetBook: (request: { name: string }) => {
      if (request.name.endsWith('/lost')) throw new Error('no such book')
      return { name: request.name, title: 'T' }
    },
    ListBooks: (request: { parent: string }) => {
      if (request.parent === 'shelves/s2') throw new Error('shelf s2 is being moved')
      return { books: BOOKS.filter((b) => b.startsWith(`${request.parent}/`)).map((name) => ({ name })) }
    },
  })
  const served = await server.serveHttp({ port: 0 })
  closers.push(() => served.close())
  const client = new ClientV2({ name: 'failing-list', version: '1.0.0' })
  await client.connect(new HttpV2(new URL(served.url)))
  closers.push(() => client.close())
  expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
    'library://shelves/s1/books/dune',
    'library://shelves/s1/books/emma',
  ])
  await expect(client.readResource({ uri: 'library://shelves/s1/books/lost' })).rejects.toThrow(/no such book/)
  const completed = await client.complete({
    ref: { type: 'ref/resource', uri: 'library://shelves/{shelf}/books/{book}' },
    argument: { name: 'book', value: '' },
    context: { arguments: { shelf: 's2' } },
  })
  expect(completed.completion.values).toEqual([])
  // Each names the method it served, not the URI (the resource's name stays out of the log, as a call's arguments do).
  expect(warnings.filter((w) => w.includes('failed'))).toEqual([
    expect.stringMatching(/call to tool "ListBooks" for resources\/list failed: .*shelf s2 is being moved/),
    expect.stringMatching(/call to tool "GetBook" for resources\/read failed: .*no such book/),
    expect.stringMatching(/call to tool "ListBooks" for completion\/complete failed: .*shelf s2 is being moved/),
  ])
  expect(warnings.join('\n')).not.toContain('library://')
})
