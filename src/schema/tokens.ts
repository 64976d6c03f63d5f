/**
 * Token counts of what a client hands its model for a tool (docs/profiles.md,
 * "Token budget"): OpenAI's o200k encoding, counted exactly with
 * `gpt-tokenizer`. The encoder is loaded on the first count that needs it
 * (a build stage only: generated modules never load it). Whether a text is
 * within a limit is often known without it (docs/internals.md, "Token
 * counts: where they are made, paid once"): a text of at most as many UTF-8
 * bytes as the limit is, and so is one whose upper bound
 * ({@link tokensAtMost}) is. gpt-tokenizer is pinned to one version
 * (package.json): the split regex comes from a file of its layout
 * (`cjs/encodingParams/constants`), and o200k-pieces.json is checked against
 * its vocabulary (test/schema/o200k-pieces.test.ts, which reads the same file).
 */
import { createRequire } from 'node:module'
import PIECES from './o200k-pieces.json'

interface Encoding {
  countTokens: (text: string, options: Plain) => number
  /** The count when it is at most `limit`, else false: stops counting past the limit. */
  isWithinTokenLimit: (text: string, limit: number, options: Plain) => number | false
}

/** Encode options: a special token's text (`<|endoftext|>` in a comment) is counted as the text it is, not refused. */
type Plain = { disallowedSpecial: Set<string> }
const PLAIN: Plain = { disallowedSpecial: new Set() }

const require = createRequire(import.meta.url)
let encoding: Encoding | undefined

function load(): Encoding {
  encoding ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding
  return encoding
}

/** Whether the encoder is loaded (the tests check what needs it). */
export function encoderLoaded(): boolean {
  return encoding !== undefined
}

let split: RegExp | undefined
let pieces: ReadonlySet<string> | undefined

/**
 * An upper bound of the o200k count of `text`, made without the vocabulary
 * (its rank table is megabytes of code to load): o200k's own pre-tokenizer
 * splits the text into pieces, each encoded alone; a piece that is one
 * token of the vocabulary is encoded as that token, and any other as at
 * most one token per UTF-8 byte. `PIECES` (o200k-pieces.json) are common
 * pieces of tool schemas, each one token (checked by
 * test/schema/o200k-pieces.test.ts). Stops once past `limit`.
 */
export function tokensAtMost(text: string, limit = Number.POSITIVE_INFINITY): number {
  split ??= (require('gpt-tokenizer/cjs/encodingParams/constants') as { O200K_TOKEN_SPLIT_REGEX: RegExp }).O200K_TOKEN_SPLIT_REGEX
  pieces ??= new Set(PIECES as string[])
  let bound = 0
  for (const [piece] of text.matchAll(split)) {
    bound += pieces.has(piece) ? 1 : Buffer.byteLength(piece)
    if (bound > limit) break
  }
  return bound
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
  return remember(text, load().countTokens(text, PLAIN))
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
  return load().countTokens(text, PLAIN)
}

/**
 * Whether `text` is at most `limit` o200k tokens: a token is at least one
 * byte, so short texts are not counted; while the encoder is not loaded,
 * neither are those whose upper bound ({@link tokensAtMost}) is within it
 * (a small API's tools never load it). Another is counted only until it
 * passes the limit (a whole schema of many megabytes is known to be over
 * after its first few thousand tokens).
 */
export function fitsTokens(text: string, limit: number): boolean {
  // Below zero nothing fits (the encoder's own check says 0 tokens fit -1).
  if (limit < 0) return false
  if (text.length <= limit && Buffer.byteLength(text) <= limit) return true
  const known = counted.get(text)
  if (known !== undefined) return known <= limit
  // Until a text needs the encoder, the bound spares its load; once loaded, an exact count stopping at the limit costs less.
  if (encoding === undefined && tokensAtMost(text, limit) <= limit) return true
  const within = load().isWithinTokenLimit(text, limit, PLAIN)
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
