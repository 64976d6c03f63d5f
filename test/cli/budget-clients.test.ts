/**
 * The token budget through real clients (docs/profiles.md, "Token budget"):
 * `proto-mcp serve` on Google's Firestore proto (google-proto-files), the
 * SDK v1 and v2 clients over stdio and Streamable HTTP: the list within
 * the budget, the type tool's detail, a deep call that validates whole and
 * reaches the gRPC server, a wrong value below a cut named with its message.
 */
import { join } from 'node:path'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENTS, connectStdio, type McpSession } from '../bundlers/mcp-clients.ts'
import { startGrpcServer, vibeService, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { GOOGLE_PROTOS } from '../corpus/corpus.ts'
import { text } from '../helpers/result.ts'
import { builtCli, startCli } from '../helpers/cli.ts'

let cli: string
let grpcServer: GrpcTestServer
const FIRESTORE = join(GOOGLE_PROTOS, 'google/firestore/v1/firestore.proto')
// The document RPCs only (a start compiles every tool's exact validator; Firestore's whole list is in test/corpus/).
const ARGS = () => [
  'serve',
  FIRESTORE,
  '-I',
  GOOGLE_PROTOS,
  '--grpc',
  grpcServer.address,
  '--include-method',
  'google.firestore.v1.Firestore.*Document*',
]

beforeAll(async () => {
  cli = builtCli()
  // Serves no Firestore: a call that passes validation is answered Unimplemented by the gRPC server itself.
  grpcServer = await startGrpcServer([vibeService()])
}, 180_000)
afterAll(async () => {
  await grpcServer?.stop()
})

/** A map entry list as portable advertises maps. */
const DOCUMENT = {
  name: 'projects/p/databases/d/documents/c/x',
  fields: [{ key: 'a', value: { mapValue: { fields: [{ key: 'b', value: { integerValue: '5' } }] } } }],
}

async function drive(session: Pick<McpSession, 'listTools' | 'callTool'>): Promise<void> {
  const { tools } = await session.listTools()
  expect(tools.map((t) => t.name)).toEqual([
    'GetDocument',
    'ListDocuments',
    'UpdateDocument',
    'DeleteDocument',
    'BatchGetDocuments',
    'CreateDocument',
    'describe_type',
  ])
  for (const tool of tools) {
    const tokens = countTokens(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
    expect(tokens, tool.name).toBeLessThanOrEqual(1500)
  }
  const detail = await session.callTool('describe_type', { type: 'google.firestore.v1.Document' })
  expect(JSON.parse(text(detail))).toMatchObject({
    type: 'google.firestore.v1.Document',
    schema: { properties: { fields: { type: 'array' } } },
  })
  const deep = await session.callTool('UpdateDocument', { document: DOCUMENT })
  expect(text(deep)).toMatch(/^rpc error: code = Unimplemented/)
  const bad = await session.callTool('UpdateDocument', {
    document: { ...DOCUMENT, fields: [{ key: 'a', value: { mapValue: { fields: [{ key: 'b', value: { integerValue: 'five' } }] } } }] },
  })
  expect(text(bad)).toMatch(
    /^invalid arguments: \/document\/fields\/0\/value\/mapValue\/fields\/0\/value\/integerValue: "five" does not match .* \(\/document(\/[\w*/0-9]+)? is google\.firestore\.v1\.\w+; schema: describe_type\)$/,
  )
}

describe.each(CLIENTS)('the %s client over stdio', (flavour) => {
  it('lists Firestore within the budget, gives type detail, validates a deep call whole', async () => {
    const session = await connectStdio(flavour, cli, ARGS())
    try {
      await drive(session)
    } catch (error) {
      throw new Error(`${(error as Error).message}\nserver stderr:\n${session.stderr()}`, { cause: error })
    } finally {
      await session.close()
    }
  }, 120_000)
})

describe('over Streamable HTTP', () => {
  it.each(['sdk-v1', 'sdk-v2'] as const)(
    'the %s client: the same list, detail and deep call',
    async (flavour) => {
      const running = await startCli(cli, [...ARGS(), '--http', '0'])
      const { child } = running
      const url = new URL(running.url)
      const exited = running.exited
      const info = { name: 'budget-http', version: '1.0.0' }
      try {
        if (flavour === 'sdk-v1') {
          const client = new ClientV1(info)
          await client.connect(new HttpV1(url))
          await drive({
            listTools: () => client.listTools(),
            callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as { content: unknown[] },
          })
          await client.close()
        } else {
          const client = new Client(info)
          await client.connect(new StreamableHTTPClientTransport(url))
          await drive({
            listTools: () => client.listTools(),
            callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as { content: unknown[] },
          })
          await client.close()
        }
      } finally {
        child.kill('SIGTERM')
      }
      expect(await exited).toBe(0)
    },
    120_000,
  )
})
