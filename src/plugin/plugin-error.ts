/**
 * Turns a failure of the build pipeline into the error a bundler hook
 * throws: `{ message, id, loc: { file, line, column }, frame }`, so the
 * terminal and Vite's overlay point into the `.proto`.
 */
import { readFileSync } from 'node:fs'
import { isProtoError, protoErrorAt } from '../proto/index.ts'

/** An error thrown from the plugin's `load` hook. */
export interface PluginError extends Error {
  /** The module id that failed (`/abs/vibe.proto?mcp`). */
  id: string
  /**
   * Where in which `.proto` the problem is, when known: `line` and
   * `column` 1-based, as the message says it.
   */
  loc?: { file: string; line: number; column: number }
  /** A few lines of the `.proto` around `loc`, with a caret. */
  frame?: string
  /** The proto stage's code (`PROTO_SYNTAX`, `PROTO_IMPORT`, `PROTO_TYPE`). */
  code?: string
}

/** The `.proto` line at `loc` and the one before it, with a caret under the column. */
function codeFrame(file: string, line: number, column: number): string | undefined {
  let lines: string[]
  try {
    lines = readFileSync(file, 'utf8').split(/\r?\n/)
  } catch {
    return undefined
  }
  if (line < 1 || line > lines.length) return undefined
  const width = String(line).length
  const row = (n: number): string => `${String(n).padStart(width)} | ${lines[n - 1]}`
  const out = line > 1 ? [row(line - 1), row(line)] : [row(line)]
  out.push(`${' '.repeat(width)} | ${' '.repeat(Math.max(0, column - 1))}^`)
  return out.join('\n')
}

/**
 * Wraps `cause` (a `ProtoError` or anything else the pipeline threw) for
 * the module `id`. The message names the `.proto` file and, for a
 * `ProtoError`, its line and column.
 */
export function toPluginError(cause: unknown, id: string, file: string): PluginError {
  if (isProtoError(cause)) {
    // One place, `file:line:column`, 1-based as editors and terminals link it; `loc` says the same column, so the
    // header a bundler prints from it (Vite's `File: x.proto?mcp:11:42`, Rollup's `(11:42)`) agrees with the message.
    const error = new Error(protoErrorAt(cause), { cause }) as PluginError
    error.id = id
    error.code = cause.code
    error.loc = { file: cause.file, line: cause.line, column: cause.column }
    const frame = codeFrame(cause.file, cause.line, cause.column)
    if (frame !== undefined) error.frame = frame
    return error
  }
  const reason = cause instanceof Error ? cause.message : String(cause)
  const error = new Error(`cannot build "${file}?mcp": ${reason}`, { cause }) as PluginError
  error.id = id
  return error
}
