/**
 * The run-time types: what backends and handlers receive and return, and
 * (named again from the contract, src/contract/server-spec.ts) the spec a
 * generated module hands to `createProtoServer`.
 */

import type { JsonSchema } from '../contract/index.ts'

export type {
  JsonCodec,
  JsonSchema,
  LenientField,
  LenientPlan,
  Profile,
  ProtoServerSpec,
  ProtoToolSpec,
  ToolSpec,
  TypeDetailSpec,
  ValidateFunction,
  ValidationError,
} from '../contract/index.ts'

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
   * For a long-running RPC run as a task in a fleet (docs/cluster.md):
   * called before each read of operation `name`; `false` when another
   * instance follows it now (this one stops reading). Set by the server.
   */
  holdsOperation?: (name: string) => Promise<boolean>
  /** A retried 2026-07-28 request's `inputResponses` (the client's answers, untrusted), for a handler that returns its own `input_required` results. */
  inputResponses?: Record<string, unknown>
  /** The verified payload of a retried 2026-07-28 request's `requestState` (docs/serving.md, "requestState"), when it carried one. */
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
