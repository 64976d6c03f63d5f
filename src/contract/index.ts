/**
 * The contract: what build time and run time both know, named once. Every
 * stage may import it; it imports nothing of the project.
 */
export { DEFAULT_PROFILE, PROFILES, TOOL_SPEC_KEYS } from './tool-spec.ts'
export type { JsonSchema, LongRunning, Profile, ToolAnnotations, ToolCuts, ToolSpec } from './tool-spec.ts'
export { AJV_IMPORTS, CODEC_IMPORTS, CREATE_SERVER, GENERATED_IMPORTS, INTERNAL_MODULE, RUNTIME_MODULE } from './generated-imports.ts'
export type { GeneratedImport } from './generated-imports.ts'
export { HOT_DATA_SERVER, HOT_SERVERS_KEY, HOT_UPDATE_KEY } from './hot-reload.ts'
export { DEFAULT_HTTP_HOST, isLoopbackName, LOOPBACK_HOSTNAMES } from './loopback.ts'
export { NOT_IN_KEYWORD, PROTO_FLOAT_KEYWORD } from './validator-keywords.ts'
export { lowerCamel } from './implementation-keys.ts'
export { jsonRpcErrorBody } from './json-rpc-error.ts'
export { GENERATED_VALIDATOR_OPTIONS, HAND_TOOL_VALIDATOR_OPTIONS, VALIDATOR_OPTIONS } from './validator-options.ts'
export { WRAPPER_NAMES, WRAPPER_SCALARS } from './wrappers.ts'
export { HEADER_NAME_RE, HEADER_PARAM_TYPES, X_MCP_HEADER } from './header-params.ts'
