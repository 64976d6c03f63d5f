/**
 * Schemas of the well-known types, which protobuf JSON writes in their own
 * forms (docs/mapping.md, "Input schema: types"; `portable`/`strict` in docs/profiles.md).
 */
import { WRAPPER_NAMES, WRAPPER_SCALARS } from '../contract/index.ts'
import type { JsonSchema, Profile, SchemaMode } from './types.ts'
import type { ScalarType } from '../proto/model.ts'
import { isPortable, NOTE, scalarSchema } from './scalar-schema.ts'

/** The wrapper types and the scalar each wraps (their JSON is the scalar's). */
export const WRAPPERS: Record<string, ScalarType> = Object.fromEntries(
  WRAPPER_NAMES.map((name) => [`google.protobuf.${name}`, WRAPPER_SCALARS[name]]),
)

/** Any JSON value, written so single-`type` clients accept it (`full`, docs/mapping.md, "Input schema: types"). */
function portableValue(): JsonSchema {
  return {
    anyOf: [{ type: 'object' }, { type: 'array' }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }],
  }
}

/** Well-known types whose JSON is any JSON value of a kind: `portable` writes them as JSON text. */
export const JSON_TEXT_TYPES: Record<string, string> = {
  'google.protobuf.Struct': 'an object',
  'google.protobuf.Value': 'any value, or a plain string',
  'google.protobuf.ListValue': 'an array',
  'google.protobuf.Any': 'an object: "@type" and the message\'s fields',
}

/** protobuf JSON's Duration: seconds with up to 9 fractional digits and an `s`. */
export const DURATION_PATTERN = '^-?[0-9]+(\\.[0-9]{1,9})?s$'

/** A string holding JSON text: what `portable` writes where a schema could only say "anything". */
export function jsonTextSchema(what: string): JsonSchema {
  return { type: 'string', [NOTE]: `JSON text of ${what}` }
}

/**
 * The schema of a well-known message type by full name, or undefined for
 * any other message. Well-known types carry no description of their own.
 */
export function wellKnownSchema(fullName: string, profile: Profile, mode: SchemaMode): JsonSchema | undefined {
  const wrapped = WRAPPERS[fullName]
  if (wrapped) return scalarSchema(wrapped, profile, mode)
  if (isPortable(profile) && mode === 'input') return portableWellKnown(fullName)
  const portable = profile !== 'topeka'
  switch (fullName) {
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' }
    case 'google.protobuf.Duration':
      return { type: 'string' }
    case 'google.protobuf.FieldMask':
      return { type: 'string' }
    case 'google.protobuf.Struct':
      return { type: 'object' }
    case 'google.protobuf.Value':
      return portable ? portableValue() : {}
    case 'google.protobuf.ListValue':
      return portable ? { type: 'array', items: portableValue() } : { type: 'array' }
    case 'google.protobuf.Empty':
      return { type: 'object', additionalProperties: false }
    case 'google.protobuf.Any': {
      const schema: JsonSchema = { type: 'object', properties: { '@type': { type: 'string' } } }
      // protojson writes an Any with no type URL as `{}`, so a result may lack `@type`.
      if (mode === 'input') schema.required = ['@type']
      return schema
    }
  }
  return undefined
}

/** `portable`/`strict` input schemas of the well-known types: single types, JSON text for open values. */
function portableWellKnown(fullName: string): JsonSchema | undefined {
  const jsonText = JSON_TEXT_TYPES[fullName]
  if (jsonText !== undefined) return jsonTextSchema(jsonText)
  switch (fullName) {
    case 'google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' }
    case 'google.protobuf.Duration':
      return { type: 'string', pattern: DURATION_PATTERN, [NOTE]: 'seconds, e.g. "1.5s"' }
    case 'google.protobuf.FieldMask':
      return { type: 'string', [NOTE]: 'comma-separated field paths' }
    case 'google.protobuf.Empty':
      return { type: 'object', properties: {}, additionalProperties: false }
  }
  return undefined
}

/** The schema of an enum-typed value that protobuf JSON gives a special form, or undefined. */
export function wellKnownEnumSchema(fullName: string, profile: Profile, mode: SchemaMode): JsonSchema | undefined {
  if (fullName !== 'google.protobuf.NullValue') return undefined
  // protojson writes google.protobuf.NullValue as JSON null, and reads null
  // or its one name; a result fed back as arguments must be accepted.
  if (mode === 'output') return { type: 'null' }
  if (profile === 'full') return { type: ['string', 'null'], enum: ['NULL_VALUE', null] }
  if (isPortable(profile)) return { type: 'string', enum: ['NULL_VALUE'], [NOTE]: 'or null' }
  return undefined
}
