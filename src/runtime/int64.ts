/**
 * Exact 64-bit integers (docs/calls.md, "Decoding"). A JSON number past ±2^53 is
 * rounded by every JSON reader of this runtime (`JSON.parse` runs before
 * a tool sees its arguments), and protobufjs reads a 64-bit string with
 * a fraction or an exponent through a double too. Here each is read
 * exactly, or refused:
 * - a number past ±2^53 is read from the text the client sent, when the
 *   transport kept it (stdio, HTTP, `fetch`: number-source.ts) and one
 *   literal of the message reads as that number; otherwise (in process,
 *   or two different literals that read as the same number) it is refused
 *   with a text that says to send the value as a string;
 * - a string such as `"1e3"` or `"1.50e2"` is its exact decimal value when
 *   that is an integer, and `not an integer` when it has a fraction, as
 *   Go's protojson reads it.
 */
import { literalOf, type NumberSource } from './number-source.ts'

/** The 64-bit integer types and their ranges. */
const RANGES: Readonly<Record<string, readonly [bigint, bigint]>> = {
  int64: [-(2n ** 63n), 2n ** 63n - 1n],
  sint64: [-(2n ** 63n), 2n ** 63n - 1n],
  sfixed64: [-(2n ** 63n), 2n ** 63n - 1n],
  uint64: [0n, 2n ** 64n - 1n],
  fixed64: [0n, 2n ** 64n - 1n],
}

/** Whether `type` (a protobuf scalar type name) is a 64-bit integer type. */
export const is64Bit = (type: string): boolean => Object.hasOwn(RANGES, type)

/** An integer written as protobufjs reads it without a double: optional sign, digits. */
const PLAIN_INTEGER_RE = /^[+-]?[0-9]+$/
/** The numbers protobufjs reads from a 64-bit string through `Number()` (its NUMERIC_RE), split into parts. */
const NUMBER_PARTS_RE = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/
/** A number text with digits on at least one side of the point (protobufjs's NUMERIC_RE, which `"."` and `"e5"` fail). */
const HAS_DIGIT_RE = /^[+-]?(?:[0-9]*\.[0-9]+|[0-9]+\.?)(?:[eE][+-]?[0-9]+)?$/

/** 2^64 has 20 digits: a value with more integer digits is out of every 64-bit range. */
const MAX_DIGITS = 21

/**
 * The exact value of a decimal number text (`-12`, `1.5e1`, `123e-3`): a
 * bigint when it is an integer, `'fraction'` when it is not, `'range'`
 * when it is an integer too large for any 64-bit type. `undefined` for
 * text that is not such a number.
 */
export function exactDecimal(text: string): bigint | 'fraction' | 'range' | undefined {
  if (!HAS_DIGIT_RE.test(text)) return undefined
  const parts = NUMBER_PARTS_RE.exec(text)
  if (parts === null) return undefined
  const [, sign, whole = '', fraction = '', exponent = '0'] = parts
  const digits = `${whole}${fraction}`.replace(/^0+/, '')
  if (digits === '') return 0n
  // The number is digits × 10^shift; an exponent past the double range reads as ±Infinity here, which is right either way.
  const shift = Number(exponent) - fraction.length
  let magnitude: bigint
  if (shift >= 0) {
    if (digits.length + shift > MAX_DIGITS) return 'range'
    magnitude = BigInt(digits) * 10n ** BigInt(shift)
  } else {
    const cut = -shift
    const dropped = cut >= digits.length ? digits : digits.slice(digits.length - cut)
    if (/[1-9]/.test(dropped)) return 'fraction'
    const kept = cut >= digits.length ? '' : digits.slice(0, digits.length - cut)
    if (kept.length > MAX_DIGITS) return 'range'
    magnitude = kept === '' ? 0n : BigInt(kept)
  }
  return sign === '-' ? -magnitude : magnitude
}

/** A 64-bit value as the decoder should read it: its exact decimal string, or why it is refused. */
export type Exact64 = { decimal: string } | { refused: string }

const inRange = (value: bigint, type: string): boolean => value >= RANGES[type]![0] && value <= RANGES[type]![1]

/** The text of a number past ±2^53 whose digits the client sent are not known. */
export function inexactNumberText(value: number): string {
  return `${BigInt(value)} is beyond ±2^53 as a JSON number, where numbers lose digits: send 64-bit integers as decimal strings`
}

/** Doubles near 2^64 are 4096 apart: a number farther than this past a range is out of it whatever digits were sent. */
const ROUNDING = 4096n

/** Whether a double is out of `type`'s range whatever literal it was read from. */
const clearlyOutOf = (value: number, type: string): boolean => {
  const big = BigInt(value)
  return big < RANGES[type]![0] - ROUNDING || big > RANGES[type]![1] + ROUNDING
}

/**
 * How the decoder should read `value` of a 64-bit field of `type`:
 * `undefined` when protobufjs reads it exactly as it is (a safe integer, a
 * plain decimal string) or refuses it with its own text (not a number,
 * not an integer); else its exact decimal string or the refusal.
 */
export function exact64(value: unknown, type: string, source: NumberSource | undefined): Exact64 | undefined {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || Number.isSafeInteger(value) || !Number.isInteger(value)) return undefined
    const literal = literalOf(source, value)
    if (literal !== undefined) return exactOf(literal, literal, type)
    // Far out of range, the digits do not matter: the decoder's own text, the number as JavaScript writes it (1e+30).
    return { refused: clearlyOutOf(value, type) ? `out of range for ${type}: ${value}` : inexactNumberText(value) }
  }
  if (typeof value !== 'string' || PLAIN_INTEGER_RE.test(value)) return undefined
  return exactOf(value, JSON.stringify(value), type)
}

function exactOf(text: string, shown: string, type: string): Exact64 | undefined {
  const exact = exactDecimal(text)
  if (exact === undefined) return undefined
  if (exact === 'fraction') return { refused: `not an integer: ${shown}` }
  if (exact === 'range' || !inRange(exact, type)) return { refused: `out of range for ${type}: ${shown}` }
  return { decimal: exact.toString() }
}
