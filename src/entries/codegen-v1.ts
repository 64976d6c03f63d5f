/**
 * `unplugin-proto-mcp/codegen-v1`: what generated `?mcp` modules of codegen
 * version 1 import, and nothing else: exactly the names of the contract's
 * table (src/contract/generated-imports.ts;
 * test/contract/generated-imports.test.ts holds the two together).
 * Generated-code API: not covered by semver; a new version of the code
 * generator gets a new subpath (docs/internals.md, "Entries").
 */
export { createProtoServer } from '../server/index.ts'
/** The spec a generated module hands to `createProtoServer`, and the types of its `tools` and `descriptor` exports. */
export type {
  JsonCodec,
  LenientField,
  LenientPlan,
  ProtoServerSpec,
  ProtoToolSpec,
  ToolSpec,
  TypeDetailSpec,
  ValidateFunction,
  ValidationError,
} from '../contract/index.ts'
export { ajvEqual, ajvFormats, ajvUcs2length, ajvUri, ajvValidationError } from '../runtime/ajv-runtime.ts'
export {
  CODEC_BAIL,
  CODEC_INT32_KEY_RE,
  CODEC_MAX_DEPTH,
  CODEC_UINT32_KEY_RE,
  codecBool,
  codecBytes,
  codecDouble,
  codecEnum,
  codecFloat,
  codecInt32,
  codecInt64,
  codecIsPlain,
  codecKeyCount,
  codecString,
  codecUint32,
  codecUint64,
  codecWellFormed,
} from '../runtime/codec.ts'
