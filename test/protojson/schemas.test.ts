/**
 * Schemas that tell the truth (docs/mapping.md, "Input schema: types"), as properties over random
 * messages: whatever the encoder produces for a response validates against
 * the tool's outputSchema; the JSON of any request, in any spelling the
 * input schema documents, validates against its inputSchema and decodes
 * back to the same message. Over the corpus proto, the playground's proto
 * and the Topeka protos, with a fresh Ajv configured as the code
 * generator's (the standalone twin test proves the compiled ones agree).
 */
import fc from 'fast-check'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { ValidateFunction } from 'ajv'
import { createAjv } from '../../src/codegen/compile-validators.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools } from '../../src/schema/build-tools.ts'
import { messageSchema } from '../../src/schema/message-schema.ts'
import { messageArbitrary } from './arbitrary.ts'
import { CORPUS_PROTO, SEED } from './differential-suite.ts'
import { runtimeCodec, show, wire } from './harness.ts'
import { createOracle, type Oracle } from './oracle.ts'
import { respell, SCHEMA_SPELLINGS, seededRandom } from './spellings.ts'

const path = (relative: string): string => fileURLToPath(new URL(`../../${relative}`, import.meta.url))

const PROTOS = [
  CORPUS_PROTO,
  path('playground/vibe.proto'),
  path('fixtures/topeka/example.proto'),
  path('fixtures/topeka/fixture.proto'),
  path('fixtures/topeka/schema.proto'),
]

/** What a property checks one message against: a type and its two schemas, compiled. */
interface Target {
  label: string
  requestType: string
  responseType: string
  input: ValidateFunction
  output: ValidateFunction | undefined
}

/** Every unary tool of `file` (default profile), and for a proto without services each of its messages as if it were one. */
function targetsOf(file: string): Target[] {
  const ajv = createAjv()
  const model = loadProto(file)
  const unary = new Set(
    model.services.flatMap((s) => s.methods.filter((m) => !m.requestStream && !m.responseStream).map((m) => `${s.fullName}.${m.name}`)),
  )
  const tools = buildTools(model, { profile: 'full' }).tools.filter((t) => unary.has(`${t.service}.${t.method}`))
  if (tools.length > 0) {
    return tools.map((tool) => ({
      label: tool.name,
      requestType: tool.requestType,
      responseType: tool.responseType,
      input: ajv.compile(tool.inputSchema),
      output: tool.outputSchema ? ajv.compile(tool.outputSchema) : undefined,
    }))
  }
  return [...model.messages.keys()]
    .filter((name) => !name.startsWith('google.protobuf.'))
    .map((name) => ({
      label: name,
      requestType: name,
      responseType: name,
      input: ajv.compile(messageSchema(model, name, { profile: 'full', mode: 'input' })),
      output: ajv.compile(messageSchema(model, name, { profile: 'full', mode: 'output' })),
    }))
}

const errorsOf = (validate: ValidateFunction): string =>
  (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`).join('; ')

/** One random message of one of `targets` (chosen at random), with a seed for its spelling. */
function casesOf(oracle: Oracle, targets: Target[], side: 'request' | 'response') {
  const base = { negativeZero: false }
  // Requests: only what a schema-valid request can say (enum names, Anys with a type: docs/mapping.md, "Input schema: types").
  const options = side === 'request' ? { ...base, unknownEnums: false, emptyAny: false } : base
  const byTarget = targets.map((target) =>
    fc.tuple(
      fc.constant(target),
      messageArbitrary(oracle, side === 'request' ? target.requestType : target.responseType, options),
      fc.integer(),
    ),
  )
  return fc.oneof(...byTarget)
}

describe.each(PROTOS)('schemas of %s tell the truth', (file) => {
  const oracle = createOracle(file)
  const codec = runtimeCodec(file)
  const targets = targetsOf(file)
  const numRuns = 200

  it('every response the encoder produces (from binary or from JSON) validates against the outputSchema', () => {
    const withOutput = targets.filter((t) => t.output !== undefined)
    expect(withOutput.length).toBeGreaterThan(0)
    fc.assert(
      fc.property(casesOf(oracle, withOutput, 'response'), ([target, message]) => {
        const fromBinary = wire(codec.binaryToJson(target.responseType, oracle.toBinary(target.responseType, message)))
        const validate = target.output!
        expect(validate(fromBinary), `${target.label} ${show(fromBinary)}: ${errorsOf(validate)}`).toBe(true)
        const fromJson = wire(codec.normalize(target.responseType, oracle.toJson(target.responseType, message)))
        expect(validate(fromJson), `${target.label} ${show(fromJson)}: ${errorsOf(validate)}`).toBe(true)
      }),
      { seed: SEED, numRuns },
    )
  })

  it('every request, in any spelling the inputSchema documents, validates and decodes back to the same message', () => {
    fc.assert(
      fc.property(casesOf(oracle, targets, 'request'), ([target, message, seed]) => {
        const type = target.requestType
        const canonical = oracle.toJson(type, message)
        const json = wire(respell(oracle.message(type), canonical, seededRandom(seed), SCHEMA_SPELLINGS, oracle.registry))
        expect(target.input(json), `${target.label} ${show(json)}: ${errorsOf(target.input)}`).toBe(true)
        // The same message: as canonical JSON, and through binary (what a gRPC backend receives).
        expect(wire(codec.normalize(type, json))).toEqual(wire(canonical))
        const viaBinary = oracle.toJson(type, oracle.fromBinary(type, codec.jsonToBinary(type, json)))
        expect(wire(viaBinary)).toEqual(wire(oracle.toJson(type, oracle.fromBinary(type, oracle.toBinary(type, message)))))
      }),
      { seed: SEED, numRuns },
    )
  })
})
