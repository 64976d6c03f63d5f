/**
 * Build-time generated protobuf JSON codecs (src/codegen/emit-codec.ts) and
 * the helpers they import. A generated codec turns a value into the
 * canonical protobuf JSON the reflection codec would give, or answers
 * {@link CODEC_BAIL} for anything it does not handle exactly; the reflection
 * path then runs, so results and error texts stay those of protojson.
 */
import { isCanonicalBase64 } from './base64-check.ts'
import { exactIntegers } from './exact-integers.ts'
import type { NumberSource } from './number-source.ts'
import { fromJson, toJson } from './protojson.ts'
import type { CompiledTool } from './tool-table.ts'
import type { JsonCodec } from './types.ts'

/**
 * What a generated codec answers for a value it leaves to the reflection
 * codec. Registered (`Symbol.for`) so a runtime bundled twice agrees on it.
 */
export const CODEC_BAIL: unique symbol = Symbol.for('unplugin-proto-mcp.codec-bail') as never

/**
 * The deepest message nesting a generated codec handles: well under
 * protobufjs's `util.recursionLimit` (100), so reflection's "max depth
 * exceeded" is always reached through the bail-out.
 */
export const CODEC_MAX_DEPTH = 32

/** A canonical decimal integer: no sign but `-`, no leading zero, no `-0`. */
const CANONICAL_INTEGER_RE = /^(?:0|-?[1-9][0-9]*)$/
const INT64_MAX = '9223372036854775807'
const INT64_MIN_DIGITS = '9223372036854775808'
const UINT64_MAX = '18446744073709551615'

/** Whether canonical `digits` are at most `max` (both without sign): shorter, or as long and not after it. */
const atMost = (digits: string, max: string): boolean => digits.length < max.length || (digits.length === max.length && digits <= max)
/** A canonical int32 map key that is in range for sure (9 digits at most). */
export const CODEC_INT32_KEY_RE = /^(?:0|-?[1-9][0-9]{0,8})$/
/** As {@link CODEC_INT32_KEY_RE}, unsigned. */
export const CODEC_UINT32_KEY_RE = /^(?:0|[1-9][0-9]{0,8})$/
const LONE_SURROGATE_RE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const nativeWellFormed = (String.prototype as { isWellFormed?: () => boolean }).isWellFormed

/** Whether `s` has no unpaired surrogate (protojson rejects those in strings and map keys). */
export const codecWellFormed: (s: string) => boolean = nativeWellFormed
  ? (s) => nativeWellFormed.call(s)
  : (s) => !LONE_SURROGATE_RE.test(s)

/**
 * The number of enumerable keys of `m` whose value is not `undefined` (own,
 * plus inherited ones only if someone made `Object.prototype`
 * enumerable-polluted, which then mismatches and bails): a codec compares it
 * with the fields it read, so an unknown key or another spelling of a field
 * bails. A key set to `undefined` is "not set", as a codec reads it.
 */
export function codecKeyCount(m: object): number {
  let n = 0
  for (const k in m) if ((m as Record<string, unknown>)[k] !== undefined) n++
  return n
}

const MAX_FLOAT = 3.4028234663852886e38
const B: unknown = CODEC_BAIL

/** A string field's value as is, or {@link CODEC_BAIL} (not a string, or an unpaired surrogate). */
export const codecString = (v: unknown): unknown => (typeof v === 'string' && codecWellFormed(v) ? v : B)
/** A bool field's value as is, or {@link CODEC_BAIL}. */
export const codecBool = (v: unknown): unknown => (typeof v === 'boolean' ? v : B)
/** An int32/sint32/sfixed32 number (`-0` as `0`), or {@link CODEC_BAIL} (strings, fractions, out of range). */
export const codecInt32 = (v: unknown): unknown => (typeof v === 'number' && (v | 0) === v ? v | 0 : B)
/** A uint32/fixed32 number (`-0` as `0`), or {@link CODEC_BAIL}. */
export const codecUint32 = (v: unknown): unknown => (typeof v === 'number' && v >>> 0 === v ? v >>> 0 : B)
/**
 * A signed 64-bit value as its decimal string (safe integers; canonical
 * decimal strings in range, compared as text: 200 000 of them must not
 * each take the reflection path), or {@link CODEC_BAIL}.
 */
export function codecInt64(v: unknown): unknown {
  if (typeof v === 'number') return Number.isSafeInteger(v) ? `${v}` : B
  if (typeof v !== 'string' || !CANONICAL_INTEGER_RE.test(v)) return B
  return v.charCodeAt(0) === 45 ? (atMost(v.slice(1), INT64_MIN_DIGITS) ? v : B) : atMost(v, INT64_MAX) ? v : B
}
/** As {@link codecInt64}, unsigned. */
export function codecUint64(v: unknown): unknown {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? `${v}` : B
  return typeof v === 'string' && CANONICAL_INTEGER_RE.test(v) && v.charCodeAt(0) !== 45 && atMost(v, UINT64_MAX) ? v : B
}
/** A finite double as is, or `"NaN"`/`"Infinity"`/`"-Infinity"` as is, else {@link CODEC_BAIL}. */
export function codecDouble(v: unknown): unknown {
  if (typeof v === 'number') return v - v === 0 ? v : B
  return v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? v : B
}
/** As {@link codecDouble}, within float range. */
export function codecFloat(v: unknown): unknown {
  if (typeof v === 'number') return v - v === 0 && v <= MAX_FLOAT && v >= -MAX_FLOAT ? v : B
  return v === 'NaN' || v === 'Infinity' || v === '-Infinity' ? v : B
}
/** Canonical base64 as is, or {@link CODEC_BAIL} (URL-safe, unpadded, stray bits: reflection re-encodes those). */
export const codecBytes = (v: unknown): unknown => (typeof v === 'string' && isCanonicalBase64(v) ? v : B)

/**
 * An enum value as the name protojson writes: `names` maps each accepted
 * name, `numbers` each known number, to it (null-prototype tables); an
 * unknown number stays a number unless the enum is `closed`.
 */
export function codecEnum(v: unknown, names: Record<string, string>, numbers: Record<number, string>, closed: boolean): unknown {
  if (typeof v === 'string') return names[v] ?? B
  if (typeof v !== 'number' || (v | 0) !== v) return B
  return numbers[v] ?? (closed ? B : v | 0)
}

/** Whether `m` is a plain object (`{}` literal or `JSON.parse` output), the only objects codecs read. */
export function codecIsPlain(m: unknown): m is Record<string, unknown> {
  return typeof m === 'object' && m !== null && Object.getPrototypeOf(m) === Object.prototype
}

function runCodec(codec: JsonCodec, json: unknown): unknown {
  try {
    return codec(json, 0)
  } catch {
    // A throwing getter or a stack overflow: reflection decides what it means.
    return CODEC_BAIL
  }
}

/**
 * The canonical request JSON of validated `input` (docs/calls.md, "Decoding"): the
 * tool's generated codec when it has one and handles the value, else the
 * reflection codec, after the exact pass over its 64-bit values (`source`:
 * the text the arguments came from, for numbers past ±2^53). Throws what
 * the reflection codec throws, or the exact pass's `ExactIntegerError`.
 */
export function decodeRequest(tool: CompiledTool, input: unknown, source?: NumberSource): unknown {
  const codec = tool.spec.decode
  if (codec !== undefined) {
    const out = runCodec(codec, input)
    if (out !== CODEC_BAIL) return out
  }
  return toJson(tool.requestType, fromJson(tool.requestType, exactIntegers(tool.requestType, input, source)))
}

/**
 * The canonical JSON of a handler's `response` (docs/calls.md, "Result encoding and structured content"), as
 * {@link decodeRequest} for the response type. Throws what the reflection
 * codec throws; the pipeline's fix-up fallback handles that.
 */
export function encodeResponse(tool: CompiledTool, response: unknown): unknown {
  const codec = tool.spec.encode
  if (codec !== undefined) {
    const out = runCodec(codec, response)
    if (out !== CODEC_BAIL) return out
  }
  return toJson(tool.responseType, fromJson(tool.responseType, response))
}
