/**
 * The names generated `?mcp` modules import, and the versioned subpath they
 * import them from. The codegen writes its imports from this table; the
 * codegen entry (`src/entries/codegen-v1.ts`) exports every name in it, and
 * `test/contract/generated-imports.test.ts` checks both.
 */

/**
 * The version of the generated-code API: the `?mcp` modules this package
 * writes import {@link CODEGEN_MODULE}, and a package serves the versions
 * whose subpaths its `exports` map to a codegen entry. Raised whenever a
 * generated module of this version would not run against the new runtime.
 */
export const CODEGEN_VERSION = 1

/**
 * The one module generated code imports from (`/codegen-v1`): generated-code
 * API, not covered by semver (docs/internals.md, "Entries"). Any other
 * `/codegen-v<n>` resolves to the package's `codegen-unserved` entry, which
 * fails the module at load with {@link codegenUnserved}.
 */
export const CODEGEN_MODULE = `unplugin-proto-mcp/codegen-v${CODEGEN_VERSION}`

/**
 * Why a module built for `/codegen-<asked>` (`v2`; `undefined` when the
 * bundler dropped the subpath's query) cannot load against this package.
 */
export function codegenUnserved(asked: string | undefined | null): string {
  const built = asked ? `unplugin-proto-mcp/codegen-${asked}` : 'another codegen version than this package serves'
  return (
    `unplugin-proto-mcp: this ?mcp module was generated for ${built}, but the unplugin-proto-mcp loaded here serves ` +
    `${CODEGEN_MODULE} only: build the module again with this version of the plugin, or install the version that generated it`
  )
}

/**
 * The import lines of a generated module: a namespace import of
 * {@link CODEGEN_MODULE} (it links whatever the subpath exports, so an
 * unserved version fails with {@link codegenUnserved} rather than Node's
 * "does not provide an export named") and the names taken from it, each
 * `name` or `name as alias`.
 */
export function codegenImports(names: readonly string[]): string {
  const taken = names.map((name) => name.replace(/\s+as\s+/, ': '))
  return `import * as $codegen from ${JSON.stringify(CODEGEN_MODULE)}\nconst { ${taken.join(', ')} } = $codegen`
}

/** The user's run-time API; generated declarations (`dts`) import its types from here. */
export const RUNTIME_MODULE = 'unplugin-proto-mcp/runtime'

/** Builds the `Server` of a generated module from its spec (`ProtoServerSpec`). */
export const CREATE_SERVER = 'createProtoServer'

/** The Ajv run-time helpers standalone validators `require`, as the codegen entry exports them. */
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

/** Every name a generated module may import from {@link CODEGEN_MODULE}. */
export const GENERATED_IMPORTS: readonly GeneratedImport[] = [CREATE_SERVER, ...AJV_IMPORTS, ...CODEC_IMPORTS]

/** One name of {@link GENERATED_IMPORTS}. */
export type GeneratedImport = typeof CREATE_SERVER | (typeof AJV_IMPORTS)[number] | (typeof CODEC_IMPORTS)[number]
