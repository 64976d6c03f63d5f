/**
 * Type detail on demand and exactness below the cuts, on the corpus
 * (docs/profiles.md, "Token budget"): a scripted "model" that knows only
 * what the server says reaches every field of every request through the
 * type tool, each answer within the budget; random valid requests
 * (@bufbuild/protobuf, from buf's descriptors) sent as full nested objects
 * are accepted and reach the backend as protobuf-es's canonical JSON; a
 * wrong value below a cut is an error naming its path, message and the tool.
 */
import fc from 'fast-check'
import type { FileRegistry } from '@bufbuild/protobuf'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { beforeAll, describe, expect, it } from 'vitest'
import { compileInProcess } from '../../src/codegen/build-proto.ts'
import { DEFAULT_TOOL_TOKEN_BUDGET } from '../../src/schema/budget.ts'
import { createProtoServer, type Server } from '../../src/server/index.ts'
import type { ProtoServerSpec } from '../../src/runtime/types.ts'
import { messageArbitrary } from '../protojson/arbitrary.ts'
import type { Oracle } from '../protojson/oracle.ts'
import { buildCorpusProto, CORPUS, type CorpusServer } from './corpus.ts'
import { corpusRegistry, validJson } from './valid-requests.ts'

/** Random requests per tool: a sample in `npm test`, more in `npm run soak`. */
const PER_TOOL = process.env.SOAK === '1' ? 20 : 1

const PLACEHOLDER_RE = /JSON text of ([\w.]+); schema: (\w+)/

type Json = Record<string, any>

const servers: CorpusServer[] = []
const serving = new Map<string, { server: Server; calls: { method: string; request: unknown }[] }>()

/** The protos served: the issue's six in `npm test` (validators compiled in process take most of the time), all under SOAK=1. */
const SERVED =
  process.env.SOAK === '1'
    ? CORPUS
    : CORPUS.filter((p) => /firestore\/v1\/firestore|prediction_service|spanner\/v1|storage\/v2|pubsub\/v1|bigtable\/v2/.test(p))

beforeAll(() => {
  for (const proto of SERVED) {
    const s = buildCorpusProto(proto)
    servers.push(s)
    const spec = compileInProcess(s.built).spec as unknown as ProtoServerSpec
    const server = createProtoServer(spec)
    const calls: { method: string; request: unknown }[] = []
    for (const [service, methods] of Object.entries(spec.services)) {
      server.implement(service, Object.fromEntries(methods.map((m) => [m, (request: unknown) => (calls.push({ method: m, request }), {})])))
    }
    serving.set(proto, { server, calls })
  }
}, 300_000)

/** Every property path of a schema (`/a/*\/b`), down to `maxDepth` segments. */
function paths(schema: unknown, at = '', out = new Set<string>(), maxDepth = Infinity): Set<string> {
  if (schema === null || typeof schema !== 'object' || at.split('/').length > maxDepth) return out
  const node = schema as Json
  for (const [name, sub] of Object.entries((node.properties ?? {}) as Json)) {
    out.add(`${at}/${name}`)
    paths(sub, `${at}/${name}`, out, maxDepth)
  }
  if (node.items) paths(node.items, `${at}/*`, out, maxDepth)
  return out
}

describe('a scripted model that knows only what the server says', () => {
  it('reaches every field of every request through the type tool, each answer within the budget', async () => {
    let calls = 0
    for (const s of servers) {
      const { server } = serving.get(s.proto)!
      const listed = server.listTools()
      const answers = new Map<string, Json>()
      // The schema of a message, from the type tool (its parts joined).
      const ask = async (type: string, tool: string): Promise<Json> => {
        let known = answers.get(type)
        if (known) return known
        const properties: Json = {}
        for (let key: string | undefined = type; key !== undefined;) {
          const result = await server.call(tool, { type: key })
          calls++
          expect(result.isError, `${s.proto} ${key}: ${result.content[0].text}`).toBe(false)
          const text = result.content[0].text
          expect(countTokens(text), `${s.proto} ${key}`).toBeLessThanOrEqual(DEFAULT_TOOL_TOKEN_BUDGET)
          const answer = JSON.parse(text) as Json
          Object.assign(properties, answer.schema.properties)
          key = answer.next
        }
        known = { type: 'object', properties }
        answers.set(type, known)
        return known
      }
      // The request's schema as the model can know it: each placeholder replaced by its answer, to `depth` segments.
      const expand = async (node: unknown, depth: number): Promise<unknown> => {
        if (node === null || typeof node !== 'object' || depth <= 0) return node
        const n = node as Json
        const found = typeof n.description === 'string' ? PLACEHOLDER_RE.exec(n.description) : null
        if (found && n.type !== 'object' && !n.items) return expand(await ask(found[1]!, found[2]!), depth)
        const out: Json = { ...n }
        if (n.properties) {
          out.properties = {}
          for (const [k, v] of Object.entries(n.properties as Json)) out.properties[k] = await expand(v, depth - 1)
        }
        if (n.items) out.items = await expand(n.items, depth)
        return out
      }
      for (const tool of s.built.tools) {
        const exact = paths(tool.validationSchema ?? tool.inputSchema, '', new Set(), 6)
        const listedTool = listed.find((t) => t.name === tool.name)!
        const known = paths(await expand(listedTool.inputSchema, 6), '', new Set(), 6)
        expect(
          [...exact].filter((p) => !known.has(p)),
          `${s.proto} ${tool.name}`,
        ).toEqual([])
      }
    }
    expect(calls).toBeGreaterThan(50)
  }, 300_000)
})

describe('exactness below the cuts', () => {
  let registry: FileRegistry
  beforeAll(() => {
    registry = corpusRegistry()
  }, 120_000)

  it(`random valid requests (${PER_TOOL} a tool) reach the backend as protobuf-es's canonical JSON`, async () => {
    const oracle = { registry, message: (n: string) => registry.getMessage(n)!, messageNames: [] } as unknown as Oracle
    let sent = 0
    for (const s of servers) {
      const { server, calls } = serving.get(s.proto)!
      for (const tool of s.built.tools) {
        const desc = registry.getMessage(tool.requestType)!
        const samples = fc.sample(
          messageArbitrary(oracle, tool.requestType, { maxDepth: 3, unknownEnums: false, emptyAny: false, negativeZero: false }),
          {
            numRuns: PER_TOOL,
            seed: sent + 21,
          },
        )
        for (const message of samples) {
          const json = validJson(registry, desc, message)
          calls.length = 0
          const result = await server.call(tool.name, json)
          expect(
            result.content[0].text.startsWith('invalid arguments') || result.content[0].text.startsWith('decoding'),
            `${s.proto} ${tool.name}: ${result.content[0].text.slice(0, 500)}\n${JSON.stringify(json).slice(0, 500)}`,
          ).toBe(false)
          expect(calls.at(-1)?.request, `${s.proto} ${tool.name}`).toEqual(json)
          sent++
        }
      }
    }
    expect(sent).toBeGreaterThan(90 * PER_TOOL)
  }, 600_000)

  it('a wrong value below a cut names its path, its message and the type tool', async () => {
    const { server } = serving.get('google/firestore/v1/firestore.proto')!
    const result = await server.call('RunQuery', {
      parent: 'projects/p/databases/d/documents',
      structuredQuery: { where: { fieldFilter: { field: { fieldPath: 'a' }, op: 'EQUAL', valu: { stringValue: 'x' } } } },
    })
    expect(result.content[0].text).toBe(
      'invalid arguments: /structuredQuery/where/fieldFilter/valu: unknown field ' +
        '(/structuredQuery/where is google.firestore.v1.StructuredQuery.Filter; schema: describe_type)',
    )
  })
})
