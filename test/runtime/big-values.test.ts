/**
 * The runtime's checks of big values, alone (test/reliability/big-data.test.ts
 * drives them through the transports):
 * - base64 is checked in linear time: the same answers as the regular
 *   expressions it replaces, on every short string, and an answer at all
 *   at 10 M characters (where those overflowed the stack);
 * - 64-bit strings the generated codec keeps are every canonical decimal in
 *   range, compared as text (a 19-digit string no longer takes the
 *   reflection path), and nothing else;
 * - exact decimals of number texts, and the literals found in a text;
 * - stdio's id scanner finds a top-level id wherever the client wrote it.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isBase64, isCanonicalBase64 } from '../../src/runtime/base64-check.ts'
import { CODEC_BAIL, codecInt64, codecUint64 } from '../../src/runtime/codec.ts'
import { exactDecimal } from '../../src/runtime/int64.ts'
import { literalOf, type NumberSource } from '../../src/runtime/number-source.ts'
import { IdScanner } from '../../src/server/stdio/stdio-wire.ts'

// The regular expressions the checks replace (they overflow V8's stack past about 4.4 M characters).
const CANONICAL_RE = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$/
const LENIENT_RE = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/

const base64ish = fc.string({ unit: fc.constantFrom(...'ABQgwz09+/-_=!A'.split('')), maxLength: 14 })

describe('base64 checks', () => {
  it('answer as the regular expressions did on every short string', () => {
    fc.assert(
      fc.property(base64ish, (s) => {
        expect(isCanonicalBase64(s), s).toBe(CANONICAL_RE.test(s))
        expect(isBase64(s), s).toBe(LENIENT_RE.test(s))
      }),
      { seed: 20261201, numRuns: 20_000 },
    )
  })

  it('answer at 10 M characters, where the regular expressions overflow', () => {
    const long = 'QUJD'.repeat(2_500_000)
    expect(() => CANONICAL_RE.test(long)).toThrow(RangeError)
    expect(isCanonicalBase64(long)).toBe(true)
    expect(isBase64(long)).toBe(true)
    expect(isBase64(`${long}=`)).toBe(false)
    expect(isCanonicalBase64(`${long.slice(1)}A=`)).toBe(false)
  })
})

describe('the codec keeps canonical 64-bit strings in range', () => {
  it('up to the limits, compared as text; past them, or not canonical, it bails', () => {
    for (const kept of ['0', '-1', '9007199254740993', '9223372036854775807', '-9223372036854775808', '1234567890123456789'])
      expect(codecInt64(kept), kept).toBe(kept)
    for (const bailed of ['9223372036854775808', '-9223372036854775809', '10000000000000000000', '-0', '01', '+1', '1e3', ' 1', ''])
      expect(codecInt64(bailed), bailed).toBe(CODEC_BAIL)
    for (const kept of ['0', '18446744073709551615', '9223372036854775808']) expect(codecUint64(kept), kept).toBe(kept)
    for (const bailed of ['18446744073709551616', '-1', '-0', '00']) expect(codecUint64(bailed), bailed).toBe(CODEC_BAIL)
  })

  it('agrees with BigInt on random decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(2n ** 65n), max: 2n ** 65n }), (n) => {
        const s = n.toString()
        expect(codecInt64(s) === s).toBe(n >= -(2n ** 63n) && n < 2n ** 63n)
        expect(codecUint64(s) === s).toBe(n >= 0n && n < 2n ** 64n)
      }),
      { seed: 20261201, numRuns: 5_000 },
    )
  })
})

describe('exact decimals', () => {
  it('read integers exactly and tell a fraction from an integer', () => {
    expect(exactDecimal('1e3')).toBe(1000n)
    expect(exactDecimal('1.50e2')).toBe(150n)
    expect(exactDecimal('-0.0')).toBe(0n)
    expect(exactDecimal('123456789012345678901e-3')).toBe('fraction')
    expect(exactDecimal('1e-999999999')).toBe('fraction')
    expect(exactDecimal('0e999999999')).toBe(0n)
    expect(exactDecimal('1e999999999')).toBe('range')
    expect(exactDecimal('9223372036854775807000e-3')).toBe(9223372036854775807n)
    expect(exactDecimal('abc')).toBeUndefined()
    expect(exactDecimal('.')).toBeUndefined()
  })

  it('find the one literal of a text that reads as a number, outside strings', () => {
    const source: NumberSource = { text: '{"a":"9007199254740993","b":9007199254740993,"c":[1e300,9007199254740993]}' }
    // 2^53 + 1 reads as 2^53.
    expect(literalOf(source, 2 ** 53)).toBe('9007199254740993')
    expect(literalOf(source, 1e300)).toBe('1e300')
    // Two different literals that read as the same number: neither is known.
    expect(literalOf({ text: '[9007199254740993,9007199254740992.0]' }, 2 ** 53)).toBeUndefined()
    expect(literalOf(undefined, 2 ** 53)).toBeUndefined()
  })
})

describe("stdio's id scanner", () => {
  const idOf = (text: string, pieces = 1): unknown => {
    const scanner = new IdScanner()
    const bytes = Buffer.from(text)
    const step = Math.ceil(bytes.length / pieces)
    for (let i = 0; i < bytes.length; i += step) scanner.feed(bytes.subarray(i, i + step))
    return scanner.id
  }

  it('finds the top-level id first, last, split across pieces, as a string with escapes, and only at the top', () => {
    expect(idOf('{"id":5,"method":"x"}')).toBe(5)
    expect(idOf('{"method":"x","params":{"id":9,"a":[{"id":1}]},"id":"a\\"b"}', 7)).toBe('a"b')
    expect(idOf('{"params":{"id":9},"jsonrpc":"2.0"}')).toBeUndefined()
    expect(idOf('{"id":null,"x":1}')).toBeNull()
    expect(idOf('{"x":"\\"id\\":3","id":-2.5e1}', 3)).toBe(-25)
    expect(idOf('{"id":{"nested":1}}')).toBeUndefined()
    expect(idOf('{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"arguments":{"data":"AAAA')).toBe(12)
  })
})
