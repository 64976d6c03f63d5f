/**
 * End to end: `tools/call` from an SDK v2 `Client` over the SDK's in-process
 * `InMemoryTransport`, our generated server vs a hand-written `McpServer`
 * tool with equivalent zod schemas, on the medium request (SetVibeDetails).
 * Both list an output schema and answer text plus `structuredContent`, as
 * our default profile does.
 *
 * Our side: the generated module's `Server`, connected with its own
 * `server.connect(transport)` (the SDK instance every transport gets).
 */
import { Client, InMemoryTransport } from '@modelcontextprotocol/client'
import { McpServer } from '@modelcontextprotocol/server'
import * as z from 'zod'
import { CASES, EXAMPLE_PROTO, backend } from './lib/example.mjs'
import { interleave, record } from './lib/measure.mjs'
import { writeModule } from './lib/module.mjs'

const int64 = z.union([z.number().int(), z.string().regex(/^-?[0-9]+$/)])
const uint64 = z.union([z.number().int().min(0), z.string().regex(/^[0-9]+$/)])
const float = z.union([z.number(), z.enum(['NaN', 'Infinity', '-Infinity'])])

/** SetVibeDetails as a hand-written McpServer tool: zod twins of the generated input and output schemas. */
function zodSdkServer() {
  const server = new McpServer({ name: 'hand-written', version: '0.0.0' })
  const vibeScalar = z
    .object({
      vibeDouble: float.optional(),
      vibeFloat: float.optional(),
      vibeInt32: z.number().int().optional(),
      vibeInt64: int64.optional(),
      vibeUint32: z.number().int().min(0).optional(),
      vibeUint64: uint64.optional(),
      vibeSint32: z.number().int().optional(),
      vibeSint64: int64.optional(),
      vibeFixed32: z.number().int().min(0).optional(),
      vibeFixed64: uint64.optional(),
      vibeSfixed32: z.number().int().optional(),
      vibeSfixed64: int64.optional(),
      vibeBool: z.boolean().optional(),
      vibeBytes: z.string().optional(),
      vibeEnum: z.array(z.enum(['VIBE_UNSET', 'VIBE_GOOD'])).optional(),
    })
    .strict()
  server.registerTool(
    'SetVibeDetails',
    {
      description: 'Set vibe details',
      inputSchema: z.object({ vibe: z.string().optional(), vibeScalar: vibeScalar.optional() }).strict(),
      // Our default profile lists an outputSchema and answers structuredContent too: the same tool, hand-written.
      outputSchema: z.object({ previousVibe: z.string().optional(), vibe: z.string().optional() }),
    },
    async (args) => {
      const response = backend.SetVibeDetails(args)
      return { content: [{ type: 'text', text: JSON.stringify(response) }], structuredContent: response }
    },
  )
  return server
}

/** A v2 client connected over InMemoryTransport to `server` (our `Server` or an SDK `McpServer`: both have `connect(transport)`). */
async function connect(server) {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'bench', version: '0.0.0' })
  await client.connect(clientSide)
  return client
}

export default {
  name: 'e2e',
  ids: ['e2e-vs-mcpserver-zod'],
  async run() {
    const { default: server } = await import(await writeModule(EXAMPLE_PROTO, 'example'))
    server.implement('VibeService', backend)
    const ours = await connect(server)
    const theirs = await connect(zodSdkServer())
    const params = { name: CASES.medium.tool, arguments: CASES.medium.args }
    const a = await ours.callTool(params)
    const b = await theirs.callTool(params)
    if (a.isError || b.isError || a.content[0].text !== b.content[0].text) {
      throw new Error(`e2e: results differ: ${JSON.stringify(a.content)} vs ${JSON.stringify(b.content)}`)
    }
    const ops = 500
    const batch = (client) => async () => {
      for (let i = 0; i < ops; i++) await client.callTool(params)
    }
    const samples = await interleave({ ours: batch(ours), baseline: batch(theirs), ops, rounds: 31, warmup: 3 })
    await ours.close()
    await theirs.close()
    return [
      record({
        id: 'e2e-vs-mcpserver-zod',
        samples,
        unit: 'µs/call',
        higherIsBetter: true,
        target: 1.0,
        note: 'throughput of tools/call over InMemoryTransport vs McpServer + zod (SetVibeDetails)',
      }),
    ]
  },
}
