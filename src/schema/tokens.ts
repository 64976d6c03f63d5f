/**
 * Token counts of what a client hands its model for a tool (docs/profiles.md,
 * "Token budget"): OpenAI's o200k encoding, counted exactly with
 * `gpt-tokenizer`. The encoder is loaded on the first count that needs it
 * (a build stage only: generated modules never load it); text of at most
 * as many UTF-8 bytes as a limit needs no count to be known within it.
 */
import { createRequire } from 'node:module'

type Counter = (text: string) => number

interface Encoding {
  countTokens: Counter
  /** The count when it is at most `limit`, else false: stops counting past the limit. */
  isWithinTokenLimit: (text: string, limit: number) => number | false
}

let encoding: Encoding | undefined

function load(): Encoding {
  if (encoding === undefined) {
    const require = createRequire(import.meta.url)
    encoding = require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding
  }
  return encoding
}

/**
 * Counts already made, by text: a build counts the same texts many times
 * (a message's shell at each site that opens it, a tool's fitted text again
 * for the list's total and the verbose report, the type tool's answers).
 * Exact by construction: a count is only ever reused for the same text.
 * Dropped whole past {@link COUNT_CACHE_CHARS} characters of keys.
 */
const counted = new Map<string, number>()
let cachedChars = 0

/** The most characters of text the count cache holds before it starts afresh. */
export const COUNT_CACHE_CHARS = 32 * 1024 * 1024

/** The o200k token count of `text` (counted once per distinct text: see {@link counted}). */
export function countTokens(text: string): number {
  const known = counted.get(text)
  if (known !== undefined) return known
  return remember(text, load().countTokens(text))
}

function remember(text: string, count: number): number {
  if (cachedChars + text.length > COUNT_CACHE_CHARS) {
    counted.clear()
    cachedChars = 0
  }
  counted.set(text, count)
  cachedChars += text.length
  return count
}

/** The o200k count of `text` made afresh, past the cache (the tests compare the two). */
export function countTokensFresh(text: string): number {
  return load().countTokens(text)
}

/**
 * Whether `text` is at most `limit` o200k tokens: a token is at least one
 * byte, so short texts are not counted, and a long one is counted only
 * until it passes the limit (a whole schema of many megabytes is known to
 * be over after its first few thousand tokens).
 */
export function fitsTokens(text: string, limit: number): boolean {
  if (text.length <= limit && Buffer.byteLength(text) <= limit) return true
  const known = counted.get(text)
  if (known !== undefined) return known <= limit
  const within = load().isWithinTokenLimit(text, limit)
  if (within === false) return false
  remember(text, within)
  return true
}

/** A tool as a client hands it to the model: what is counted. */
export interface CountedTool {
  name: string
  description?: string
  inputSchema: unknown
}

/** The text counted for a tool: compact JSON of its `name`, `description` and `inputSchema`. */
export function toolText(tool: CountedTool): string {
  return JSON.stringify({ name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema })
}

/** The o200k tokens a client spends on `tool` (its name, description and input schema as compact JSON). */
export function toolTokens(tool: CountedTool): number {
  return countTokens(toolText(tool))
}
