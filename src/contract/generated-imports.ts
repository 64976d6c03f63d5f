/**
 * The names generated `?mcp` modules import, and the module they import
 * them from. The codegen writes its imports from this table; the internal
 * entry (`src/entries/internal.ts`) exports every name in it, and
 * `test/architecture.test.ts` checks both.
 */

/**
 * The one module generated code imports from: internal API, not covered by
 * semver (docs/internals.md, "Entries").
 */
export const INTERNAL_MODULE = 'unplugin-proto-mcp/internal'

/** The user's run-time API; generated declarations (`dts`) import its types from here. */
export const RUNTIME_MODULE = 'unplugin-proto-mcp/runtime'

/** Builds the `Server` of a generated module from its spec (`ProtoServerSpec`). */
export const CREATE_SERVER = 'createProtoServer'

/** The Ajv run-time helpers standalone validators `require`, as the internal entry exports them. */
export const AJV_IMPORTS = ['ajvEqual', 'ajvFormats', 'ajvUcs2length', 'ajvUri', 'ajvValidationError'] as const

/** The helpers and constants of generated protobuf JSON codecs (src/runtime/codec.ts). */
export const CODEC_IMPORTS = [
  'CODEC_BAIL',
  'CODEC_INT32_KEY_RE',
  'CODEC_MAX_DEPTH',
  'CODEC_UINT32_KEY_RE',
  'codecBool',
  'codecBytes',
  'codecDouble',
  'codecEnum',
  'codecFloat',
  'codecInt32',
  'codecInt64',
  'codecIsPlain',
  'codecKeyCount',
  'codecString',
  'codecUint32',
  'codecUint64',
  'codecWellFormed',
] as const

/** Every name a generated module may import from {@link INTERNAL_MODULE}. */
export const GENERATED_IMPORTS: readonly GeneratedImport[] = [CREATE_SERVER, ...AJV_IMPORTS, ...CODEC_IMPORTS]

/** One name of {@link GENERATED_IMPORTS}. */
export type GeneratedImport = typeof CREATE_SERVER | (typeof AJV_IMPORTS)[number] | (typeof CODEC_IMPORTS)[number]
