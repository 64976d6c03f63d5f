/**
 * The contract between generated `?mcp` modules and the runtime: what a
 * generated module hands to `createProtoServer`.
 */

/** Which mapping a module was generated with (mapping.md §5). */
export type Profile = 'default' | 'topeka'

/** A JSON Schema document, as plain JSON. */
export type JsonSchema = Record<string, unknown>

/** One error object of an Ajv validator (the fields the runtime reads). */
export interface ValidationError {
  instancePath: string
  schemaPath: string
  keyword: string
  params: Record<string, unknown>
  message?: string
  /** Present because validators are compiled with `verbose: true`. */
  schema?: unknown
  parentSchema?: unknown
  data?: unknown
}

/** An Ajv standalone validate function. */
export interface ValidateFunction {
  (data: unknown): boolean
  errors?: ValidationError[] | null
}

/** One tool generated from a unary RPC. */
export interface ProtoToolSpec {
  name: string
  description: string
  inputSchema: JsonSchema
  /** Only in the default profile. */
  outputSchema?: JsonSchema
  /** Full name of the service, no leading dot (`examples.v1.VibeService`). */
  service: string
  /** The RPC's name as written (`SetVibe`). */
  method: string
  /** Full names of the request and response messages, no leading dot. */
  requestType: string
  responseType: string
  /** The precompiled validator of `inputSchema`. */
  validate: ValidateFunction
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
}
