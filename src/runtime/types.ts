/**
 * The contract between generated `?mcp` modules and the runtime: what a
 * generated module hands to `createProtoServer`.
 */

import type { JsonSchema, Profile, ToolSpec } from '../contract/index.ts'

export type { JsonSchema, Profile, ToolSpec }

/** One error object of an Ajv validator (the fields the runtime reads). */
export interface ValidationError {
  instancePath: string
  schemaPath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
  /** Only from validators compiled with `verbose` (hand-written tools'); generated ones carry neither. */
  schema?: unknown
  parentSchema?: unknown
  data?: unknown
}

/** An Ajv standalone validate function. */
export interface ValidateFunction {
  (data: unknown): boolean
  errors?: ValidationError[] | null
}

/** One tool of a generated module: the contract's {@link ToolSpec} with its validator and codecs. */
export interface ProtoToolSpec extends ToolSpec {
  /** The precompiled validator of `inputSchema`. */
  validate: ValidateFunction
  /** Generated codec of the request type (validated arguments → canonical JSON); absent for a hand-converted well-known root and in specs the CLI builds (the reflection codec converts). */
  decode?: JsonCodec
  /** Generated codec of the response type (a handler's response → canonical JSON); absent for a hand-converted well-known root and in specs the CLI builds (the reflection codec converts). */
  encode?: JsonCodec
}

/**
 * A build-time generated protobuf JSON codec: the canonical protobuf JSON
 * of `json` (as the reflection codec gives it), or the runtime's
 * `CODEC_BAIL` for anything it does not handle exactly. `depth` is 0 at the root.
 */
export type JsonCodec = (json: unknown, depth: number) => unknown

/**
 * One request field as the lenient pass reads it: `j` JSON name, `p` proto
 * name (when it differs), `k` kind, `t` message or enum type, `r` repeated,
 * `m` the map key's kind, `q` required. (The schema stage writes it.)
 */
export interface LenientField {
  j: string
  p?: string
  k: 'msg' | 'json' | 'i64' | 'u64' | 'float' | 'enum' | 'null' | 'bool' | 'int' | 'other'
  t?: string
  r?: 1
  m?: LenientField['k']
  q?: 1
}

/** What the lenient pass knows of a module's requests (runtime/lenient.ts); absent in `topeka`. */
export interface LenientPlan {
  /** Maps advertised as `{key, value}` entries, open values as JSON text, 64-bit integers as strings. */
  portable: boolean
  /** Every property required, optional ones nullable (OpenAI strict mode). */
  strict: boolean
  /** How many times a recursive message is inlined before its field is JSON text. */
  depth: number
  /** Request types inlined less deep than `depth` (their schema would have been too large). */
  depths?: Record<string, number>
  messages: Record<string, LenientField[]>
  /** Enum value names by number. */
  enums: Record<string, Record<string, string>>
}

/** The type tool of a server whose tools the token budget cut (docs/profiles.md §Token budget): its listing and answers. */
export interface TypeDetailSpec {
  tool: { name: string; description: string; inputSchema: JsonSchema }
  /** Answer texts (JSON) by message full name or tool name. */
  answers: Record<string, string>
}

/** Everything a generated module hands to `createProtoServer`. */
export interface ProtoServerSpec {
  /** serverInfo.name (the proto's file name without `.proto`). */
  name: string
  version: string
  profile: Profile
  /** protobufjs JSON descriptor of the types the tools reach. */
  descriptor: Record<string, unknown>
  tools: ProtoToolSpec[]
  /**
   * Every service of the proto (full name, no leading dot) with all its RPC
   * names, tools or not (streaming RPCs, a name another service's tool took):
   * `implement()` accepts these names and rejects only ones the proto lacks.
   */
  services: Record<string, string[]>
  /** The lenient pass's table: every spelling protobuf JSON reads is accepted (every profile but `topeka`). */
  lenient?: LenientPlan
  /** The type tool, when the token budget cut a tool's schema. */
  types?: TypeDetailSpec
}

/** MCP log levels, least severe first. */
export type LogLevel = 'debug' | 'info' | 'notice' | 'warning' | 'error' | 'critical' | 'alert' | 'emergency'

/** A form elicitation: a message and the flat object schema of the answer. */
export interface ElicitRequest {
  message: string
  requestedSchema: JsonSchema
  [key: string]: unknown
}

/** The user's answer to an elicitation. */
export interface ElicitAnswer {
  action: 'accept' | 'decline' | 'cancel'
  content?: Record<string, unknown>
  [key: string]: unknown
}

/** A sampling request (`sampling/createMessage` params). */
export interface SampleRequest {
  messages: Array<{ role: 'user' | 'assistant'; content: { type: string; [key: string]: unknown } }>
  maxTokens: number
  systemPrompt?: string
  [key: string]: unknown
}

/** The client model's answer to a sampling request. */
export interface SampleAnswer {
  role: 'user' | 'assistant'
  content: { type: string; text?: string; [key: string]: unknown } | Array<{ type: string; [key: string]: unknown }>
  model: string
  stopReason?: string
  [key: string]: unknown
}

/** The client's roots (`roots/list` result). */
export interface RootsAnswer {
  roots: Array<{ uri: string; name?: string; [key: string]: unknown }>
  [key: string]: unknown
}

/** What a backend method receives besides the request. */
export interface CallContext {
  /** The tool being called (`SetVibe`). */
  tool: string
  /** Aborted when the MCP request is cancelled or the connection ends. */
  signal?: AbortSignal
  /** Validated auth info of the request, when the transport has any. */
  authInfo?: unknown
  /** The request's `_meta`, when it has one. */
  meta?: Record<string, unknown>
  /** The MCP request's HTTP headers (lowercase names), when it came over HTTP; backends forward an allow-list of them. */
  headers?: Record<string, string | string[] | undefined>
  /**
   * Sends a `notifications/progress` for this request (`total` when known);
   * present only when the caller asked for progress (a `progressToken` in
   * `_meta`), so call it as `await context.progress?.(1, 'step 1', 3)`.
   */
  progress?: (progress: number, message?: string, total?: number) => Promise<void>
  /**
   * Sends a `notifications/message` log entry to this client when `level` is
   * at or above the level it asked for (`logging/setLevel`, or a 2026-07-28
   * request's own log level). Present on requests served over MCP.
   */
  log?: (level: LogLevel, data: unknown, logger?: string) => Promise<void>
  /**
   * Asks the user for input through the client (`elicitation/create`) and
   * resolves with the answer. Rejects when the client cannot elicit.
   * `options.key` names the question in a 2026-07-28 `inputRequests` map.
   */
  elicit?: (request: ElicitRequest, options?: { key?: string }) => Promise<ElicitAnswer>
  /**
   * Asks the client's model for a completion (`sampling/createMessage`) and
   * resolves with its message. Rejects when the client cannot sample.
   */
  sample?: (request: SampleRequest, options?: { key?: string }) => Promise<SampleAnswer>
  /** Asks the client for its roots (`roots/list`). Rejects when the client has none to give. */
  listRoots?: (options?: { key?: string }) => Promise<RootsAnswer>
  /**
   * The capabilities the client declared: a 2026-07-28 request's own
   * (`io.modelcontextprotocol/clientCapabilities`), else the session's
   * `initialize`. Absent when the client declared none.
   */
  clientCapabilities?: Record<string, unknown>
  /** How often a long-running RPC's operation is read (the server's `tasks({ pollIntervalMs })`). @default 1000 */
  pollIntervalMs?: number
  /**
   * For a long-running RPC run as a task in a fleet (docs/serving.md §12):
   * called before each read of operation `name`; `false` when another
   * instance follows it now (this one stops reading). Set by the server.
   */
  holdsOperation?: (name: string) => Promise<boolean>
  /** A retried 2026-07-28 request's `inputResponses` (the client's answers, untrusted), for a handler that returns its own `input_required` results. */
  inputResponses?: Record<string, unknown>
  /** The verified payload of a retried 2026-07-28 request's `requestState` (docs/serving.md §6), when it carried one. */
  requestState?: unknown
  /** Seals a payload into a `requestState` for an `input_required` result (HMAC with the server's key). */
  sealRequestState?: (payload: unknown) => Promise<string>
}

/**
 * One RPC of an in-process backend: receives the request in canonical
 * protobuf JSON form and returns the response in any form protobuf JSON
 * decoding accepts (or throws an error with a gRPC `code`).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a handler's request is what its typed implementation declares (checked by typed-implementation.ts)
export type RpcHandler = (request: any, context: CallContext) => unknown

/** An in-process implementation of a service: one method per RPC, keyed by the RPC name or its lowerCamel form. */
export type ServiceImplementation = object

/** The text result of a tool call, as MCP's `CallToolResult`. */
export interface ToolResult {
  /** One text item; a streamed result cut at its cap has a second one, the note. */
  content: [{ type: 'text'; text: string }, ...Array<{ type: 'text'; text: string }>]
  isError: boolean
  structuredContent?: Record<string, unknown>
  [key: string]: unknown
}
