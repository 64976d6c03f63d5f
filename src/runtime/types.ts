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
   */
  elicit?: (request: ElicitRequest) => Promise<ElicitAnswer>
  /**
   * Asks the client's model for a completion (`sampling/createMessage`) and
   * resolves with its message. Rejects when the client cannot sample.
   */
  sample?: (request: SampleRequest) => Promise<SampleAnswer>
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
