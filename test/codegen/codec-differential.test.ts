/**
 * The generated codecs under the protobuf JSON differential suite
 * (test/protojson/): over the corpus proto (every field kind, maps,
 * oneofs, recursion, well-known types), a value a generated codec handles
 * must come out as @bufbuild/protobuf makes it, with the same known
 * deviations as the reflection codec it stands in for.
 */
import { expect, it } from 'vitest'
import { defineDifferentialSuite } from '../protojson/differential-suite.ts'
import { DEVIATIONS } from '../protojson/edge-cases.ts'
import { runtimeCodec, type ProtoJsonCodec } from '../protojson/harness.ts'
import { CODEC_BAIL } from '../../src/runtime/codec.ts'
import { loadCodecs } from './codec-harness.ts'

const handled = { decode: 0, encode: 0 }

/** Generated codecs first (decode: the arguments path; encode: a reply's canonical JSON again), reflection when they bail. */
function generatedCodec(file: string): ProtoJsonCodec {
  const reflection = runtimeCodec(file)
  const { codecs } = loadCodecs(file)
  const run = (typeName: string, json: unknown, side: 'decode' | 'encode'): unknown => {
    const codec = codecs.get(typeName)
    const out = codec === undefined ? CODEC_BAIL : codec(json, 0)
    if (out === CODEC_BAIL) return undefined
    handled[side]++
    return out
  }
  return {
    name: 'generated codecs (src/codegen/emit-codec.ts)',
    normalize: (typeName, json) => {
      const out = run(typeName, json, 'decode')
      return out === undefined ? reflection.normalize(typeName, json) : out
    },
    jsonToBinary: (typeName, json) => reflection.jsonToBinary(typeName, json),
    binaryToJson: (typeName, bytes) => {
      const json = reflection.binaryToJson(typeName, bytes)
      const out = run(typeName, json, 'encode')
      return out === undefined ? json : out
    },
  }
}

defineDifferentialSuite('the generated codecs', generatedCodec, { known: Object.values(DEVIATIONS) })

it('the generated codecs took part in both directions', () => {
  expect(handled.decode).toBeGreaterThan(100)
  expect(handled.encode).toBeGreaterThan(100)
})
