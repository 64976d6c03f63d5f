/**
 * `unplugin-proto-mcp/internal`: what generated `?mcp` modules import, and
 * nothing else: exactly the names of the contract's table
 * (src/contract/generated-imports.ts; test/contract/generated-imports.test.ts
 * holds the two together). Internal API: not covered by semver, it changes
 * with the code generator (docs/internals.md, "Entries").
 */
export { createProtoServer } from '../server/index.ts'
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
