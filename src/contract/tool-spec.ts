/**
 * The tool spec both times agree on: what the schema stage builds, the
 * codegen writes into a `?mcp` module and the runtime serves (docs/mapping.md, "Which RPCs become tools").
 */

/**
 * Which mapping to produce: `portable` (schemas every major AI client
 * accepts; the default), `strict` (OpenAI strict mode), `full` (exact
 * JSON Schema 2020-12 with the extensions) or `topeka` (the Go generator's
 * tools, byte for byte).
 */
export type Profile = 'portable' | 'strict' | 'full' | 'topeka'

/** Every profile, the default first. */
export const PROFILES: readonly Profile[] = ['portable', 'strict', 'full', 'topeka']

/** A JSON Schema document, as plain JSON. */
export type JsonSchema = Record<string, unknown>

/** MCP's `ToolAnnotations` hints. */
export interface ToolAnnotations {
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
}

/**
 * One tool generated from a unary (or server-streaming) RPC: its MCP-visible
 * fields and the RPC it calls. The schema stage adds what the validator is
 * compiled from (`ToolSchema`), a generated module the validator and codecs
 * (`ProtoToolSpec`).
 */
export interface ToolSpec {
  /** The tool's name: by default the RPC's name as written, in the `topeka` profile its Go name (`get_vibe` → `GetVibe`). */
  name: string
  /** A display name (`Tool.title`), from `(proto_mcp.tool).title`. */
  title?: string
  /** The RPC's normalised leading comment, or its name (in the `topeka` profile its Go name) split into words when it has none. */
  description: string
  /** MCP `ToolAnnotations` hints, from `(proto_mcp.tool)` and `idempotency_level`. */
  annotations?: ToolAnnotations
  /** Schema of the request message as clients see it; keys sorted. */
  inputSchema: JsonSchema
  /**
   * Schema of what protojson emits for the response message (for a
   * server-streaming RPC, `{"messages":[...]}` of them); every profile but `topeka`.
   */
  outputSchema?: JsonSchema
  /** Full name of the service, no leading dot (`examples.v1.VibeService`). */
  service: string
  /** The RPC's name as written (`SetVibe`). */
  method: string
  /** Full names of the request and response messages, no leading dot. */
  requestType: string
  responseType: string
  /**
   * A server-streaming RPC (docs/calls.md, "Streaming"): the backend yields many responses,
   * the tool returns `{"messages":[...]}` and reports each as progress.
   */
  serverStreaming?: boolean
  /**
   * Where the token budget put placeholders (`portable`, `strict`;
   * docs/profiles.md, "Token budget"): an error below one names the message
   * and the tool that gives its schema.
   */
  cuts?: ToolCuts
  /**
   * OAuth scopes a caller needs for the tool to exist for it (docs/serving.md, "Tools, errors and visibility"),
   * from `(proto_mcp.service)`, `(proto_mcp.tool)` and the `methodScopes` option; sorted.
   */
  scopes?: string[]
  /**
   * A long-running RPC (it returns `google.longrunning.Operation` and its
   * `operation_info` names these types; full names, no leading dot): the
   * server polls the operation, and `outputSchema` is the response type's.
   */
  longRunning?: LongRunning
  /**
   * The o200k tokens a client spends on the tool (its name, description and
   * input schema as compact JSON), counted at build time where the build
   * counted them anyway (a token budget, or a list big enough to count):
   * `search_tools` and `auto` read it; absent, they estimate.
   */
  tokens?: number
}

/** The types a long-running RPC's `google.longrunning.operation_info` names, resolved to full names. */
export interface LongRunning {
  responseType: string
  metadataType?: string
}

/** A tool's placeholders: the type tool's name and, per placeholder, its JSON Pointer (`*` for any array index) and message. */
export interface ToolCuts {
  typeTool: string
  at: ReadonlyArray<{ path: string; type: string }>
}

/** Every key of {@link ToolSpec}: the fields of a built tool a generated module carries. */
export const TOOL_SPEC_KEYS = [
  'name',
  'title',
  'description',
  'annotations',
  'inputSchema',
  'outputSchema',
  'service',
  'method',
  'requestType',
  'responseType',
  'serverStreaming',
  'cuts',
  'scopes',
  'longRunning',
  'tokens',
] as const satisfies readonly (keyof ToolSpec)[]

// A key added to ToolSpec but not to TOOL_SPEC_KEYS fails to compile here.
const everyKey: Exclude<keyof ToolSpec, (typeof TOOL_SPEC_KEYS)[number]> extends never ? true : never = true
void everyKey
