/**
 * What `portable` and `strict` tools advertise (docs/profiles.md): the
 * validator's schema with every keyword some AI client rejects turned into
 * description text. The validator keeps the exact keywords; clients see
 * single types, no combinators and no `additionalProperties` (`portable`)
 * or OpenAI strict mode's subset (`strict`).
 */
import { X_MCP_HEADER } from '../contract/index.ts'
import type { JsonSchema, Profile } from './types.ts'
import { NOTE, STUB_MARK, TYPE_MARK } from './scalar-schema.ts'
import { setOwn } from './sort-keys.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- schema nodes are plain JSON read key by key
type Json = Record<string, any>

// Keywords every client of the `portable` rule sets accepts (Gemini's
// `parameters` allow-list is the narrowest: an unknown field fails the request).
const KEPT = new Set([
  'type',
  'format',
  'description',
  'enum',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'minProperties',
  'maxProperties',
  'minLength',
  'maxLength',
  'pattern',
  'items',
  'minimum',
  'maximum',
  // Asked for by a `(proto_mcp.field).header` option (SEP-2243): the user's choice, though Gemini's `parameters` path refuses it.
  X_MCP_HEADER,
])
// Gemini's `parameters` accepts only `date-time` (and `enum`) as a string format.
const KEPT_FORMATS = new Set(['date-time'])

const show = (value: unknown): string => JSON.stringify(value)
const isNumeric = (type: unknown): boolean =>
  type === 'number' || type === 'integer' || (Array.isArray(type) && (type.includes('number') || type.includes('integer')))

/**
 * The validator's schema without the notes meant for descriptions and the
 * budget's type marks (what Ajv compiles); `sorted`: with its keys sorted at
 * every depth, as `stripNotes(sortKeys(schema))` (one copy, not two).
 */
export function stripNotes<T>(schema: T, sorted = false): T {
  if (Array.isArray(schema)) return schema.map((item) => stripNotes(item, sorted)) as T
  if (schema === null || typeof schema !== 'object') return schema
  const out: Json = {}
  const keys = sorted ? Object.keys(schema).sort() : Object.keys(schema)
  for (const key of keys) {
    if (key !== NOTE && key !== TYPE_MARK && key !== STUB_MARK) setOwn(out, key, stripNotes((schema as Json)[key], sorted))
  }
  return out as T
}

/**
 * The advertised schema of a validator's schema, for `profile`. `full` and
 * `topeka` advertise what they validate; `portable` and `strict` say in the
 * description what their keywords can no longer say.
 */
export function advertise(schema: JsonSchema, profile: Profile): JsonSchema {
  if (profile !== 'portable' && profile !== 'strict') return stripNotes(schema)
  return advertiseNode(schema, profile === 'strict', false)
}

/**
 * {@link advertise} of a schema as if its keys were sorted at every depth,
 * with its keys sorted at every depth: `sortKeys(advertise(sortKeys(schema),
 * profile))` without copying the schema twice more (docs/internals.md,
 * "Start-up"). Each node's keys are read in sorted order (the notes a node's
 * keywords give are said in that order), and only a node whose keys are out
 * of order (not yet sorted, or given a description or bounds) is sorted.
 */
export function advertiseSorted(schema: JsonSchema, profile: Profile): JsonSchema {
  if (profile !== 'portable' && profile !== 'strict') return stripNotes(schema, true)
  return advertiseNode(schema, profile === 'strict', true)
}

/** A copy of `node` with its own keys in sorted order. */
function sortedCopy(node: Json): Json {
  const sorted = ownKeysSorted(node)
  return sorted === node ? { ...node } : sorted
}

/** `node`, or a copy of it with its own keys sorted when they are not. */
function ownKeysSorted(node: Json): Json {
  const keys = Object.keys(node)
  let inOrder = true
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1]! <= keys[i]!
  if (inOrder) return node
  const out: Json = {}
  for (const key of keys.sort()) setOwn(out, key, node[key])
  return out
}

function advertiseNode(node: Json, strict: boolean, sorted: boolean): Json {
  const notes: string[] = []
  // A copy; sorted, with its own keys in order (those below are sorted as they are advertised).
  let out: Json = sorted ? sortedCopy(node) : { ...node }
  if (typeof out[NOTE] === 'string') notes.push(out[NOTE])
  delete out[NOTE]
  if (Array.isArray(out.anyOf)) out = flattenAnyOf(out, notes, sorted)
  const numeric = isNumeric(out.type)
  for (const key of Object.keys(out)) {
    const value = out[key]
    if (key === 'properties') {
      const properties: Json = {}
      const names = sorted ? Object.keys(value as Json).sort() : Object.keys(value as Json)
      for (const name of names) setOwn(properties, name, advertiseNode((value as Json)[name], strict, sorted))
      out.properties = properties
      continue
    }
    if (key === 'items') {
      out.items = advertiseNode(value, strict, sorted)
      continue
    }
    if (key === 'additionalProperties' && strict && value === false) continue
    if (key === 'format' && !KEPT_FORMATS.has(value)) {
      notes.push(`format ${value}`)
      delete out.format
      continue
    }
    if ((key === 'minimum' || key === 'maximum') && !numeric) {
      notes.push(`${key === 'minimum' ? 'at least' : 'at most'} ${value}`)
      delete out[key]
      continue
    }
    if (key === 'enum') {
      const strings = (value as unknown[]).filter((v) => v !== null)
      if (
        strings.every((v) => typeof v === 'string') &&
        (out.type === 'string' || (Array.isArray(out.type) && out.type.includes('string')))
      ) {
        // Codex keeps no `enum`: the names are said again.
        notes.push(`one of ${strings.join(', ')}`)
        continue
      }
      notes.push(`one of ${strings.map(show).join(', ')}`)
      delete out.enum
      continue
    }
    // The budget's marks (schema/budget.ts): it reads them and takes them out.
    if (KEPT.has(key) || key === TYPE_MARK || key === STUB_MARK) continue
    delete out[key]
    const note = keywordNote(key, value, out)
    if (note) notes.push(note)
  }
  if (notes.length > 0) {
    const text = notes.join('; ')
    out.description = typeof out.description === 'string' && out.description ? `${out.description} (${text})` : text
  }
  return sorted ? ownKeysSorted(out) : out
}

/** Says a keyword no kept keyword can say, or moves it onto one (integer bounds, string `const`). */
function keywordNote(key: string, value: unknown, out: Json): string | undefined {
  switch (key) {
    case 'exclusiveMinimum':
      if (out.type === 'integer') {
        out.minimum = Math.max(out.minimum ?? -Infinity, Math.floor(value as number) + 1)
        return undefined
      }
      return `greater than ${value}`
    case 'exclusiveMaximum':
      if (out.type === 'integer') {
        out.maximum = Math.min(out.maximum ?? Infinity, Math.ceil(value as number) - 1)
        return undefined
      }
      return `less than ${value}`
    case 'const':
      if (typeof value === 'string') {
        out.enum = [value]
        return `must be ${show(value)}`
      }
      if (typeof value === 'number' && isNumeric(out.type)) {
        out.minimum = value
        out.maximum = value
        return undefined
      }
      return `must be ${show(value)}`
    case 'contentEncoding':
      return value === 'base64' ? 'base64' : `${value} encoded`
    case 'uniqueItems':
      return value === true ? 'items are unique' : undefined
    case 'not': {
      const excluded = (value as Json).enum
      return Array.isArray(excluded) ? `not one of ${excluded.map(show).join(', ')}` : undefined
    }
    case 'allOf': {
      const patterns = (value as Json[]).map((branch) => branch.pattern).filter((p) => typeof p === 'string')
      if (out.pattern === undefined && patterns.length > 0) out.pattern = patterns.shift()
      return patterns.length > 0 ? `must also match ${patterns.map((p) => `/${p}/`).join(' and ')}` : undefined
    }
    // Validator-only: unknown fields stay errors, `__proto__` keys validate.
    case 'additionalProperties':
    case 'patternProperties':
      return undefined
  }
  return undefined
}

/**
 * An `anyOf` of the validator (a float's number-or-non-finite-string, or
 * bounds that exclude a range) as one single-typed node and a note.
 */
function flattenAnyOf(node: Json, notes: string[], sorted: boolean): Json {
  const { anyOf, ...rest } = node
  const branches = anyOf as Json[]
  const number = branches.find((b) => b.type === 'number' || b.type === 'integer')
  const nullable = branches.some((b) => b.type === 'null')
  if (number === undefined) {
    notes.push(boundsText(branches))
    return rest
  }
  // Sorted: the branch's keys in order, as its own keys would be (its values are scalars, or an anyOf flattened in turn).
  let out: Json = { ...rest, ...(sorted ? ownKeysSorted(number) : number) }
  if (Array.isArray(out.anyOf)) out = flattenAnyOf(out, notes, sorted)
  if (nullable) out.type = [out.type, 'null']
  return out
}

/** `at most 1 or at least 5` for `anyOf` branches of bounds. */
function boundsText(branches: Json[]): string {
  return branches
    .map((b) => {
      const parts: string[] = []
      if (b.minimum !== undefined) parts.push(`at least ${b.minimum}`)
      if (b.exclusiveMinimum !== undefined) parts.push(`greater than ${b.exclusiveMinimum}`)
      if (b.maximum !== undefined) parts.push(`at most ${b.maximum}`)
      if (b.exclusiveMaximum !== undefined) parts.push(`less than ${b.exclusiveMaximum}`)
      return parts.join(' and ')
    })
    .filter(Boolean)
    .join(' or ')
}
