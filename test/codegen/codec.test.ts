/**
 * Generated protobuf JSON codecs equal the reflection codec: on random
 * values (canonical and unusual spellings, wrong types, edge numbers) every
 * value a codec handles comes out exactly as reflection makes it, values it
 * does not handle bail, and the common shapes never bail.
 */
import fc from 'fast-check'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CODEC_BAIL } from '../../src/runtime/codec.ts'
import { loadCodecs, messageArb, reflect } from './codec-harness.ts'

const fixture = (path: string): string => fileURLToPath(new URL(`../../fixtures/${path}`, import.meta.url))
const PROTOS = {
  topeka: fixture('topeka/example.proto'),
  echo: fixture('protos/runtime/echo.proto'),
  playground: fileURLToPath(new URL('../../playground/vibe.proto', import.meta.url)),
}
const SEED = 20261105

describe.each(Object.entries(PROTOS))('generated codecs of %s equal the reflection codec', (_name, file) => {
  const loaded = loadCodecs(file)
  const typeNames = [...new Set(loaded.tools.flatMap((t) => [t.requestType, t.responseType]))].filter((n) => loaded.codecs.has(n))

  it.each(typeNames)('%s: random values', (typeName) => {
    const codec = loaded.codecs.get(typeName)!
    const type = loaded.type(typeName)
    let handled = 0
    fc.assert(
      fc.property(messageArb(type, 0), (json) => {
        const fast = codec(json, 0)
        if (fast === CODEC_BAIL) return
        handled++
        const slow = reflect(type, json)
        expect(slow.ok, `reflection rejects what the codec took: ${JSON.stringify(json)}`).toBe(true)
        if (slow.ok) {
          expect(fast).toStrictEqual(slow.value)
          expect(JSON.stringify(fast)).toBe(JSON.stringify(slow.value))
        }
      }),
      { seed: SEED, numRuns: 1500 },
    )
    // The codec must actually take part: plenty of random values are common shapes.
    expect(handled).toBeGreaterThan(0)
  })

  it.each(typeNames)('%s: canonical output goes through the codec unchanged', (typeName) => {
    const codec = loaded.codecs.get(typeName)!
    const type = loaded.type(typeName)
    fc.assert(
      fc.property(messageArb(type, 0), (json) => {
        const slow = reflect(type, json)
        if (!slow.ok) return
        const again = codec(slow.value, 0)
        if (again === CODEC_BAIL) return
        expect(again).toStrictEqual(slow.value)
      }),
      { seed: SEED + 1, numRuns: 500 },
    )
  })
})

describe('common shapes take the fast path', () => {
  const topeka = loadCodecs(PROTOS.topeka)
  const echo = loadCodecs(PROTOS.echo)
  const cases: [ReturnType<typeof loadCodecs>, string, unknown][] = [
    [topeka, 'examples.v1.SetVibeRequest', { vibe: 'chill' }],
    [topeka, 'examples.v1.SetVibeResponse', { previousVibe: '', vibe: 'x' }],
    [
      topeka,
      'examples.v1.SetVibeDetailsRequest',
      {
        vibe: 'details',
        vibeScalar: {
          vibeDouble: 1.5,
          vibeFloat: 'NaN',
          vibeInt32: -3,
          vibeInt64: '42',
          vibeUint32: 0,
          vibeUint64: 7,
          vibeSint32: 5,
          vibeSint64: '-9',
          vibeFixed32: 4000000000,
          vibeFixed64: '12',
          vibeSfixed32: -1,
          vibeSfixed64: -2,
          vibeBool: true,
          vibeBytes: 'aGVsbG8=',
          vibeEnum: ['VIBE_GOOD', 0, 1],
        },
      },
    ],
    [topeka, 'examples.v1.SetVibeObjectsRequest', { vibeObject: [{ vibe: 'a' }, {}, { vibe: '' }] }],
    [echo, 'runtime.v1.EchoResponse', { scalars: { counts: { a: 1, b: 0 }, moods: ['MOOD_GOOD'] }, number: 0 }],
  ]
  it.each(cases.map(([codecs, name, json]) => ({ codecs, name, json })))('$name', ({ codecs, name, json }) => {
    const fast = codecs.codecs.get(name)!(json, 0)
    expect(fast).not.toBe(CODEC_BAIL)
    const slow = reflect(codecs.type(name), json)
    expect(slow).toEqual({ ok: true, value: fast })
  })
})

describe('unusual spellings fall back to reflection', () => {
  const topeka = loadCodecs(PROTOS.topeka)
  const playground = loadCodecs(PROTOS.playground)
  const cases: [ReturnType<typeof loadCodecs>, string, unknown][] = [
    [topeka, 'examples.v1.SetVibeResponse', { previous_vibe: 'x' }],
    [topeka, 'examples.v1.SetVibeRequest', { vibe: 'a', extra: 1 }],
    [topeka, 'examples.v1.SetVibeRequest', { vibe: '\uD800' }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeInt32: '5' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeInt64: '007' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeUint64: '18446744073709551616' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeInt64: '1e3' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeBytes: 'aGVsbG8' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeBytes: 'QR==' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeFloat: 3.5e38 } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeEnum: ['NOPE'] } }],
    [topeka, 'examples.v1.SetVibeResponse', Object.assign(Object.create({ vibe: 'inherited' }), { previousVibe: 'x' })],
    [topeka, 'examples.v1.SetVibeResponse', new Map()],
    [playground, 'playground.v1.Vibe', { since: '2024-01-02T03:04:05Z' }],
  ]
  it.each(cases.map(([codecs, name, json]) => ({ codecs, name, json })))('$name $json', ({ codecs, name, json }) => {
    expect(codecs.codecs.get(name)!(json, 0)).toBe(CODEC_BAIL)
  })

  it('a well-known root type has no codec (reflection converts it by hand)', () => {
    const rooted = playground.tools.find((t) => t.requestType === 'google.protobuf.Empty')
    expect(rooted).toBeDefined()
    expect([...playground.codecs.keys()]).toContain('google.protobuf.Empty')
    expect([...playground.codecs.keys()]).not.toContain('google.protobuf.Timestamp')
  })
})
