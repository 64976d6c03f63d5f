/**
 * The corpus of real protos the token budget is held to (docs/profiles.md,
 * "Token budget"): Google's own APIs as the `google-proto-files` package
 * ships them (fixtures/corpus/google-protos.json), built as the command
 * builds them, and what a client hands the model for each tool, counted
 * with o200k (`gpt-tokenizer`, independently of the build's own count).
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { buildProtoTools, type ProtoTools } from '../../src/codegen/build-proto.ts'
import type { ToolBuildOptions } from '../../src/codegen/build-proto.ts'

/** The root of the `google-proto-files` package: the import path of every corpus proto. */
export const GOOGLE_PROTOS = dirname(createRequire(import.meta.url).resolve('google-proto-files/package.json'))

/** The corpus protos, relative to {@link GOOGLE_PROTOS}. */
export const CORPUS: readonly string[] = (
  JSON.parse(readFileSync(new URL('../../fixtures/corpus/google-protos.json', import.meta.url), 'utf8')) as { protos: string[] }
).protos

/** A tool as a client lists it: what is counted. */
export interface Listed {
  name: string
  description?: string
  inputSchema: unknown
}

/** The o200k tokens of a listed tool (`name`, `description`, `inputSchema` as compact JSON). */
export function tokensOf(tool: Listed): number {
  return countTokens(JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
}

/** One corpus proto built, and its listed tools (the type tool last, when there is one). */
export interface CorpusServer {
  proto: string
  built: ProtoTools
  listed: Listed[]
}

/** Builds `proto` (a corpus path) as `proto-mcp serve` would. */
export function buildCorpusProto(proto: string, options: ToolBuildOptions = {}): CorpusServer {
  const built = buildProtoTools(join(GOOGLE_PROTOS, proto), { ...options, importPaths: [GOOGLE_PROTOS] })
  const listed: Listed[] = [...built.tools, ...(built.types ? [built.types.tool] : [])]
  return { proto, built, listed }
}

/** The `q` quantile (0..1) of `values`, nearest rank. */
export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? 0
}
