/**
 * Pagination of the list methods (`pageSize`, `nextCursor`, an invalid
 * cursor is `-32602`) and the content types of hand-written tools and
 * prompts (text, image, audio, embedded resource, resource link, mixed),
 * through SDK v1 and v2 clients over HTTP, both eras; the SDK clients check
 * every result against their own schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { PNG, WAV } from '../conformance/everything.ts'
import { Closer } from '../helpers/closer.ts'

const info = { name: 'pagination-test', version: '0.0.0' }
const EMBEDDED = { type: 'resource', resource: { uri: 'test://embedded', mimeType: 'text/plain', text: 'inside' } }
const LINK = { type: 'resource_link', uri: 'test://linked', name: 'linked', mimeType: 'text/plain' }
const MIXED = [
  { type: 'text', text: 'mixed' },
  { type: 'image', data: PNG, mimeType: 'image/png' },
  { type: 'audio', data: WAV, mimeType: 'audio/wav' },
  EMBEDDED,
  LINK,
]

let http: HttpHandle
const closers = new Closer()

beforeAll(async () => {
  let builder = Server.builder('paged').pageSize(2)
  for (const n of [1, 2, 3, 4, 5])
    builder = builder.tool({ name: `T${n}`, inputSchema: { type: 'object' } }, () => ({ content: [{ type: 'text', text: `t${n}` }] }))
  for (const n of [1, 2, 3]) builder = builder.resource({ uri: `r://${n}`, name: `r${n}` }, () => `r${n}`)
  for (const n of [1, 2, 3]) builder = builder.resourceTemplate({ uriTemplate: `t${n}://{x}`, name: `t${n}` }, () => '')
  builder = builder
    .tool({ name: 'Mixed', inputSchema: { type: 'object' } }, () => ({ content: MIXED }))
    .prompt({ name: 'Mixed' }, () => ({ messages: MIXED.map((content) => ({ role: 'user' as const, content })) }))
  http = await builder.build().serveHttp({ port: 0 })
})

afterAll(async () => {
  await closers.close()
  await http?.close()
})

type AnyClient = ClientV1 | ClientV2

async function connect(kind: 'v1' | 'v2 legacy' | 'v2 auto'): Promise<AnyClient> {
  const client = kind === 'v1' ? new ClientV1(info) : new ClientV2(info, kind === 'v2 auto' ? { versionNegotiation: { mode: 'auto' } } : {})
  await client.connect(kind === 'v1' ? new HttpV1(new URL(http.url)) : (new HttpV2(new URL(http.url)) as never))
  closers.push(() => client.close())
  return client
}

/** Every page of one list method, following `nextCursor`. */
async function allPages(
  list: (cursor?: string) => Promise<{ nextCursor?: string; [key: string]: unknown }>,
  key: string,
): Promise<string[][]> {
  const pages: string[][] = []
  let cursor: string | undefined
  do {
    const result = await list(cursor)
    pages.push((result[key] as Array<{ name: string }>).map((item) => item.name))
    cursor = result.nextCursor
  } while (cursor !== undefined)
  return pages
}

const KINDS = ['v1', 'v2 legacy', 'v2 auto'] as const

describe('pagination', () => {
  it.each(KINDS)('%s: every list method pages at pageSize and the cursors reach every item once', async (kind) => {
    const client = (await connect(kind)) as ClientV1
    // SDK v1 shows the pages; v2's list methods follow nextCursor themselves and answer every item at once.
    const paged = (pages: string[][]): string[][] => (kind === 'v1' ? pages : [pages.flat()])
    expect(await allPages((cursor) => client.listTools(cursor === undefined ? {} : { cursor }), 'tools')).toEqual(
      paged([
        ['T1', 'T2'],
        ['T3', 'T4'],
        ['T5', 'Mixed'],
      ]),
    )
    expect(await allPages((cursor) => client.listResources(cursor === undefined ? {} : { cursor }), 'resources')).toEqual(
      paged([['r1', 'r2'], ['r3']]),
    )
    expect(await allPages((cursor) => client.listResourceTemplates(cursor === undefined ? {} : { cursor }), 'resourceTemplates')).toEqual(
      paged([['t1', 't2'], ['t3']]),
    )
    expect(await allPages((cursor) => client.listPrompts(cursor === undefined ? {} : { cursor }), 'prompts')).toEqual([['Mixed']])
  })

  it.each(KINDS)('%s: a cursor this server did not give is -32602', async (kind) => {
    const client = (await connect(kind)) as ClientV1
    await expect(client.listTools({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('invalid cursor "not-a-cursor"'),
    })
    await expect(client.listPrompts({ cursor: Buffer.from('o-1').toString('base64url') })).rejects.toMatchObject({ code: -32602 })
  })

  it('a server without pageSize answers every item on one page; pageSize must be a positive integer', async () => {
    const server = Server.builder('flat')
      .tool({ name: 'A', inputSchema: { type: 'object' } }, () => ({ content: [] }))
      .build()
    const flat = await server.serveHttp({ port: 0 })
    closers.push(() => flat.close())
    const client = new ClientV1(info)
    await client.connect(new HttpV1(new URL(flat.url)))
    closers.push(() => client.close())
    const listed = await client.listTools()
    expect(listed.tools.map((t) => t.name)).toEqual(['A'])
    expect(listed.nextCursor).toBeUndefined()
    expect(() => Server.builder('x').pageSize(0)).toThrow('pageSize must be a positive integer, got 0')
  })
})

describe('content types', () => {
  it.each(KINDS)('%s: a tool returns text, image, audio, an embedded resource and a resource link as given', async (kind) => {
    const client = (await connect(kind)) as ClientV1
    const result = await client.callTool({ name: 'Mixed', arguments: {} })
    expect(result.content).toEqual(MIXED)
    expect(result.isError ?? false).toBe(false)
  })

  it.each(KINDS)('%s: a prompt returns the same content types in its messages', async (kind) => {
    const client = (await connect(kind)) as ClientV1
    const result = await client.getPrompt({ name: 'Mixed' })
    expect(result.messages.map((m) => m.content)).toEqual(MIXED)
  })
})
