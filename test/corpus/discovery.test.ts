/**
 * Discovery over real APIs (docs/guide/big-apis.md): the 30 Google protos of
 * the corpus and a Temporal-sized synthetic service, each served in `search`
 * mode. The listing stays small; a scripted model finds every RPC by its own
 * comment's first sentence (top 5) and calls it through call_tool with the
 * result and error texts of a direct call (random valid requests made with
 * protobuf-es, as detail.test.ts sends them).
 */
import { join } from 'node:path'
import fc from 'fast-check'
import type { FileRegistry } from '@bufbuild/protobuf'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildProtoTools, compileInProcess, type ProtoTools } from '../../src/codegen/build-proto.ts'
import { createProtoServer, type Server } from '../../src/server/index.ts'
import { firstSentence } from '../../src/server/tools/discovery.ts'
import { messageArbitrary } from '../protojson/arbitrary.ts'
import type { Oracle } from '../protojson/oracle.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { text } from '../helpers/result.ts'
import { buildCorpusProto, CORPUS } from './corpus.ts'
import { syntheticProto } from './synthetic-service.ts'
import { corpusRegistry, validJson } from './valid-requests.ts'

interface Served {
  proto: string
  built: ProtoTools
  server: Server
  registry: () => FileRegistry
}

const served: Served[] = []
const SEARCH = { discovery: { mode: 'search' as const } }

/** A backend answering every RPC: an error for a request whose JSON has an odd length, else a reply naming the RPC. */
function implementAll(server: Server, services: Record<string, string[]>): void {
  for (const [service, methods] of Object.entries(services)) {
    const handlers = methods.map((m) => [
      m,
      (request: unknown) => {
        if (JSON.stringify(request).length % 2 === 1) throw Object.assign(new Error(`${m} refused the request`), { code: 9 })
        return {}
      },
    ])
    server.implement(service, Object.fromEntries(handlers))
  }
}

beforeAll(() => {
  let corpus: FileRegistry | undefined
  let synthetic: FileRegistry | undefined
  for (const proto of CORPUS) {
    const { built } = buildCorpusProto(proto, SEARCH)
    served.push({ proto, built, server: createProtoServer(compileInProcess(built).spec), registry: () => (corpus ??= corpusRegistry()) })
  }
  const dir = writeProtos({ 'synthetic.proto': syntheticProto() })
  const built = buildProtoTools(join(dir, 'synthetic.proto'), SEARCH)
  served.push({
    proto: 'synthetic.proto',
    built,
    server: createProtoServer(compileInProcess(built).spec),
    registry: () => (synthetic ??= corpusRegistry(dir, ['synthetic.proto'])),
  })
  for (const s of served) implementAll(s.server, compileInProcess(s.built).spec.services)
}, 600_000)

/** The RPCs of a build with the first sentence of their own comment (the description's, for an RPC with none). */
function rpcSentences(built: ProtoTools): Array<{ tool: string; sentence: string }> {
  return built.tools.map((tool) => {
    const comment = built.model.services.find((s) => s.fullName === tool.service)?.methods.find((m) => m.name === tool.method)?.comment
    return { tool: tool.name, sentence: firstSentence((comment ?? tool.description).replace(/\s+/g, ' ').trim()) }
  })
}

describe('search mode over the corpus and a Temporal-sized service', () => {
  it('lists at most 5 tools and 3,000 tokens', () => {
    expect(served.find((s) => s.proto === 'synthetic.proto')!.built.tools).toHaveLength(123)
    for (const s of served) {
      const listed = s.server.listTools()
      expect(listed.length, s.proto).toBeLessThanOrEqual(5)
      const tokens = listed.reduce(
        (sum, t) => sum + countTokens(JSON.stringify({ name: t.name, description: t.description, inputSchema: t.inputSchema })),
        0,
      )
      expect(tokens, s.proto).toBeLessThanOrEqual(3000)
    }
  })

  it("finds every RPC in the top 5 by its comment's first sentence", async () => {
    const missed: string[] = []
    let asked = 0
    for (const s of served) {
      for (const { tool, sentence } of rpcSentences(s.built)) {
        const result = await s.server.call('search_tools', { query: sentence, limit: 5 })
        const hits = (result.structuredContent as { tools: Array<{ name: string }> }).tools.map((t) => t.name)
        asked++
        if (!hits.includes(tool)) missed.push(`${s.proto} ${tool}: "${sentence}" → ${hits.join(', ')}`)
      }
    }
    expect(asked).toBeGreaterThan(500)
    expect(missed).toEqual([])
  })

  it('call_tool answers random valid requests and bad ones with the texts of a direct call', async () => {
    let compared = 0
    let errors = 0
    for (const s of served) {
      const registry = s.registry()
      const oracle = { registry, message: (n: string) => registry.getMessage(n)!, messageNames: [] } as unknown as Oracle
      for (const tool of s.built.tools) {
        const desc = registry.getMessage(tool.requestType)!
        const [message] = fc.sample(
          messageArbitrary(oracle, tool.requestType, { maxDepth: 3, unknownEnums: false, emptyAny: false, negativeZero: false }),
          { numRuns: 1, seed: compared + 7 },
        )
        for (const args of [validJson(registry, desc, message!), { notAField: 1 }]) {
          const direct = await s.server.call(tool.name, args)
          const through = await s.server.call('call_tool', { name: tool.name, arguments: args })
          expect(through, `${s.proto} ${tool.name} ${text(direct).slice(0, 200)}`).toEqual(direct)
          if (direct.isError) errors++
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThan(1000)
    // Both kinds were compared: backend refusals and validation errors, and results.
    expect(errors).toBeGreaterThan(compared / 2)
    expect(errors).toBeLessThan(compared)
  }, 600_000)
})
