/**
 * Resource templates from `google.api.resource` in a `?mcp` module: Pub/Sub's
 * proto built by the plugin (Rolldown) with `resourceScheme` and
 * `listResources`, forwarded to a grpc-js server on loopback, and read,
 * completed and listed by SDK v1 and v2 clients over stdio and HTTP in both
 * eras, as the command serves them (test/descriptors/proto-resources.test.ts).
 */
import { join } from 'node:path'
import * as grpcJs from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js'
import { Client as ClientV2, ResourceNotFoundError } from '@modelcontextprotocol/client'
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { GOOGLE_PROTOS } from '../corpus/corpus.ts'
import { startCli } from '../helpers/cli.ts'
import { startGrpcServer, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { httpSession } from '../descriptors/set-helpers.ts'
import { bundle, createWorkspace, installRuntimePackage } from './harness.ts'
import { CLIENTS, type ClientName } from './mcp-clients.ts'

const PUBSUB = join(GOOGLE_PROTOS, 'google/pubsub/v1/pubsub.proto')
const TOPICS = ['projects/p1/topics/orders', 'projects/p1/topics/outbox', 'projects/p2/topics/other']

let build: string
let backend: GrpcTestServer
const gets: string[] = []

beforeAll(async () => {
  const definition = protoLoader.loadSync(PUBSUB, {
    includeDirs: [GOOGLE_PROTOS],
    keepCase: false,
    longs: String,
    enums: String,
    oneofs: true,
  })['google.pubsub.v1.Publisher'] as grpcJs.ServiceDefinition
  backend = await startGrpcServer([
    {
      definition,
      impl: {
        GetTopic: (call: grpcJs.ServerUnaryCall<{ topic: string }, unknown>, done: grpcJs.sendUnaryData<unknown>) => {
          gets.push(call.request.topic)
          if (TOPICS.includes(call.request.topic)) done(null, { name: call.request.topic, labels: { team: 'billing' } })
          else done({ code: grpcJs.status.NOT_FOUND, details: 'no such topic' })
        },
        ListTopics: (call: grpcJs.ServerUnaryCall<{ project: string; pageSize: number }, unknown>, done: grpcJs.sendUnaryData<unknown>) =>
          done(null, {
            topics: TOPICS.filter((t) => t.startsWith(`${call.request.project}/`))
              .slice(0, call.request.pageSize || undefined)
              .map((name) => ({ name })),
          }),
      },
    },
  ])
  const ws = createWorkspace('resources')
  await installRuntimePackage(ws)
  const out = await bundle('rolldown', join(ws, 'fixtures', 'apps', 'resources', 'main.mjs'), join(ws, 'out', 'rolldown'), {
    importPaths: [GOOGLE_PROTOS],
    methods: { include: ['google.pubsub.v1.Publisher.*Topic*'] },
    resourceScheme: 'gcp-pubsub',
    listResources: { under: ['projects/p1'], max: 10 },
  })
  build = out.file
}, 180_000)
afterAll(async () => {
  await backend?.stop()
})

type AnyClient = ClientV1 | ClientV2

/** A `flavour` client on `node <build> <backend>` over stdio. */
async function stdio(flavour: ClientName): Promise<AnyClient> {
  const params = { command: process.execPath, args: [build, backend.address], stderr: 'pipe' as const }
  const info = { name: 'resources-stdio', version: '1.0.0' }
  if (flavour === 'sdk-v1') {
    const client = new ClientV1(info)
    await client.connect(new StdioV1(params))
    return client
  }
  const client = new ClientV2(info, flavour === 'sdk-v2-2026' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {})
  await client.connect(new StdioV2(params))
  return client
}

async function check(client: AnyClient, flavour: ClientName): Promise<void> {
  if (flavour === 'sdk-v2-2026') expect((client as ClientV2).getNegotiatedProtocolVersion()).toBe('2026-07-28')
  const templates = (await client.listResourceTemplates()).resourceTemplates
  expect(templates.find((t) => t.uriTemplate === 'gcp-pubsub://projects/{project}/topics/{topic}')).toMatchObject({
    name: 'Topic',
    mimeType: 'application/json',
  })
  const before = gets.length
  const read = await client.readResource({ uri: 'gcp-pubsub://projects/p1/topics/orders' })
  expect(read.contents).toEqual([
    {
      uri: 'gcp-pubsub://projects/p1/topics/orders',
      mimeType: 'application/json',
      text: JSON.stringify({ name: 'projects/p1/topics/orders', labels: { team: 'billing' } }),
    },
  ])
  expect(gets.slice(before)).toEqual(['projects/p1/topics/orders'])
  const completed = await client.complete({
    ref: { type: 'ref/resource', uri: 'gcp-pubsub://projects/{project}/topics/{topic}' },
    argument: { name: 'topic', value: 'ou' },
    context: { arguments: { project: 'p1' } },
  })
  expect(completed.completion.values).toEqual(['outbox'])
  // The type tool's resources are listed too (the token budget cut Pub/Sub's schemas): the topics are the gcp-pubsub ones.
  const listed = (await client.listResources()).resources.map((r) => r.uri).filter((uri) => uri.startsWith('gcp-pubsub://'))
  expect(listed).toEqual(['gcp-pubsub://projects/p1/topics/orders', 'gcp-pubsub://projects/p1/topics/outbox'])
  await expect(client.readResource({ uri: 'gcp-pubsub://projects/p1/topics/missing' })).rejects.toThrow(/NOT_FOUND|no such topic/)
  const nowhere = 'pubsub://projects/p1/topics/orders'
  if (client instanceof ClientV2) await expect(client.readResource({ uri: nowhere })).rejects.toBeInstanceOf(ResourceNotFoundError)
  else await expect(client.readResource({ uri: nowhere })).rejects.toMatchObject({ code: -32002, data: { uri: nowhere } })
}

describe('a bundled ?mcp module serves the resource templates of its proto', () => {
  for (const flavour of CLIENTS) {
    it(`over stdio with ${flavour}`, async () => {
      const client = await stdio(flavour)
      try {
        await check(client, flavour)
      } finally {
        await client.close()
      }
    }, 60_000)

    it(`over HTTP with ${flavour}`, async () => {
      const running = await startCli(build, [backend.address, 'http'])
      try {
        const { client } = await httpSession(flavour, running.url)
        try {
          await check(client as AnyClient, flavour)
        } finally {
          await client.close()
        }
      } finally {
        await running.stop()
      }
    }, 60_000)
  }
})
