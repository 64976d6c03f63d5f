/**
 * Token counts of what a client hands its model for a tool (docs/profiles.md
 * §Token budget): OpenAI's o200k encoding, counted exactly with
 * `gpt-tokenizer`. The encoder is loaded on the first count that needs it
 * (a build stage only: generated modules never load it); text of at most
 * as many UTF-8 bytes as a limit needs no count to be known within it.
 */
import { createRequire } from 'node:module'

type Counter = (text: string) => number

let counter: Counter | undefined

function load(): Counter {
  if (counter === undefined) {
    const require = createRequire(import.meta.url)
    const encoding = require('gpt-tokenizer/cjs/encoding/o200k_base') as { countTokens: Counter }
    counter = (text) => encoding.countTokens(text)
  }
  return counter
}

/** The o200k token count of `text`. */
export function countTokens(text: string): number {
  return load()(text)
}

/** Whether `text` is at most `limit` o200k tokens: a token is at least one byte, so short texts are not counted. */
export function fitsTokens(text: string, limit: number): boolean {
  if (text.length <= limit && Buffer.byteLength(text) <= limit) return true
  return countTokens(text) <= limit
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
