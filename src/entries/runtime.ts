/**
 * `unplugin-proto-mcp/runtime`: the user's run-time API: `Server` (made
 * with `Server.builder(name)` or by a `?mcp` import), its handle, the
 * backend interface, status errors and the types. What only generated code
 * uses is `unplugin-proto-mcp/internal` (./internal.ts).
 */
export { Server, ServerBuilder, ServerHandle, MAX_BODY_BYTES, memoryCluster, memoryFleet } from '../server/index.ts'
export type {
  AuthOptions,
  CallResult,
  Completer,
  FetchOptions,
  IntrospectionResult,
  Connection,
  HttpHandle,
  InputRequiredResult,
  ListedTool,
  McpNodeHandler,
  NodeHandlerOptions,
  PromptDefinition,
  PromptGetter,
  PromptMessage,
  PromptOptions,
  ResourceContents,
  ResourceDefinition,
  ResourceReader,
  ResourceTemplateDefinition,
  ResourceTemplateOptions,
  ServeHttpOptions,
  TemplateReader,
  TemplateVariables,
  ServeReport,
  ServeStdioOptions,
  ToolContext,
  ToolDefinition,
  ToolHandler,
  ToolRequirements,
  ToolWithHandler,
} from '../server/index.ts'
export type { ErrorSource, Logger, LoggingOptions } from '../server/index.ts'
export type {
  Cluster,
  ClusterEventStore,
  ClusterListeners,
  ClusterMessage,
  ClusterOptions,
  EventLimits,
  FetchHandlerOptions,
  FleetEvent,
  JsonValue,
  McpFetchHandler,
  MemoryClusterOptions,
  MemoryFleet,
  MemoryFleetOptions,
  SessionRecord,
  StoredEvent,
  StreamRequest,
  StreamTail,
} from '../server/index.ts'
export type {
  CallContext,
  ElicitAnswer,
  ElicitRequest,
  JsonCodec,
  JsonSchema,
  LogLevel,
  Profile,
  ProtoServerSpec,
  ProtoToolSpec,
  RpcHandler,
  ServiceImplementation,
  SampleAnswer,
  SampleRequest,
  ToolResult,
  ToolSpec,
  ValidateFunction,
  ValidationError,
} from '../runtime/types.ts'
export { statusError, STATUS_NAMES, type StatusName } from '../runtime/status.ts'
export { isRuntimeError, type RuntimeError, type RuntimeErrorCode } from '../runtime/errors.ts'
export {
  DEFAULT_FORWARDED_HEADERS,
  DEFAULT_STREAM_CAP,
  principalMetadata,
  verifiedPrincipal,
  type Backend,
  type BackendMethod,
  type BackendService,
  type Principal,
} from '../runtime/backend.ts'
