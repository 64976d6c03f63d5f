/**
 * `(proto_mcp.field).header` (protos/proto_mcp/options.proto): a request
 * field mirrored into an HTTP header (SEP-2243), written into its property
 * schema as `x-mcp-header` when its schema can carry one value.
 */
import { HEADER_NAME_RE, HEADER_PARAM_TYPES, X_MCP_HEADER } from '../contract/index.ts'
import type { FieldModel } from '../proto/model.ts'
import { protoError } from '../proto/errors.ts'
import type { JsonSchema } from './types.ts'

/** `(proto_mcp.field)`: the `FieldOptions` extension of `protos/proto_mcp/options.proto`. */
export const PROTO_MCP_FIELD = 'proto_mcp.field'

/**
 * `schema` with the field's `x-mcp-header`, when its `(proto_mcp.field).header`
 * asks for one. Throws, pointing at the field, when the name is not a header
 * name or the property cannot carry one header value (repeated, a map, a
 * message, a float, a nullable or `anyOf` schema).
 */
export function withHeaderParam(schema: JsonSchema, field: FieldModel, where: string): JsonSchema {
  const header = (field.customOptions[PROTO_MCP_FIELD] as { header?: unknown } | undefined)?.header
  if (header === undefined) return schema
  const fail = (reason: string): never => {
    const text = `${where}: (proto_mcp.field).header ${reason}`
    throw field.loc ? protoError('PROTO_TYPE', field.loc.file, field.loc.line, field.loc.column, text) : new Error(text)
  }
  if (typeof header !== 'string' || !HEADER_NAME_RE.test(header)) fail(`${JSON.stringify(header)} is not a header name (an RFC 9110 token)`)
  if (field.repeated || field.mapKey !== undefined || typeof schema.type !== 'string' || !HEADER_PARAM_TYPES.includes(schema.type)) {
    const shape =
      field.mapKey !== undefined
        ? 'a map'
        : field.repeated
          ? 'repeated'
          : `of schema ${schema.type !== undefined ? JSON.stringify(schema.type) : schema.anyOf !== undefined ? 'anyOf (several types)' : 'untyped'}`
    fail(`needs a singular field whose schema is a string, integer or boolean; this one is ${shape}`)
  }
  return { ...schema, [X_MCP_HEADER]: header }
}
