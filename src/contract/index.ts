/**
 * The contract: what build time and run time both know, named once. Every
 * stage may import it; it imports nothing of the project.
 */
export { PROFILES, TOOL_SPEC_KEYS } from './tool-spec.ts'
export type { JsonSchema, LongRunning, Profile, ToolAnnotations, ToolCuts, ToolSpec } from './tool-spec.ts'
export {
  AJV_IMPORTS,
  CODEC_IMPORTS,
  CODEGEN_MODULE,
  CODEGEN_VERSION,
  codegenImports,
  codegenUnserved,
  CREATE_SERVER,
  GENERATED_IMPORTS,
  RUNTIME_MODULE,
} from './generated-imports.ts'
export type { GeneratedImport } from './generated-imports.ts'
export { serviceMethods } from './server-spec.ts'
export { renderTemplate, templatePlaceholders } from './prompt-template.ts'
export type { PromptSpec } from './prompt-template.ts'
export {
  AUTO_MAX_TOKENS,
  AUTO_MAX_TOOLS,
  autoMode,
  DEFAULT_DISCOVERY_NAMES,
  DISCOVERY_MODES,
  discoveryClash,
  discoveryNames,
} from './discovery.ts'
export type { DiscoveryMode, DiscoveryNames, DiscoverySpec } from './discovery.ts'
export type {
  JsonCodec,
  LenientField,
  LenientKind,
  LenientPlan,
  ProtoServerSpec,
  ProtoToolSpec,
  TypeDetailSpec,
  TypeToolListing,
  ValidateFunction,
  ValidationError,
} from './server-spec.ts'
export { HOT_DATA_SERVER, HOT_SERVERS_KEY, HOT_UPDATE_KEY } from './hot-reload.ts'
export { hostHeaderName, isLoopbackHost, LOOPBACK_HOSTNAMES, loopbackHostNames } from './loopback.ts'
export {
  DEFAULT_HEADERS_TIMEOUT_MS,
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_LOAD_TIMEOUT_MS,
  DEFAULT_MAX_CONNECTIONS,
  DEFAULT_MAX_EVENT_BYTES,
  DEFAULT_MAX_EVENTS,
  DEFAULT_MAX_SESSION_EVENT_BYTES,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_STREAMS_PER_CALLER,
  DEFAULT_MCP_PATH,
  DEFAULT_PROFILE,
  DEFAULT_REQUEST_STATE_TTL_S,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_SERVER_VERSION,
  DEFAULT_SESSION_IDLE_MS,
  MAX_BODY_BYTES,
} from './defaults.ts'
export { NOT_IN_KEYWORD, PROTO_FLOAT_KEYWORD } from './validator-keywords.ts'
export { lowerCamel } from './implementation-keys.ts'
export { jsonRpcErrorBody } from './json-rpc-error.ts'
export { GENERATED_VALIDATOR_OPTIONS, HAND_TOOL_VALIDATOR_OPTIONS, VALIDATOR_OPTIONS } from './validator-options.ts'
export { WRAPPER_NAMES, WRAPPER_SCALARS } from './wrappers.ts'
export { HEADER_NAME_RE, HEADER_PARAM_TYPES, X_MCP_HEADER } from './header-params.ts'
export {
  DEFAULT_LIST_RESOURCES_MAX,
  isListResources,
  isResourceScheme,
  isUriScheme,
  LIST_RESOURCES_ACCEPTS,
  RESOURCE_SCHEME_ACCEPTS,
  resourceListing,
} from './resource-options.ts'
export type {
  ListResourcesOption,
  ProtoResourceListing,
  ProtoResourceSpec,
  ProtoResourcesSpec,
  ResourceSchemeOption,
} from './resource-options.ts'
