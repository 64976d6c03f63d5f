/**
 * The JSON text a tool call's arguments were parsed from, kept by the
 * transports that parse it (stdio, HTTP, `fetch`) so that a number past
 * ±2^53 can be read as the client wrote it (int64.ts). The text is looked
 * at only when such a number reaches a 64-bit field: then it is scanned
 * once for its number literals.
 */

/** The text a message was parsed from; its number literals past ±2^53 are found on first use. */
export interface NumberSource {
  readonly text: string
  literals?: Map<number, Set<string>>
}

const sources = new WeakMap<object, NumberSource>()

/** 2^53: the first integer a double cannot tell from its neighbour. */
const EXACT_LIMIT = 2 ** 53

/**
 * Records that what `key` holds came from `text`: an HTTP request (its
 * body), or the `params.arguments` of a JSON-RPC message the stdio wire
 * read. Kept as long as `key` lives, no longer.
 */
export function rememberSource(key: object, text: string): void {
  sources.set(key, { text })
}

/** The text `key` (a tool call's arguments) came from, when a transport recorded it. */
export function sourceOf(key: unknown): NumberSource | undefined {
  return key !== null && typeof key === 'object' ? sources.get(key) : undefined
}

/**
 * Gives `args` the source recorded for `from`, unless it has one: a tool
 * call's arguments as the SDK hands them over (its schemas copy objects)
 * take the source of the HTTP request they came in, or of the request's
 * signal, which took it from the raw arguments before the copy.
 */
export function adoptSource(args: unknown, from: unknown): void {
  if (args === null || typeof args !== 'object' || sources.has(args)) return
  const source = sourceOf(from)
  if (source !== undefined) sources.set(args, source)
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57
// Characters a JSON number token is made of: digits, - + . e E.
const isNumberChar = (c: number): boolean => isDigit(c) || c === 45 || c === 43 || c === 46 || c === 101 || c === 69

/** Every number literal of `text` (outside strings) that reads as a number past ±2^53, by the number it reads as. */
function scan(text: string): Map<number, Set<string>> {
  const found = new Map<number, Set<string>>()
  const n = text.length
  let i = 0
  while (i < n) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // A string: to its closing quote, escapes skipped.
      i++
      while (i < n) {
        const s = text.charCodeAt(i)
        if (s === 92) i += 2
        else if (s === 34) break
        else i++
      }
      i++
    } else if (c === 45 || isDigit(c)) {
      let j = i + 1
      while (j < n && isNumberChar(text.charCodeAt(j))) j++
      const literal = text.slice(i, j)
      const value = Number(literal)
      if (Number.isFinite(value) && Math.abs(value) >= EXACT_LIMIT) {
        let same = found.get(value)
        if (same === undefined) found.set(value, (same = new Set()))
        same.add(literal)
      }
      i = j
    } else i++
  }
  return found
}

/**
 * The literal of `source` that reads as `value`, when exactly one does
 * (the same literal written twice counts once); `undefined` without a
 * source, or when none or several different ones do.
 */
export function literalOf(source: NumberSource | undefined, value: number): string | undefined {
  if (source === undefined) return undefined
  source.literals ??= scan(source.text)
  const same = source.literals.get(value)
  return same?.size === 1 ? same.values().next().value : undefined
}
