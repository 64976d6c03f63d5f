/**
 * Resource templates from `google.api.resource` (docs/guide/resources.md):
 * Pub/Sub's Topic and Firestore's Database, served by `proto-mcp serve`
 * from Google's protos, read through their Get RPCs on a grpc-js server on
 * loopback, completed through their List RPCs, to SDK v1 and v2 clients
 * over stdio and HTTP in both eras; a URI no template matches is the server's resource-not-found error.
 * `--resource-scheme` names the scheme, `--list-resources-under` lists through the List RPC.
 */
import { join } from 'node:path'
import * as grpcJs from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as ClientV2, ResourceNotFoundError } from '@modelcontextprotocol/client'
import { CLIENTS } from '../bundlers/mcp-clients.ts'
import { builtCli, runCli } from '../helpers/cli.ts'
import { GOOGLE_PROTOS } from '../corpus/corpus.ts'
import { startGrpcServer, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { httpSession, serveHttp, sharedServe, stdioSession } from './set-helpers.ts'

const PUBSUB = join(GOOGLE_PROTOS, 'google/pubsub/v1/pubsub.proto')
const FIRESTORE_ADMIN = join(GOOGLE_PROTOS, 'google/firestore/admin/v1/firestore_admin.proto')

const definition = (file: string, service: string): grpcJs.ServiceDefinition =>
  protoLoader.loadSync(file, {
    includeDirs: [GOOGLE_PROTOS],
    keepCase: false,
    longs: String,
    enums: String,
    defaults: false,
    oneofs: true,
  })[service] as grpcJs.ServiceDefinition

const TOPICS = ['projects/p1/topics/orders', 'projects/p1/topics/outbox', 'projects/p2/topics/other']
const DATABASES = ['projects/p1/databases/(default)', 'projects/p1/databases/audit']
const notFound = { code: grpcJs.status.NOT_FOUND, details: 'no such resource' }

let cli: string
let backend: GrpcTestServer
const gets: string[] = []

beforeAll(async () => {
  cli = builtCli()
  backend = await startGrpcServer([
    {
      definition: definition(PUBSUB, 'google.pubsub.v1.Publisher'),
      impl: {
        GetTopic: (call: grpcJs.ServerUnaryCall<{ topic: string }, unknown>, done: grpcJs.sendUnaryData<unknown>) => {
          gets.push(call.request.topic)
          if (TOPICS.includes(call.request.topic)) done(null, { name: call.request.topic, labels: { team: 'billing' } })
          else done(notFound)
        },
        ListTopics: (call: grpcJs.ServerUnaryCall<{ project: string }, unknown>, done: grpcJs.sendUnaryData<unknown>) =>
          done(null, { topics: TOPICS.filter((t) => t.startsWith(`${call.request.project}/`)).map((name) => ({ name })) }),
      },
    },
    {
      definition: definition(FIRESTORE_ADMIN, 'google.firestore.admin.v1.FirestoreAdmin'),
      impl: {
        GetDatabase: (call: grpcJs.ServerUnaryCall<{ name: string }, unknown>, done: grpcJs.sendUnaryData<unknown>) => {
          gets.push(call.request.name)
          if (DATABASES.includes(call.request.name)) done(null, { name: call.request.name, locationId: 'eur3', type: 'FIRESTORE_NATIVE' })
          else done(notFound)
        },
        ListDatabases: (call: grpcJs.ServerUnaryCall<{ parent: string }, unknown>, done: grpcJs.sendUnaryData<unknown>) =>
          done(null, { databases: DATABASES.filter((d) => d.startsWith(`${call.request.parent}/`)).map((name) => ({ name })) }),
      },
    },
  ])
}, 180_000)
afterAll(async () => {
  await backend?.stop()
})

const CASES = [
  {
    api: 'Pub/Sub',
    args: () => [
      PUBSUB,
      '-I',
      GOOGLE_PROTOS,
      '--grpc',
      backend.address,
      '--include-method',
      'google.pubsub.v1.Publisher.*Topic',
      '--include-method',
      'google.pubsub.v1.Publisher.ListTopics',
    ],
    template: 'pubsub://projects/{project}/topics/{topic}',
    uri: 'pubsub://projects/p1/topics/orders',
    read: { name: 'projects/p1/topics/orders', labels: { team: 'billing' } },
    complete: { name: 'topic', value: 'o', project: 'p1', values: ['orders', 'outbox'] },
  },
  {
    api: 'Firestore',
    args: () => [
      FIRESTORE_ADMIN,
      '-I',
      GOOGLE_PROTOS,
      '--grpc',
      backend.address,
      '--include-method',
      'google.firestore.admin.v1.FirestoreAdmin.*Database*',
    ],
    template: 'firestore://projects/{project}/databases/{database}',
    uri: 'firestore://projects/p1/databases/audit',
    read: { name: 'projects/p1/databases/audit', locationId: 'eur3', type: 'FIRESTORE_NATIVE' },
    complete: { name: 'database', value: '', project: 'p1', values: ['(default)', 'audit'] },
  },
] as const

type AnyClient = Awaited<ReturnType<typeof stdioSession>>['client']

/** What every client must see of `c`'s templates. */
async function check(client: AnyClient, c: (typeof CASES)[number]): Promise<void> {
  const templates = (await client.listResourceTemplates()).resourceTemplates
  const template = templates.find((t) => t.uriTemplate === c.template)
  expect(template, JSON.stringify(templates)).toMatchObject({ mimeType: 'application/json' })
  // Only the type tool's resources are listed: no resource of the API is (listing a whole API is not free).
  const scheme = c.template.slice(0, c.template.indexOf('://') + 3)
  expect((await client.listResources()).resources.filter((r) => r.uri.startsWith(scheme))).toEqual([])
  const before = gets.length
  const read = await client.readResource({ uri: c.uri })
  expect(read.contents).toHaveLength(1)
  expect(read.contents[0]).toMatchObject({ uri: c.uri, mimeType: 'application/json' })
  expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual(c.read)
  expect(gets.slice(before)).toEqual([c.read.name])
  const completed = await client.complete({
    ref: { type: 'ref/resource', uri: c.template },
    argument: { name: c.complete.name, value: c.complete.value },
    context: { arguments: { project: c.complete.project } },
  })
  expect(completed.completion.values).toEqual(c.complete.values)
  // A URI no resource or template matches: -32002 to an initialize-era client (SDK v1 shows the code), -32602 from
  // 2026-07-28 (SEP-2164); SDK v2 makes either its ResourceNotFoundError (test/server/resource-features.test.ts reads the wire).
  const nowhere = 'nowhere://projects/p1/things/x'
  if (client instanceof ClientV2) {
    await expect(client.readResource({ uri: nowhere })).rejects.toBeInstanceOf(ResourceNotFoundError)
    await expect(client.readResource({ uri: nowhere })).rejects.toMatchObject({ uri: nowhere })
  } else await expect(client.readResource({ uri: nowhere })).rejects.toMatchObject({ code: -32002, data: { uri: nowhere } })
  await expect(client.readResource({ uri: c.uri.replace(/[^/]+$/, 'missing') })).rejects.toThrow(/NOT_FOUND|no such resource/)
}

describe.each(CASES)('$api resource types as resource templates', (c) => {
  const http = sharedServe(
    () => cli,
    () => [...c.args()],
  )
  afterAll(async () => expect(await http.stop()).toBe(0))

  for (const flavour of CLIENTS) {
    it(`over stdio with ${flavour}`, async () => {
      const { client, version } = await stdioSession(flavour, cli, [...c.args()])
      try {
        await check(client, c)
        if (flavour === 'sdk-v2-2026') expect(version()).toBe('2026-07-28')
      } finally {
        await client.close()
      }
    }, 60_000)

    it(`over HTTP with ${flavour}`, async () => {
      const { client, version } = await httpSession(flavour, await http.url())
      try {
        await check(client as AnyClient, c)
        if (flavour === 'sdk-v2-2026') expect(version()).toBe('2026-07-28')
      } finally {
        await client.close()
      }
    }, 60_000)
  }
})

const LISTED = () => [
  PUBSUB,
  '-I',
  GOOGLE_PROTOS,
  '--grpc',
  backend.address,
  '--include-method',
  'google.pubsub.v1.Publisher.*Topic*',
  '--resource-scheme',
  'pubsub=gcp-pubsub',
  '--list-resources-under',
  'projects/p1',
  '--list-resources-under',
  'organizations/o1',
]

describe('--resource-scheme and --list-resources-under', () => {
  async function listedCheck(client: AnyClient): Promise<void> {
    const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)
    expect(templates).toContain('gcp-pubsub://projects/{project}/topics/{topic}')
    expect(templates.some((t) => t.startsWith('pubsub://'))).toBe(false)
    // The topics of p1 only (organizations/o1 is no parent of a topic), through ListTopics as the caller.
    const listed = (await client.listResources()).resources.filter((r) => r.uri.startsWith('gcp-pubsub://'))
    expect(listed).toEqual([
      { uri: 'gcp-pubsub://projects/p1/topics/orders', name: 'projects/p1/topics/orders', title: 'Topic', mimeType: 'application/json' },
      { uri: 'gcp-pubsub://projects/p1/topics/outbox', name: 'projects/p1/topics/outbox', title: 'Topic', mimeType: 'application/json' },
    ])
    const read = await client.readResource({ uri: listed[1]!.uri })
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toEqual({
      name: 'projects/p1/topics/outbox',
      labels: { team: 'billing' },
    })
  }

  for (const flavour of CLIENTS) {
    it(`over stdio with ${flavour}`, async () => {
      const { client } = await stdioSession(flavour, cli, LISTED())
      try {
        await listedCheck(client)
      } finally {
        await client.close()
      }
    }, 60_000)
  }

  it('over HTTP with sdk-v2-2026, --list-resources-max capping the answer', async () => {
    const served = await serveHttp(cli, [...LISTED(), '--list-resources-max', '1'])
    const { client } = await httpSession('sdk-v2-2026', served.url)
    try {
      const listed = (await client.listResources()).resources.filter((r) => r.uri.startsWith('gcp-pubsub://'))
      expect(listed.map((r) => r.uri)).toEqual(['gcp-pubsub://projects/p1/topics/orders'])
    } finally {
      await client.close()
    }
    expect(await served.stop()).toBe(0)
  }, 60_000)

  it('a bad scheme is a usage error naming the flag', async () => {
    const run = await runCli(cli, ['serve', PUBSUB, '-I', GOOGLE_PROTOS, '--grpc', '127.0.0.1:1', '--resource-scheme', '9pubsub'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--resource-scheme must be a URI scheme')
    const max = await runCli(cli, ['serve', PUBSUB, '-I', GOOGLE_PROTOS, '--grpc', '127.0.0.1:1', '--list-resources-max', '5'])
    expect(max.code).toBe(2)
    expect(max.stderr).toContain('--list-resources-max needs --list-resources')
  }, 60_000)
})
