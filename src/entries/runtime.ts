/**
 * `unplugin-proto-mcp/runtime`: the user's run-time API: `Server` (made
 * with `Server.builder(name)` or by a `?mcp` import), the types of its
 * builder and handle (made by `Server.builder()` and `server.handle()`,
 * never constructed by users), the backend interface, status errors and
 * the types. What only generated code uses, and the spec types a `?mcp`
 * module's `tools` and `descriptor` have, are `unplugin-proto-mcp/codegen-v1`
 * (./codegen-v1.ts).
 */
export { Server, memoryCluster, memoryFleet, MemoryTaskStore, TaskLimitError, TASKS_EXTENSION, isTerminal } from '../server/index.ts'
export type {
  ServerBuilder,
  ServerHandle,
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
  MemoryTaskStoreOptions,
  StoredTask,
  TaskChange,
  TaskError,
  TaskInputRequest,
  TaskOptions,
  TaskStatus,
  TaskStore,
  TaskSupport,
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
  JsonSchema,
  LogLevel,
  Profile,
  RootsAnswer,
  RpcHandler,
  ServiceImplementation,
  SampleAnswer,
  SampleRequest,
  ToolResult,
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
