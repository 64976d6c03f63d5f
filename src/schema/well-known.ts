/**
 * Schemas of the well-known types, which protobuf JSON writes in their own
 * forms (mapping.md §4 table; §5 portable `Value`/`ListValue`).
 */
import type { JsonSchema, Profile, SchemaMode } from './types.ts'
import type { ScalarType } from '../proto/model.ts'
import { scalarSchema } from './scalar-schema.ts'

/** The wrapper types and the scalar each wraps (their JSON is the scalar's). */
export const WRAPPERS: Record<string, ScalarType> = {
  'google.protobuf.DoubleValue': 'double',
  'google.protobuf.FloatValue': 'float',
  'google.protobuf.Int64Value': 'int64',
  'google.protobuf.UInt64Value': 'uint64',
  'google.protobuf.Int32Value': 'int32',
  'google.protobuf.UInt32Value': 'uint32',
  'google.protobuf.BoolValue': 'bool',
  'google.protobuf.StringValue': 'string',
  'google.protobuf.BytesValue': 'bytes',
}

/** Any JSON value, written so single-`type` clients accept it (mapping §5). */
function portableValue(): JsonSchema {
  return {
    anyOf: [
      { type: 'object' }, { type: 'array' }, { type: 'string' },
      { type: 'number' }, { type: 'boolean' }, { type: 'null' },
    ],
  }
}

/**
 * The schema of a well-known message type by full name, or undefined for
 * any other message. Well-known types carry no description of their own.
 */
export function wellKnownSchema(fullName: string, profile: Profile, mode: SchemaMode): JsonSchema | undefined {
  const wrapped = WRAPPERS[fullName]
  if (wrapped) return scalarSchema(wrapped, profile, mode)
  const portable = profile !== 'topeka'
  switch (fullName) {
    case 'google.protobuf.Timestamp': return { type: 'string', format: 'date-time' }
    case 'google.protobuf.Duration': return { type: 'string' }
    case 'google.protobuf.FieldMask': return { type: 'string' }
    case 'google.protobuf.Struct': return { type: 'object' }
    case 'google.protobuf.Value': return portable ? portableValue() : {}
    case 'google.protobuf.ListValue': return portable ? { type: 'array', items: portableValue() } : { type: 'array' }
    case 'google.protobuf.Empty': return { type: 'object', additionalProperties: false }
    case 'google.protobuf.Any': {
      const schema: JsonSchema = { type: 'object', properties: { '@type': { type: 'string' } } }
      // protojson writes an Any with no type URL as `{}`, so a result may lack `@type`.
      if (mode === 'input') schema.required = ['@type']
      return schema
    }
  }
  return undefined
}

/** The schema of an enum-typed value that protobuf JSON gives a special form, or undefined. */
export function wellKnownEnumSchema(fullName: string, mode: SchemaMode): JsonSchema | undefined {
  // protojson writes google.protobuf.NullValue as JSON null.
  if (fullName === 'google.protobuf.NullValue' && mode === 'output') return { type: 'null' }
  return undefined
}
