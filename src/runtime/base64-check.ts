/**
 * Base64 checks in linear time for any length. A regular expression with a
 * repeated group (`(?:[A-Za-z0-9+/]{4})*`) backtracks one frame per group
 * and overflows V8's stack past about 4.4 M characters (3.3 MiB of bytes),
 * under what gRPC and the HTTP body limit allow; these check the padding by
 * hand and the alphabet with a single negated class, which never backtracks.
 */

const NOT_STANDARD = /[^A-Za-z0-9+/]/
const NOT_EITHER = /[^A-Za-z0-9+/_-]/
const EQUALS = 61

/** The last data character before `==` or `=` whose unused low bits are zero. */
const ZERO_BITS_BEFORE_TWO = 'AQgw'
const ZERO_BITS_BEFORE_ONE = 'AEIMQUYcgkosw048'

/**
 * Padded standard base64 whose unused trailing bits are zero: exactly the
 * strings that decode and re-encode to themselves (protobuf JSON's
 * canonical bytes).
 */
export function isCanonicalBase64(s: string): boolean {
  const n = s.length
  if (n % 4 !== 0) return false
  let end = n
  if (n > 0 && s.charCodeAt(n - 1) === EQUALS) {
    if (s.charCodeAt(n - 2) === EQUALS) {
      end = n - 2
      if (!ZERO_BITS_BEFORE_TWO.includes(s.charAt(n - 3))) return false
    } else {
      end = n - 1
      if (!ZERO_BITS_BEFORE_ONE.includes(s.charAt(n - 2))) return false
    }
  }
  return !NOT_STANDARD.test(end === n ? s : s.slice(0, end))
}

/**
 * Base64 as protobuf JSON reads it: the standard or the URL-safe alphabet,
 * padded or not; padding (one or two `=`) only to complete the last quad.
 */
export function isBase64(s: string): boolean {
  let end = s.length
  let pad = 0
  while (pad < 2 && end > 0 && s.charCodeAt(end - 1) === EQUALS) {
    end--
    pad++
  }
  const rest = end % 4
  if (pad === 0 ? rest === 1 : rest !== 4 - pad) return false
  return !NOT_EITHER.test(end === s.length ? s : s.slice(0, end))
}

/** A string for an error text: itself as JSON when short, else its start and its length. */
export function shownString(s: string, max = 64): string {
  return s.length <= max ? JSON.stringify(s) : `${JSON.stringify(s.slice(0, max))}... (${s.length} characters)`
}
