/**
 * The neutral model of a loaded `.proto`: what the later build stages
 * (schema, codegen) need, with no protobufjs objects in it.
 */
import type { BuildWarning } from './warnings.ts'

/** A position in a `.proto` file (1-based line and column). */
export interface SourceLoc {
  file: string
  line: number
  column: number
}

/** Scalar kinds, spelled as in `.proto` files. */
export type ScalarType =
  | 'double'
  | 'float'
  | 'int32'
  | 'int64'
  | 'uint32'
  | 'uint64'
  | 'sint32'
  | 'sint64'
  | 'fixed32'
  | 'fixed64'
  | 'sfixed32'
  | 'sfixed64'
  | 'bool'
  | 'string'
  | 'bytes'

/** What a single value of a field is: a scalar, an enum or a message (by full name, no leading dot). */
export type ValueType = { kind: 'scalar'; scalar: ScalarType } | { kind: 'enum'; typeName: string } | { kind: 'message'; typeName: string }

/** One field of a message. */
export interface FieldModel {
  /** Name as written in the `.proto` (`previous_vibe`). */
  name: string
  /** protobuf JSON name (`previousVibe`, or the `json_name` option). */
  jsonName: string
  number: number
  /** The value type; for a map field, the map's value type. */
  type: ValueType
  repeated: boolean
  /** Set for `map<K, V>` fields (then `repeated` is false and `type` is V). */
  mapKey?: ScalarType
  /** Name of the *real* oneof this field belongs to (never a proto3-optional synthetic one). */
  oneof?: string
  /** `optional` in proto3 (explicit presence through a synthetic oneof). */
  proto3Optional: boolean
  /** The leading comment as the parser gives it, or null when there is none. */
  comment: string | null
  /** Field options as plain JSON (e.g. `{ "(google.api.field_behavior)": ... }`). */
  options: Record<string, unknown>
  /**
   * Custom options merged into structured JSON, keyed by the extension's full
   * name (`{ "buf.validate.field": { string: { min_len: 3 } }, "google.api.field_behavior": ["REQUIRED"] }`).
   */
  customOptions: Record<string, unknown>
  /** proto2 `required`, or `features.field_presence = LEGACY_REQUIRED` in an editions file. */
  legacyRequired: boolean
  loc?: SourceLoc
}

/** A message type. */
export interface MessageModel {
  /** Full name without the leading dot (`examples.v1.SetVibeRequest`). */
  fullName: string
  comment: string | null
  fields: FieldModel[]
  /** Real oneofs (synthetic proto3-optional ones left out), fields by name, with their custom options. */
  oneofs: { name: string; fields: string[]; customOptions?: Record<string, unknown> }[]
  /** Custom message options (e.g. `buf.validate.message`), as {@link FieldModel.customOptions}. */
  customOptions?: Record<string, unknown>
  loc?: SourceLoc
}

/** An enum type. */
export interface EnumModel {
  fullName: string
  comment: string | null
  /** In declaration order. */
  values: { name: string; number: number; comment: string | null }[]
  loc?: SourceLoc
}

/** One RPC. */
export interface MethodModel {
  name: string
  comment: string | null
  /** Full names without the leading dot. */
  requestType: string
  responseType: string
  requestStream: boolean
  responseStream: boolean
  options: Record<string, unknown>
  /** Custom method options (e.g. `proto_mcp.tool`), as {@link FieldModel.customOptions}. */
  customOptions: Record<string, unknown>
  loc?: SourceLoc
}

/** A service of the imported file. */
export interface ServiceModel {
  name: string
  /** Full name without the leading dot (`examples.v1.VibeService`). */
  fullName: string
  comment: string | null
  methods: MethodModel[]
  /** Custom service options (e.g. `proto_mcp.service`), as {@link FieldModel.customOptions}. */
  customOptions: Record<string, unknown>
  loc?: SourceLoc
}

/** A loaded `.proto` and everything it imports. */
export interface ProtoModel {
  /** Absolute path of the imported file. */
  file: string
  /** Absolute paths of every `.proto` read (the file and all its imports), sorted. */
  files: string[]
  /** The imported file's package ('' when none). */
  packageName: string
  /** Services declared in the imported file only, in declaration order. */
  services: ServiceModel[]
  /** Every message reachable from the file (imports and well-known types too), by full name. */
  messages: Map<string, MessageModel>
  enums: Map<string, EnumModel>
  /**
   * protobufjs JSON descriptor (`Root.toJSON()` form) of every type the
   * file and its imports (transitively) declare, plus every well-known type,
   * for the runtime codec (an `Any` may pack any of them). Deterministic.
   */
  descriptor: Record<string, unknown>
  /** Build warnings (client-streaming/bidi RPCs with no tool, ...). */
  warnings: BuildWarning[]
}
