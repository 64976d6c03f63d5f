/**
 * The differential suite: registers vitest tests comparing a protobuf JSON
 * codec with @bufbuild/protobuf over the corpus proto, in both directions.
 *
 * To run it for another codec (e.g. build-time generated ones), write a
 * test file that calls
 * `defineDifferentialSuite('generated', (file) => myCodec(file), { known: [...] })`
 * where `myCodec` implements {@link ProtoJsonCodec} for the messages of
 * `file`, and `known` lists the {@link DEVIATIONS} the codec still has.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fileURLToPath } from 'node:url'
import { messageArbitrary } from './arbitrary.ts'
import { DEVIATIONS, EDGE_CASES, ENCODE_CASES } from './edge-cases.ts'
import { compareDecode, compareEncode, type ProtoJsonCodec } from './harness.ts'
import { createOracle } from './oracle.ts'
import { ALL_SPELLINGS, respell, seededRandom } from './spellings.ts'

/** The corpus proto: every field kind, oneofs, maps with every key kind, recursion, every well-known type. */
export const CORPUS_PROTO = fileURLToPath(new URL('../../fixtures/protos/protojson/corpus.proto', import.meta.url))

/** The fixed seed of every property of the suite (a failure is reproducible). */
export const SEED = 20261129

/** Options of {@link defineDifferentialSuite}. */
export interface SuiteOptions {
  /** The known deviations (values of {@link DEVIATIONS}) the codec has: their inputs must still deviate. @default [] */
  known?: readonly string[]
  /** Random messages per type and direction. @default 200 for Corpus, 100 for the others */
  numRuns?: number
}

/** Registers the differential tests of `makeCodec(CORPUS_PROTO)` against bufbuild. */
export function defineDifferentialSuite(name: string, makeCodec: (file: string) => ProtoJsonCodec, options: SuiteOptions = {}): void {
  const known = new Set(options.known ?? [])
  const oracle = createOracle(CORPUS_PROTO)
  const codec = makeCodec(CORPUS_PROTO)
  const full = (type: string): string => `protojson.v1.${type}`
  const arbitraryOptions = { negativeZero: !known.has(DEVIATIONS.negativeZero) }
  const spellings = { ...ALL_SPELLINGS, nullsInOneofs: !known.has(DEVIATIONS.nullOneofMember) }
  const runs = (type: string): number => options.numRuns ?? (type === 'Corpus' ? 200 : 100)
  const types = ['Corpus', 'WellKnown', 'Maps', 'Scalars', 'OptionalScalars', 'RepeatedScalars', 'Node']

  describe(`protobuf JSON of ${name} vs @bufbuild/protobuf`, () => {
    describe.each(types)('%s', (type) => {
      const messages = messageArbitrary(oracle, full(type), arbitraryOptions)

      it('encodes random messages (binary → JSON) as bufbuild does', () => {
        fc.assert(
          fc.property(messages, (message) => {
            expect(compareEncode(codec, oracle, full(type), oracle.toBinary(full(type), message))).toBeUndefined()
          }),
          { seed: SEED, numRuns: runs(type) },
        )
      })

      it('decodes their canonical JSON as bufbuild does', () => {
        fc.assert(
          fc.property(messages, (message) => {
            expect(compareDecode(codec, oracle, full(type), oracle.toJson(full(type), message))).toBeUndefined()
          }),
          { seed: SEED, numRuns: runs(type) },
        )
      })

      it('decodes alternate spellings of them as bufbuild does', () => {
        fc.assert(
          fc.property(messages, fc.integer(), (message, seed) => {
            const json = respell(
              oracle.message(full(type)),
              oracle.toJson(full(type), message),
              seededRandom(seed),
              spellings,
              oracle.registry,
            )
            expect(compareDecode(codec, oracle, full(type), json)).toBeUndefined()
          }),
          { seed: SEED, numRuns: runs(type) },
        )
      })
    })

    it('agrees with bufbuild on every edge case it has no known deviation for (accept or reject, same message)', () => {
      const deviations: string[] = []
      for (const edge of EDGE_CASES) {
        if (edge.deviation !== undefined && known.has(edge.deviation)) continue
        const deviation = compareDecode(codec, oracle, full(edge.type), edge.json)
        if (deviation !== undefined) deviations.push(deviation)
      }
      expect(deviations).toEqual([])
    })

    it('encodes edge messages (out of range, no JSON form) as bufbuild does, or refuses them as it does', () => {
      const deviations: string[] = []
      for (const edge of ENCODE_CASES) {
        if (edge.deviation !== undefined && known.has(edge.deviation)) continue
        const deviation = compareEncode(codec, oracle, full(edge.type), edge.bytes(oracle))
        if (deviation !== undefined) deviations.push(`${edge.name}: ${deviation}`)
      }
      expect(deviations).toEqual([])
    })

    if (known.size > 0)
      it('still shows each known deviation it is said to have (else remove it from the list)', () => {
        const gone: string[] = []
        for (const edge of EDGE_CASES) {
          if (edge.deviation === undefined || !known.has(edge.deviation)) continue
          if (compareDecode(codec, oracle, full(edge.type), edge.json) === undefined)
            gone.push(`${edge.deviation}: ${JSON.stringify(edge.json)}`)
        }
        for (const edge of ENCODE_CASES) {
          if (edge.deviation === undefined || !known.has(edge.deviation)) continue
          if (compareEncode(codec, oracle, full(edge.type), edge.bytes(oracle)) === undefined) gone.push(`${edge.deviation}: ${edge.name}`)
        }
        expect(gone).toEqual([])
      })
  })
}
