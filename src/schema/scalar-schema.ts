/**
 * JSON Schemas of scalar values (docs/mapping.md, "Input schema: types"; `portable`/`strict`
 * in docs/profiles.md), for input (what a client may send) and output (what
 * protobufjs `ext/protojson` emits).
 */
import type { JsonSchema, Profile, SchemaMode } from './types.ts'
import type { ScalarType } from '../proto/model.ts'

/** Strings protobuf JSON uses for non-finite floats. */
export const NON_FINITE_FLOATS = ['NaN', 'Infinity', '-Infinity'] as const
/** A signed 64-bit integer written as a decimal string. */
export const INT64_STRING_PATTERN = '^-?[0-9]+$'
/** An unsigned 64-bit integer written as a decimal string. */
export const UINT64_STRING_PATTERN = '^[0-9]+$'

const SIGNED_64 = new Set<ScalarType>(['int64', 'sint64', 'sfixed64'])
const UNSIGNED_64 = new Set<ScalarType>(['uint64', 'fixed64'])

/** A note the advertised schema turns into description text (`portable`/`strict`), stripped from the validator's schema. */
export const NOTE = 'x-note'

/** Marks a message's object schema with its full name where the token budget may cut it (schema/budget.ts); never advertised or validated. */
export const TYPE_MARK = 'x-type'

/**
 * Marks a message's node built without its fields (`stubsBelow`): the
 * budget reads only its type mark, type and description, and asks for the
 * whole schema before it reads below it (schema/budget.ts, `cutShort`).
 */
export const STUB_MARK = 'x-stub'

/**
 * Marks a validator's `anyOf` whose first branch is what the advertised
 * schema says (a `portable` float: a number; its other branches are the
 * non-finite strings): error texts then speak of that branch. The
 * validator's form of such a float is one keyword (codegen/validator-schema.ts).
 */
export const ADVERTISED_BRANCH = 'x-advertised-branch'

/** Whether a profile writes only what every major client accepts (single types, no combinators). */
export const isPortable = (profile: Profile): boolean => profile === 'portable' || profile === 'strict'

/** The schema of one scalar value, for a profile and a side. */
export function scalarSchema(scalar: ScalarType, profile: Profile, mode: SchemaMode): JsonSchema {
  switch (scalar) {
    case 'bool':
      return { type: 'boolean' }
    case 'string':
      return { type: 'string' }
    case 'bytes':
      return { type: 'string', contentEncoding: 'base64' }
    case 'int32':
    case 'sint32':
    case 'sfixed32':
      return { type: 'integer' }
    case 'uint32':
    case 'fixed32':
      return { type: 'integer', minimum: 0 }
    case 'float':
    case 'double': {
      const float: JsonSchema = { anyOf: [{ type: 'number' }, { type: 'string', enum: [...NON_FINITE_FLOATS] }] }
      if (isPortable(profile) && mode === 'input') float[ADVERTISED_BRANCH] = 0
      return float
    }
  }
  const unsigned = UNSIGNED_64.has(scalar)
  if (!unsigned && !SIGNED_64.has(scalar)) throw new Error(`unknown scalar type "${scalar}"`)
  const pattern = unsigned ? UINT64_STRING_PATTERN : INT64_STRING_PATTERN
  // protojson always writes 64-bit integers as decimal strings.
  if (mode === 'output') return { type: 'string', pattern }
  // Portable: a decimal string only (no combinators); the validator's lenient
  // pass still turns a JSON number into one (runtime/lenient.ts).
  if (isPortable(profile)) return { type: 'string', pattern, [NOTE]: `decimal ${unsigned ? 'uint64' : 'int64'}` }
  if (profile === 'topeka') return unsigned ? { type: ['integer', 'string'], minimum: 0 } : { type: ['integer', 'string'] }
  const integer: JsonSchema = unsigned ? { type: 'integer', minimum: 0 } : { type: 'integer' }
  return { anyOf: [integer, { type: 'string', pattern }] }
}
