/**
 * Generated protobuf JSON codecs equal the reflection codec: on random
 * values (canonical and unusual spellings, wrong types, edge numbers) every
 * value a codec handles comes out exactly as reflection makes it, values it
 * does not handle bail, and the common shapes never bail.
 */
import fc from 'fast-check'
import protobuf from 'protobufjs/light.js'
import type { Enum, Field, Type } from 'protobufjs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CODEC_BAIL } from '../../src/runtime/codec.ts'
import { loadCodecs, reflect } from './codec-harness.ts'

const fixture = (path: string): string => fileURLToPath(new URL(`../../fixtures/${path}`, import.meta.url))
const PROTOS = {
  topeka: fixture('topeka/example.proto'),
  echo: fixture('protos/runtime/echo.proto'),
  playground: fileURLToPath(new URL('../../playground/vibe.proto', import.meta.url)),
}
const SEED = 20261105

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64')

function scalarArb(type: string): fc.Arbitrary<unknown> {
  const junk = fc.constantFrom<unknown>(true, 'abc', '', [], {}, 1.5, '1.0', ' 1')
  switch (type) {
    case 'string':
      return fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '\uD800', 'a\uDC00b', '😀'), junk)
    case 'bool':
      return fc.oneof(fc.boolean(), fc.constantFrom<unknown>('true', 0, 1), junk)
    case 'bytes':
      return fc.oneof(
        fc.uint8Array({ maxLength: 8 }).map(base64),
        fc.uint8Array({ maxLength: 8 }).map((b) => base64(b).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')),
        fc.constantFrom<unknown>('QR==', 'QQ', '!!!!', 'QQ==', 'QUI=', 'QUJ=', '', 'AAAA'),
        junk,
      )
    case 'double': case 'float':
      return fc.oneof(
        fc.double(), fc.integer(),
        fc.constantFrom<unknown>('NaN', 'Infinity', '-Infinity', '1.5', '1e3', -0, 3.5e38, -3.5e38, 3.4e38, Infinity, NaN, 'nan'),
        junk,
      )
    case 'int32': case 'sint32': case 'sfixed32': case 'uint32': case 'fixed32':
      return fc.oneof(
        fc.integer(), fc.integer({ min: 0, max: 4294967295 }), fc.integer().map(String),
        fc.constantFrom<unknown>(-0, '007', '+5', '1e3', '-0', 2147483648, -1, 4294967296, '4294967295', 1e3, 2.5),
        junk,
      )
    default: // 64-bit
      return fc.oneof(
        fc.maxSafeInteger(), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).map(String),
        fc.integer({ min: -99999, max: 99999 }).map(String),
        fc.constantFrom<unknown>(-0, '0', '-0', '00', '007', '+5', '1e3', 1e20, -1, '-1', '18446744073709551615', 9007199254740993, '123456789012345'),
        junk,
      )
  }
}

function enumArb(enm: Enum): fc.Arbitrary<unknown> {
  const names = Object.keys(enm.values)
  return fc.oneof(
    fc.constantFrom<unknown>(...names),
    fc.constantFrom<unknown>(...Object.values(enm.values)),
    fc.constantFrom<unknown>(99, -1, 1.5, 'NOPE', 'constructor', -0, null, true),
  )
}

const isMessage = (field: Field): boolean => field.resolvedType instanceof protobuf.Type
const isEnum = (field: Field): boolean => field.resolvedType instanceof protobuf.Enum

/** Random values for `type`: mostly messages keyed by JSON name, sometimes other spellings, unknown keys, nulls or junk. */
function messageArb(type: Type, depth: number): fc.Arbitrary<unknown> {
  if (type.fullName.startsWith('.google.protobuf.')) {
    return fc.constantFrom<unknown>(null, {}, '2024-01-02T03:04:05Z', '1.5s', 'a,b', 5, 'x', [1], { a: 1 })
  }
  const single = (field: Field): fc.Arbitrary<unknown> => {
    if (isMessage(field)) return depth > 2 ? fc.constant({}) : messageArb(field.resolvedType as Type, depth + 1)
    if (isEnum(field)) return enumArb(field.resolvedType as Enum)
    return scalarArb(field.type)
  }
  const parts = type.fieldsArray.map((f) => {
    const field = f.resolve()
    let value: fc.Arbitrary<unknown>
    if (field.map) {
      const keyType = (field as Field & { keyType: string }).keyType
      const key = keyType === 'string'
        ? fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '\uD800'))
        : keyType === 'bool' ? fc.constantFrom('true', 'false', 'yes')
          : fc.oneof(fc.integer().map(String), fc.constantFrom('-0', '007', 'x', '4294967296', '18446744073709551615'))
      value = fc.oneof(fc.dictionary(key, single(field), { maxKeys: 3 }), fc.constantFrom<unknown>(null, [], 'x'))
    } else if (field.repeated) {
      value = fc.oneof({ weight: 4, arbitrary: fc.array(single(field), { maxLength: 4 }) }, fc.constantFrom<unknown>(null, [null], 'x', {}))
    } else {
      value = fc.oneof({ weight: 6, arbitrary: single(field) }, fc.constant(null))
    }
    const spelling = field.name === field.jsonName
      ? fc.constant(field.jsonName)
      : fc.oneof({ weight: 8, arbitrary: fc.constant(field.jsonName) }, fc.constant(field.name))
    return fc.option(fc.tuple(spelling, value), { nil: undefined, freq: 2 })
  })
  const message = fc.tuple(fc.tuple(...parts), fc.option(fc.constantFrom('unknownKey', '__proto__'), { freq: 10, nil: undefined }))
    .map(([entries, extra]) => {
      const out: Record<string, unknown> = {}
      for (const entry of entries) if (entry) Object.defineProperty(out, entry[0], { value: entry[1], enumerable: true, writable: true, configurable: true })
      if (extra) Object.defineProperty(out, extra, { value: 1, enumerable: true, writable: true, configurable: true })
      return out
    })
  return fc.oneof({ weight: 12, arbitrary: message }, fc.constantFrom<unknown>(null, [], 'x', 5, Object.create(null)))
}

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
    [topeka, 'examples.v1.SetVibeDetailsRequest', {
      vibe: 'details',
      vibeScalar: {
        vibeDouble: 1.5, vibeFloat: 'NaN', vibeInt32: -3, vibeInt64: '42', vibeUint32: 0, vibeUint64: 7,
        vibeSint32: 5, vibeSint64: '-9', vibeFixed32: 4000000000, vibeFixed64: '12', vibeSfixed32: -1,
        vibeSfixed64: -2, vibeBool: true, vibeBytes: 'aGVsbG8=', vibeEnum: ['VIBE_GOOD', 0, 1],
      },
    }],
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
    [topeka, 'examples.v1.SetVibeRequest', { vibe: undefined }],
    [topeka, 'examples.v1.SetVibeRequest', { vibe: '\uD800' }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeInt32: '5' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeInt64: '007' } }],
    [topeka, 'examples.v1.SetVibeDetailsRequest', { vibeScalar: { vibeUint64: '18446744073709551615' } }],
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
    expect(playground.codecs.has('google.protobuf.Empty')).toBe(true)
    expect(playground.codecs.has('google.protobuf.Timestamp')).toBe(false)
  })
})
