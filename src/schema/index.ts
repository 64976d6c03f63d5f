/**
 * The schema stage: `ProtoModel` → MCP tools with JSON Schemas.
 */
export { buildTools } from './build-tools.ts'
export type { BuildToolsOptions, BuiltTools, ToolCost, ToolSchema } from './build-tools.ts'
export { LIST_TOKEN_WARNING, MAX_LISTED_TOOLS, toolCosts } from './build-tools.ts'
export { DEFAULT_TOOL_TOKEN_BUDGET, DEFAULT_TYPE_TOOL } from './budget.ts'
export { DEFAULT_RECURSION_DEPTH } from './message-schema.ts'
export { DEFAULT_TOOL_NAME_BUDGET, DEFAULT_TOOL_NAMES } from './tool-name.ts'
export { countTokens, toolTokens } from './tokens.ts'
export type { TypeDetailSpec } from './type-detail.ts'
export {
  goCamelCase,
  nameTool,
  shortenToolName,
  TOOL_NAME_RE,
  TOOL_NAME_MAX_LENGTH,
  TOOL_NAME_HASH_LENGTH,
  TOOL_NAME_TAIL_LENGTH,
} from './tool-name.ts'
export type { RpcName, ToolNames } from './tool-name.ts'
export { toolMetadata, toolScopes, PROTO_MCP_SERVICE, PROTO_MCP_TOOL } from './tool-options.ts'
export { methodFilter, methodGlob, methodGlobs } from './method-glob.ts'
export type { MethodFilter, MethodGlobs, MethodMatcher, MethodSelection } from './method-glob.ts'
export type { ToolAnnotations, ToolMetadata } from './tool-options.ts'
export { applyFieldRules, isOutputOnly, isRequiredField } from './field-rules.ts'
export { describeComment, splitName, oneofNote, serviceComments, serviceCommentsKey } from './descriptions.ts'
export { messageSchema, defsRef } from './message-schema.ts'
export type { MessageSchemaOptions } from './message-schema.ts'
export { scalarSchema, NON_FINITE_FLOATS, INT64_STRING_PATTERN, UINT64_STRING_PATTERN } from './scalar-schema.ts'
export type { JsonSchema, Profile, SchemaMode } from './types.ts'
export { setOwn, sortKeys } from './sort-keys.ts'
export { checkClientRules, CLIENT_DIALECT_NAMES, REQUEST_TOOL } from './client-rules.ts'
export type { CheckedTool, ClientRulesOptions, ClientRuleViolation, DialectReport, RuleSeverity } from './client-rules.ts'
export { CLIENT_DIALECTS, draft2020Problem } from './client-dialects.ts'
export type { ClientDialect, ClientRule } from './define-client-rules.ts'
export { buildPrompts, PROTO_MCP_PROMPT } from './prompts.ts'
export { listingWarnings, protoResources } from './proto-resources.ts'
export type { ProtoResourceOptions } from './proto-resources.ts'
