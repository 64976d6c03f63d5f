/**
 * The server spec: what a generated `?mcp` module hands to
 * `createProtoServer`, and what the command and the gateway compile in
 * process (codegen's `compileInProcess`). One type for both, so neither side
 * casts the other's.
 */
import type { DiscoverySpec } from './discovery.ts'
import type { PromptSpec } from './prompt-template.ts'
import type { ProtoResourcesSpec } from './resource-options.ts'
import type { JsonSchema, Profile, ToolSpec } from './tool-spec.ts'

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

/** An Ajv validate function (standalone in a generated module, compiled in process by the command). */
export interface ValidateFunction {
  (data: unknown): boolean
  errors?: ValidationError[] | null
}

/**
 * A build-time generated protobuf JSON codec: the canonical protobuf JSON
 * of `json` (as the reflection codec gives it), or the runtime's
 * `CODEC_BAIL` for anything it does not handle exactly. `depth` is 0 at the root.
 */
export type JsonCodec = (json: unknown, depth: number) => unknown

/** One tool of a spec: the {@link ToolSpec} with its validator and codecs. */
export interface ProtoToolSpec extends ToolSpec {
  /** The precompiled validator of the tool's validation schema (its `inputSchema`, or the exact one where that says less). */
  validate: ValidateFunction
  /** Generated codec of the request type (validated arguments → canonical JSON); absent for a hand-converted well-known root and in specs the CLI builds (the reflection codec converts). */
  decode?: JsonCodec
  /** Generated codec of the response type (a handler's response → canonical JSON); absent for a hand-converted well-known root and in specs the CLI builds (the reflection codec converts). */
  encode?: JsonCodec
}

/** What a field's value is, as the lenient pass sees it. */
export type LenientKind = 'msg' | 'json' | 'i64' | 'u64' | 'float' | 'enum' | 'null' | 'bool' | 'int' | 'other'

/**
 * One request field as the lenient pass reads it: `j` JSON name, `p` proto
 * name (when it differs), `k` kind, `t` message or enum type, `r` repeated,
 * `m` the map key's kind, `q` required. (The schema stage writes it.)
 */
export interface LenientField {
  j: string
  p?: string
  k: LenientKind
  t?: string
  r?: 1
  m?: LenientKind
  q?: 1
}

/** What the lenient pass knows of a module's requests (runtime/lenient.ts); absent in `topeka`. */
export interface LenientPlan {
  /** Maps advertised as `{key, value}` entries, open values as JSON text, 64-bit integers as strings (`portable`, `strict`). */
  portable: boolean
  /** Every property required, optional ones nullable (`strict`: OpenAI strict mode). */
  strict: boolean
  /** How many times a recursive message is inlined before its field is JSON text. */
  depth: number
  /** Request types inlined less deep than `depth` (their schema would have been too large). */
  depths?: Record<string, number>
  /** Fields of every message the tools' requests reach, by full name. */
  messages: Record<string, LenientField[]>
  /** Enum value names by number, for every enum those messages use. */
  enums: Record<string, Record<string, string>>
}

/** The type tool as `tools/list` shows it. */
export interface TypeToolListing {
  name: string
  description: string
  inputSchema: JsonSchema
}

/** The type tool of a server whose tools the token budget cut (docs/profiles.md, "Token budget"): its listing and answers. */
export interface TypeDetailSpec {
  tool: TypeToolListing
  /** Answer texts (compact JSON, keys sorted) by message full name or tool name. */
  answers: Record<string, string>
  /** The type tool's listing's o200k tokens, as {@link ToolSpec.tokens}. */
  toolTokens?: number
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
   * Built by {@link serviceMethods}.
   */
  services: Record<string, string[]>
  /**
   * The normalised leading comment of each service that has one (full name,
   * no leading dot), once per service, not per tool: `search_tools` finds a
   * service's tools by it (docs/guide/big-apis.md).
   */
  serviceComments?: Record<string, string>
  /** The lenient pass's table: every spelling protobuf JSON reads is accepted (every profile but `topeka`). */
  lenient?: LenientPlan
  /**
   * `portable`/`strict`: for each recursive message the requests reach, the
   * validator of its `full` schema (recursion as `$ref`), which checks what a
   * client sent as JSON text past `recursionDepth` (runtime/deep-rules.ts).
   */
  deep?: Record<string, ValidateFunction>
  /** The type tool, when the token budget cut a tool's schema. */
  types?: TypeDetailSpec
  /** Tool discovery (the `discovery` option), when not the default `auto` with the default names. */
  discovery?: DiscoverySpec
  /** Prompts from `(proto_mcp.prompt)` options, when the proto has some. */
  prompts?: PromptSpec[]
  /** Resource templates from `google.api.resource` (docs/guide/resources.md), read and completed through the tools; when there are some. */
  resources?: ProtoResourcesSpec
}

/** The spec's `services` of a model's services: each full name with its RPC names in declaration order, keys sorted. */
export function serviceMethods(
  services: ReadonlyArray<{ readonly fullName: string; readonly methods: ReadonlyArray<{ readonly name: string }> }>,
): Record<string, string[]> {
  const sorted = [...services].sort((a, b) => (a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0))
  return Object.fromEntries(sorted.map((service) => [service.fullName, service.methods.map((m) => m.name)]))
}
