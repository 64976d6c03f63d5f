/**
 * The schema stage: `ProtoModel` → MCP tools with JSON Schemas.
 */
export { buildTools } from './build-tools.ts'
export type { BuildToolsOptions, BuiltTools, ToolSchema } from './build-tools.ts'
export { describeComment, splitName, oneofNote } from './describe.ts'
export { messageSchema, defsRef } from './message-schema.ts'
export type { MessageSchemaOptions } from './message-schema.ts'
export { scalarSchema, NON_FINITE_FLOATS, INT64_STRING_PATTERN, UINT64_STRING_PATTERN } from './scalar-schema.ts'
export type { JsonSchema, Profile, SchemaMode } from './types.ts'
export { setOwn, sortKeys } from './sort-keys.ts'
