/**
 * Type detail on demand and exactness below the cuts, on the corpus
 * (docs/profiles.md §Token budget): a scripted "model" that knows only
 * what the server says reaches every field of every request through the
 * type tool, each answer within the budget; random valid requests
 * (@bufbuild/protobuf, from buf's descriptors) sent as full nested objects
 * are accepted and reach the backend as protobuf-es's canonical JSON; a
 * wrong value below a cut is an error naming its path, message and the tool.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { create, fromBinary, isFieldSet, toJson, type DescField, type DescMessage, type Message } from '@bufbuild/protobuf'
import { createFileRegistry, type FileRegistry } from '@bufbuild/protobuf'
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { beforeAll, describe, expect, it } from 'vitest'
import { compileInProcess } from '../../src/codegen/build-proto.ts'
import { DEFAULT_TOOL_TOKEN_BUDGET } from '../../src/schema/budget.ts'
import { createProtoServer, type Server } from '../../src/server/index.ts'
import type { ProtoServerSpec } from '../../src/runtime/types.ts'
import { messageArbitrary } from '../protojson/arbitrary.ts'
import type { Oracle } from '../protojson/oracle.ts'
import { buildCorpusProto, CORPUS, GOOGLE_PROTOS, type CorpusServer } from './corpus.ts'
import { REPO } from '../helpers/repo.ts'

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

/** The corpus's descriptors as buf builds them, one registry. */
function corpusRegistry(): FileRegistry {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(REPO, '.tmp', 'buf-corpus-'))
  try {
    const out = join(dir, 'set.binpb')
    const args = ['build', GOOGLE_PROTOS, ...CORPUS.flatMap((p) => ['--path', join(GOOGLE_PROTOS, p)]), '-o', out]
    execFileSync(join(REPO, 'node_modules', '.bin', 'buf'), args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] })
    return createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(out)))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `google.api.field_behavior` of a field, as numbers (2 REQUIRED, 3 OUTPUT_ONLY). */
function behaviors(field: DescField): number[] {
  const options = field.proto.options as unknown as { $unknown?: { no: number; data: Uint8Array }[] } | undefined
  const out: number[] = []
  for (const u of options?.$unknown ?? []) {
    if (u.no !== 1052) continue
    // A varint or a packed run of varints (enum values are small).
    const bytes = u.data
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! < 0x80 && (i === 0 || bytes[i - 1]! < 0x80)) out.push(bytes[i]!)
  }
  return out
}

/** A valid request: OUTPUT_ONLY fields cleared, REQUIRED ones set, in every message set. */
function makeValid(desc: DescMessage, message: Message, depth = 0): void {
  const m = message as unknown as Record<string, unknown>
  for (const field of desc.fields) {
    const b = behaviors(field)
    if (b.includes(3)) {
      if (field.oneof) {
        const o = m[field.oneof.localName] as { case?: string }
        if (o.case === field.localName) m[field.oneof.localName] = { case: undefined }
      } else m[field.localName] = create(desc, {} as never)[field.localName as never]
      continue
    }
    if (b.includes(2) && !isFieldSet(message, field)) {
      if (field.oneof && (m[field.oneof.localName] as { case?: string }).case !== undefined) continue
      const value = requiredValue(field)
      if (value !== undefined) {
        if (field.oneof) m[field.oneof.localName] = { case: field.localName, value }
        else m[field.localName] = value
      }
    }
  }
  if (depth > 8) return
  for (const field of desc.fields) {
    const value = field.oneof
      ? (m[field.oneof.localName] as { case?: string; value?: unknown }).case === field.localName
        ? (m[field.oneof.localName] as { value: unknown }).value
        : undefined
      : m[field.localName]
    if (field.fieldKind === 'message' && value && typeof value === 'object' && '$typeName' in value)
      makeValid(field.message, value as Message, depth + 1)
    if (field.fieldKind === 'list' && field.listKind === 'message')
      for (const item of value as Message[]) makeValid(field.message, item, depth + 1)
    if (field.fieldKind === 'map' && field.mapKind === 'message')
      for (const item of Object.values(value as Record<string, Message>)) makeValid(field.message, item, depth + 1)
  }
}

const WRAPPED: Record<string, unknown> = {
  'google.protobuf.Int32Value': 1,
  'google.protobuf.UInt32Value': 1,
  'google.protobuf.Int64Value': 1n,
  'google.protobuf.UInt64Value': 1n,
  'google.protobuf.FloatValue': 1,
  'google.protobuf.DoubleValue': 1,
  'google.protobuf.BoolValue': true,
  'google.protobuf.StringValue': 'x',
  'google.protobuf.BytesValue': new Uint8Array([1]),
}

/** A non-default value of a scalar type (bufbuild's representation). */
const scalarValue = (scalar: number): unknown =>
  scalar === 9 ? 'x' : scalar === 8 ? true : scalar === 12 ? new Uint8Array([1]) : [3, 4, 6, 16, 18].includes(scalar) ? 1n : 1

/** A set value for a REQUIRED field that was left unset. */
function requiredValue(field: DescField): unknown {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarValue(field.scalar)
    case 'enum':
      return field.enum.values.find((v) => v.number !== 0)?.number ?? 0
    case 'message': {
      // Singular wrapper fields are unboxed in protobuf-es.
      const wrapped = WRAPPED[field.message.typeName]
      if (wrapped !== undefined) return wrapped
      return field.message.typeName === 'google.protobuf.Value'
        ? create(field.message, { kind: { case: 'stringValue', value: 'x' } } as never)
        : create(field.message)
    }
    case 'list':
      return field.listKind === 'message'
        ? [
            field.message.typeName === 'google.protobuf.Value'
              ? create(field.message, { kind: { case: 'stringValue', value: 'x' } } as never)
              : create(field.message),
          ]
        : field.listKind === 'enum'
          ? [field.enum.values.find((v) => v.number !== 0)?.number ?? 0]
          : [scalarValue(field.scalar)]
    case 'map': {
      const value =
        field.mapKind === 'message'
          ? field.message.typeName === 'google.protobuf.Value'
            ? create(field.message, { kind: { case: 'stringValue', value: 'x' } } as never)
            : create(field.message)
          : field.mapKind === 'enum'
            ? (field.enum.values.find((v) => v.number !== 0)?.number ?? 0)
            : scalarValue(field.scalar)
      return { [field.mapKey === 9 ? 'k' : field.mapKey === 8 ? 'true' : '1']: value }
    }
  }
}

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
          makeValid(desc, message)
          const json = toJson(desc, message, { registry })
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
