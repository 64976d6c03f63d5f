/**
 * Property test (fixed seed) of lenient arguments: random messages of every
 * tool's request type (made by @bufbuild/protobuf, the reference codec),
 * written in every spelling protobuf JSON reads, with nested messages
 * sometimes sent as JSON strings, are accepted by the tool's validator and
 * reach the backend as the reference's canonical JSON; the same messages in
 * the advertised form (the lenient pass's rewrite) validate against the
 * advertised schema as a fresh Ajv compiles it.
 */
import type { DescMessage } from '@bufbuild/protobuf'
import fc from 'fast-check'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { ValidateFunction } from 'ajv'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { coerceArguments } from '../../src/runtime/lenient.ts'
import type { Profile } from '../../src/runtime/types.ts'
import { valueAt } from '../../src/runtime/validation-text.ts'
import { makeAjv, specFromProto } from '../helpers/spec-from-proto.ts'
import { recordingBackend } from '../helpers/recording-backend.ts'
import { messageArbitrary } from '../protojson/arbitrary.ts'
import { createOracle } from '../protojson/oracle.ts'
import { ALL_SPELLINGS, respell, seededRandom } from '../protojson/spellings.ts'
import { scaled, SEED } from './scale.ts'

const path = (relative: string): string => fileURLToPath(new URL(`../../${relative}`, import.meta.url))
const PROTOS = [
  'playground/vibe.proto',
  'fixtures/topeka/example.proto',
  'fixtures/topeka/fixture.proto',
  'fixtures/protos/runtime/lenient.proto',
]
const NON_FINITE = new Set(['NaN', 'Infinity', '-Infinity'])
// Every spelling but one the decoder is known to refuse (null for a oneof member beside the set one).
const SPELLINGS = { ...ALL_SPELLINGS, nullsInOneofs: false }

/**
 * `json` (of message `desc`) with some nested messages, lists and maps
 * replaced by their JSON text, chosen by `random`; well-known types keep
 * their own JSON (a string inside a `Value` is a string).
 */
function stringifyNested(desc: DescMessage, json: unknown, random: () => number): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json) || desc.typeName.startsWith('google.protobuf.')) return json
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(json)) {
    const field = desc.fields.find((f) => f.jsonName === key || f.name === key)
    let next = value
    if (field?.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.'))
      next = stringifyNested(field.message, value, random)
    else if (field?.fieldKind === 'list' && field.listKind === 'message' && Array.isArray(value))
      next = value.map((item) => stringifyNested(field.message, item, random))
    const container =
      field !== undefined &&
      (field.fieldKind === 'list' ||
        field.fieldKind === 'map' ||
        (field.fieldKind === 'message' && !field.message.typeName.startsWith('google.protobuf.')))
    out[key] = container && next !== null && typeof next === 'object' && random() < 0.3 ? JSON.stringify(next) : next
  }
  return out
}

function server(file: string, profile: Profile) {
  const spec = specFromProto(file, { profile })
  const created = createProtoServer(spec)
  const last: { request?: unknown } = {}
  for (const [service, methods] of Object.entries(spec.services ?? {})) {
    const streaming = new Set(spec.tools.filter((t) => t.serverStreaming && t.service === service).map((t) => t.method))
    const { impl } = recordingBackend(
      methods,
      Object.fromEntries(
        methods.map((m) => [
          m,
          (request: unknown) => {
            last.request = request
            return streaming.has(m) ? [] : {}
          },
        ]),
      ),
    )
    created.implement(service, impl)
  }
  const ajv = makeAjv()
  const advertised = new Map(spec.tools.map((t) => [t.name, ajv.compile(t.inputSchema) as unknown as ValidateFunction]))
  return { spec, server: created, last, advertised }
}

describe.each(PROTOS)('every spelling of random requests of %s', (relative) => {
  const file = path(relative)
  const oracle = createOracle(file)
  it.each(['portable', 'strict', 'full'] as const)('%s: accepted, and the backend gets the canonical JSON', async (profile) => {
    const { spec, server: s, last, advertised } = server(file, profile)
    const targets = spec.tools
    let checked = 0
    const cases = fc.oneof(
      ...targets.map((t, i) =>
        fc.tuple(
          fc.constant(i),
          messageArbitrary(oracle, t.requestType, { maxDepth: 2, unknownEnums: false, emptyAny: false, negativeZero: false }),
          fc.nat(),
        ),
      ),
    )
    await fc.assert(
      fc.asyncProperty(cases, async ([index, message, seed]) => {
        const tool = targets[index]!
        const canonical = oracle.toJson(tool.requestType, message)
        const random = seededRandom(seed)
        const spelled = respell(oracle.message(tool.requestType), canonical, random, SPELLINGS, oracle.registry)
        const advertisedForm = coerceArguments(spec.lenient!, tool.requestType, canonical)
        for (const [what, args] of [
          ['canonical', canonical],
          ['respelled', spelled],
          ['stringified', stringifyNested(oracle.message(tool.requestType), spelled, random)],
          ['advertised', advertisedForm],
        ] as const) {
          last.request = undefined
          const result = await s.call(tool.name, JSON.parse(JSON.stringify(args)))
          const text = (result.content[0] as { text: string }).text
          // A range or oneof rule only the decoder checks; and an Any's contents are the decoder's too.
          if (/^decoding arguments: .*(out of range|oneof)/.test(text) || JSON.stringify(canonical).includes('@type')) continue
          expect(text, `${tool.name} ${what}: ${JSON.stringify(args).slice(0, 400)}`).not.toMatch(/^(invalid|decoding) arguments/)
          expect(last.request, `${tool.name} ${what}: ${JSON.stringify(args).slice(0, 400)}`).toEqual(canonical)
        }
        const validate = advertised.get(tool.name)!
        const sent = JSON.parse(JSON.stringify(advertisedForm))
        const ok = validate(sent)
        // A portable float advertises {"type":"number"}: its non-finite strings are accepted but cannot be advertised.
        const unsaid = (validate.errors ?? []).filter(
          (e) => !(e.keyword === 'type' && NON_FINITE.has(valueAt(sent, e.instancePath) as string)),
        )
        expect(
          ok || unsaid.length === 0,
          `${tool.name}: advertised form ${JSON.stringify(advertisedForm).slice(0, 400)} vs ${JSON.stringify(unsaid).slice(0, 400)}`,
        ).toBe(true)
        checked++
      }),
      { seed: SEED, numRuns: scaled(150, 2000) },
    )
    expect(checked).toBeGreaterThan(50)
  })
})
