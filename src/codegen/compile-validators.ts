/**
 * Compiles input schemas into Ajv standalone validators at build time, so
 * the user's program never compiles a schema (and never needs `Function`).
 */
import Ajv2020 from 'ajv/dist/2020.js'
import standaloneCode from 'ajv/dist/standalone/index.js'
import addFormats from 'ajv-formats'
import { _, and, or, stringify } from 'ajv/dist/compile/codegen/index.js'
import type { KeywordDefinition, Logger } from 'ajv'
import { GENERATED_VALIDATOR_OPTIONS } from '../contract/index.ts'
import type { GeneratedImport, JsonSchema, ValidateFunction } from '../contract/index.ts'
import { buildWarning, type BuildWarning } from '../proto/warnings.ts'
import { sameJson } from '../schema/budget.ts'
import { needsOwnProperties } from './own-properties.ts'
import { protectProtoKeys } from './protect-proto-keys.ts'
import { compactErrorPushes, rewriteErrorConcat } from './rewrite-error-concat.ts'
import { rewriteRequires } from './rewrite-requires.ts'
import { NOT_IN_KEYWORD, PROTO_FLOAT_KEYWORD, shareSchemas, validatorSchema } from './validator-schema.ts'

export type { JsonSchema }

/**
 * The Ajv options every `?mcp` validator is compiled with (the contract's):
 * unknown formats are still reported through the logger (see compileValidators).
 */
export const AJV_OPTIONS = GENERATED_VALIDATOR_OPTIONS

/** The two keywords of validator-schema.ts, as code (standalone output needs code keywords). */
const KEYWORDS: KeywordDefinition[] = [
  {
    keyword: PROTO_FLOAT_KEYWORD,
    schemaType: 'array',
    code(cxt) {
      const { data, schema } = cxt
      cxt.fail(and(_`typeof ${data} != "number"`, ...(schema as Array<string | null>).map((s) => _`${data} !== ${s}`)))
    },
  },
  {
    keyword: NOT_IN_KEYWORD,
    schemaType: 'array',
    code(cxt) {
      const { data, schema } = cxt
      const values = schema as Array<string | number | boolean | null>
      // `not_in: []` excludes nothing.
      if (values.length > 0) cxt.fail(or(...values.map((v) => _`${data} === ${v}`)))
    },
    error: { message: 'must not be one of the values', params: ({ schema }) => _`{values: ${stringify(schema)}}` },
  },
]

/** The result of {@link compileValidators}. */
export interface CompiledValidators {
  /** Pure ESM source declaring `inputValidator0`, `inputValidator1`, ... (not exported). */
  code: string
  /** For each input schema, the name of its validator (identical schemas share one). */
  names: string[]
  /** The `unplugin-proto-mcp/codegen-v1` exports the code uses, sorted. */
  helpers: GeneratedImport[]
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
    // Checked against the draft by the process's one checker instead ({@link checkDraft}): a fresh Ajv compiles the meta-schema anew.
    validateSchema: false,
    // `lines` keeps generated validators reviewable in a diff (golden files).
    code: { source: options.source ?? false, esm: true, lines: options.source ?? false, optimize: true },
  })
  // No schema of ours uses `unevaluated*`: without this, every function tracks what it evaluated.
  ajv.opts.unevaluated = false
  addFormats(ajv)
  for (const keyword of KEYWORDS) ajv.addKeyword(keyword)
  return ajv
}

/** The one Ajv of the process that checks schemas against the 2020-12 meta-schema (compiled on first use, once). */
let draft: Ajv2020 | undefined

/**
 * Throws Ajv's own `schema is invalid: ...` when `schema` is no 2020-12
 * schema, as an Ajv with `validateSchema` does on `addSchema`; the
 * meta-schema compiles once a process, not once a build (a build in a
 * fresh Ajv paid for it each time: a tenth of a second per `.proto` edit).
 * A module's build checks; a start in process does not ({@link compileValidatorsInProcess}).
 */
function checkDraft(schema: JsonSchema): void {
  draft ??= new Ajv2020({ strict: false, validateFormats: false, logger: false })
  if (!draft.validateSchema(schema)) throw new Error(`schema is invalid: ${draft.errorsText(draft.errors)}`)
}

/** The result of {@link addValidators}. */
interface AddedValidators {
  /** For each input schema, the key of its validator (identical schemas share one). */
  names: string[]
  /** The keys of the distinct validators. */
  distinct: string[]
}

/**
 * Adds the validator form of `schemas` to `ajv` (validator-schema.ts: no
 * annotations, shared message schemas once), each distinct one under
 * `inputValidatorN`, and compiles them: all of them, or only those a schema
 * before `eager` first gives (the others compile on `ajv.getSchema`). Throws
 * when a schema does not compile, naming its tool (`names[i]`, else the index).
 */
function addValidators(
  ajv: Ajv2020,
  schemas: readonly JsonSchema[],
  toolNames: readonly string[],
  eager = schemas.length,
  draftChecked = true,
): AddedValidators {
  const firsts: number[] = []
  const names = schemas.map((schema, i) => {
    // Compared without writing either (a big request's validation schema is megabytes; two differ early).
    let n = firsts.findIndex((first) => sameJson(schemas[first], schema))
    if (n < 0) {
      n = firsts.length
      firsts.push(i)
    }
    // A prefix Ajv never gives its own functions (`validate20`, ...).
    return `inputValidator${n}`
  })
  const { roots, shared } = shareSchemas(firsts.map((i) => validatorSchema(schemas[i]) as JsonSchema))
  for (const schema of shared) {
    if (draftChecked) checkDraft(schema)
    ajv.addSchema(schema)
  }
  const distinct = roots.map((root, n) => {
    const name = `inputValidator${n}`
    const i = firsts[n]!
    try {
      if (draftChecked) checkDraft(root)
      ajv.addSchema(root, name)
      if (i < eager) ajv.getSchema(name)
    } catch (cause) {
      const tool = toolNames[i] === undefined ? `#${i}` : `"${toolNames[i]}"`
      throw new Error(`cannot compile the input schema of tool ${tool}: ${(cause as Error).message}`, { cause })
    }
    return name
  })
  return { names, distinct }
}

/** A validator compiled on its first call by `compile` (its `errors` those of the compiled one). */
function onFirstCall(compile: () => ValidateFunction): ValidateFunction {
  let compiled: ValidateFunction | undefined
  const validate: ValidateFunction = (data) => {
    compiled ??= compile()
    const valid = compiled(data)
    validate.errors = compiled.errors
    return valid
  }
  return validate
}

/** The result of {@link compileValidatorsInProcess}. */
export interface InProcessValidators {
  /** For each input schema, its validator (identical schemas share one). */
  validators: ValidateFunction[]
  /** What Ajv logged while compiling (e.g. an unknown format). */
  warnings: BuildWarning[]
}

/**
 * Compiles `schemas` now, in this process (the CLI's gateway), exactly as
 * {@link compileValidators} would for a module: the same schema forms, the
 * same error shapes, Ajv's error concat made linear. Those from index `eager`
 * on (the recursive messages' `full` validators, which only a request with
 * JSON text past the recursion depth calls) compile on their first call, in
 * the same Ajv: a start does not wait for them (docs/internals.md, "Start-up").
 */
export function compileValidatorsInProcess(
  schemas: readonly JsonSchema[],
  toolNames: readonly string[] = [],
  eager = schemas.length,
): InProcessValidators {
  const warnings: BuildWarning[] = []
  const note = (...args: unknown[]): void => {
    warnings.push(buildWarning('AJV_LOG', args.map(String).join(' ')))
  }
  const ajv = createAjv({ logger: { log: () => {}, warn: note, error: note }, ownProperties: needsOwnProperties(schemas) })
  // Ajv's own code gathers errors with a quadratic concat (a request of many bad items would stall the gateway).
  ajv.opts.code.process = (code) => rewriteErrorConcat(code)
  // Not checked against the draft: a start would compile the meta-schema for it (a tenth of a second). The same
  // schemas are checked where a module is built; a malformed keyword value still fails here, in Ajv's compile.
  const { names } = addValidators(ajv, schemas, toolNames, eager, false)
  const compiled = (name: string): ValidateFunction => ajv.getSchema(name) as unknown as ValidateFunction
  // A schema before `eager` of the same text was compiled above; a later one compiles when first called.
  const firstOf = new Map<string, number>()
  names.forEach((name, i) => firstOf.has(name) || firstOf.set(name, i))
  return {
    validators: names.map((name) => (firstOf.get(name)! < eager ? compiled(name) : onFirstCall(() => compiled(name)))),
    warnings,
  }
}

/**
 * Compiles each schema into one standalone module body. Deterministic: the
 * same schemas give the same code (each call numbers names in a fresh Ajv).
 * Throws when a schema does not compile, naming its tool (`names[i]`, else the index).
 */
export function compileValidators(schemas: readonly JsonSchema[], toolNames: readonly string[] = []): CompiledValidators {
  const warnings: BuildWarning[] = []
  const note = (...args: unknown[]): void => {
    warnings.push(buildWarning('AJV_LOG', args.map(String).join(' ')))
  }
  // Ajv's logger is the only way it reports ignored keywords and formats.
  const ajv = createAjv({ source: true, logger: { log: () => {}, warn: note, error: note }, ownProperties: needsOwnProperties(schemas) })
  const { names, distinct } = addValidators(ajv, schemas, toolNames)
  const exports = Object.fromEntries(distinct.map((name) => [name, name]))
  if (names.length === 0) return { code: '', names, helpers: [], warnings }
  const esm = standaloneCode(ajv, exports)
    .replace(/^"use strict";/, '')
    // The validators are module-private: the tool table is the interface.
    .replace(/\bexport const (inputValidator\d+) = /g, 'const $1 = ')
  const { code, helpers } = rewriteRequires(protectProtoKeys(compactErrorPushes(rewriteErrorConcat(esm))))
  return { code, names, helpers, warnings }
}
