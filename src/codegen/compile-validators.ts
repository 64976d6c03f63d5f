/**
 * Compiles input schemas into Ajv standalone validators at build time, so
 * the user's program never compiles a schema (and never needs `Function`).
 */
import Ajv2020 from 'ajv/dist/2020.js'
import standaloneCode from 'ajv/dist/standalone/index.js'
import addFormats from 'ajv-formats'
import type { Logger } from 'ajv'
import { buildWarning, type BuildWarning } from '../proto/warnings.ts'
import { needsOwnProperties } from './own-properties.ts'
import { protectProtoKeys } from './protect-proto-keys.ts'
import { rewriteErrorConcat } from './rewrite-error-concat.ts'
import { rewriteRequires } from './rewrite-requires.ts'

/** A JSON Schema document, as plain JSON. */
export type JsonSchema = Record<string, unknown>

/**
 * The Ajv options every `?mcp` validator is compiled with; the runtime's
 * error texts read `schema`/`data` off each error, hence `verbose`.
 */
export const AJV_OPTIONS = {
  allErrors: true,
  verbose: true,
  // Schemas carry annotations Ajv does not know in strict mode; unknown
  // formats are still reported through the logger (see compileValidators).
  strict: false,
} as const

/** The result of {@link compileValidators}. */
export interface CompiledValidators {
  /** Pure ESM source declaring `inputValidator0`, `inputValidator1`, ... (not exported). */
  code: string
  /** For each input schema, the name of its validator (identical schemas share one). */
  names: string[]
  /** The `unplugin-proto-mcp/runtime` exports the code uses, sorted. */
  helpers: string[]
  /** What Ajv logged while compiling (e.g. an unknown format). */
  warnings: BuildWarning[]
}

/**
 * Creates an Ajv like the one validators are compiled with (2020-12,
 * {@link AJV_OPTIONS}, ajv-formats); `source` keeps the code for standalone output.
 */
export function createAjv(options: { source?: boolean; logger?: Logger; ownProperties?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    ...AJV_OPTIONS,
    // Only own keys count: see own-properties.ts.
    ...(options.ownProperties ? { ownProperties: true } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    // `lines` keeps generated validators reviewable in a diff (golden files).
    code: { source: options.source ?? false, esm: true, lines: options.source ?? false, optimize: true },
  })
  addFormats(ajv)
  return ajv
}

/**
 * Compiles each schema into one standalone module body. Deterministic: the
 * same schemas give the same code (each call numbers names in a fresh Ajv).
 * Throws when a schema does not compile, naming its tool (`names[i]`, else the index).
 */
export function compileValidators(schemas: readonly JsonSchema[], toolNames: readonly string[] = []): CompiledValidators {
  const warnings: BuildWarning[] = []
  const note = (...args: unknown[]): void => { warnings.push(buildWarning('AJV_LOG', args.map(String).join(' '))) }
  // Ajv's logger is the only way it reports ignored keywords and formats.
  const ajv = createAjv({ source: true, logger: { log: () => {}, warn: note, error: note }, ownProperties: needsOwnProperties(schemas) })
  const byJson = new Map<string, string>()
  const names: string[] = []
  const exports: Record<string, string> = {}
  schemas.forEach((schema, i) => {
    const json = JSON.stringify(schema)
    let name = byJson.get(json)
    if (name === undefined) {
      // A prefix Ajv never gives its own functions (`validate20`, ...).
      name = `inputValidator${byJson.size}`
      byJson.set(json, name)
      try {
        ajv.addSchema(schema, name)
        ajv.getSchema(name)
      } catch (cause) {
        const tool = toolNames[i] === undefined ? `#${i}` : `"${toolNames[i]}"`
        throw new Error(`cannot compile the input schema of tool ${tool}: ${(cause as Error).message}`, { cause })
      }
      exports[name] = name
    }
    names.push(name)
  })
  if (names.length === 0) return { code: '', names, helpers: [], warnings }
  const esm = standaloneCode(ajv, exports)
    .replace(/^"use strict";/, '')
    // The validators are module-private: the tool table is the interface.
    .replace(/\bexport const (inputValidator\d+) = /g, 'const $1 = ')
  const { code, helpers } = rewriteRequires(protectProtoKeys(rewriteErrorConcat(esm)))
  return { code, names, helpers, warnings }
}
