/**
 * Ajv's standalone ESM output still `require`s its run-time helpers; this
 * turns each of those into a named import of `unplugin-proto-mcp/codegen-v1`.
 */
import { CODEGEN_MODULE, type GeneratedImport } from '../contract/index.ts'

/**
 * The helpers a generated validator may need, as exported by
 * `unplugin-proto-mcp/codegen-v1` (`src/entries/codegen-v1.ts`): the `require`
 * specifier and the property read off it, then the name of the contract's
 * table (src/contract/generated-imports.ts) that replaces both.
 */
export const AJV_HELPERS: readonly { module: string; property: string; name: GeneratedImport }[] = [
  { module: 'ajv/dist/runtime/equal', property: 'default', name: 'ajvEqual' },
  { module: 'ajv/dist/runtime/ucs2length', property: 'default', name: 'ajvUcs2length' },
  { module: 'ajv/dist/runtime/uri', property: 'default', name: 'ajvUri' },
  { module: 'ajv/dist/runtime/validation_error', property: 'default', name: 'ajvValidationError' },
  { module: 'ajv-formats/dist/formats', property: 'fullFormats', name: 'ajvFormats' },
]

// Ajv declares each helper once, at the top level: `const func0 = require("x").default;`.
// Anchoring on that declaration keeps text inside embedded schemas (a
// description that mentions `require(`) untouched.
const REQUIRE_RE = /(?<=\bconst [\w$]+ = )require\(\s*(["'])([^"']+)\1\s*\)(?:\.([A-Za-z_$][\w$]*)|\[\s*(["'])([^"']+)\4\s*\])?/g

/** The result of {@link rewriteRequires}. */
export interface RewrittenCode {
  code: string
  /** The codegen entry's exports the code now uses, sorted. */
  helpers: GeneratedImport[]
}

/**
 * Replaces every `require("…").prop` Ajv emitted with the matching runtime
 * export. Throws on a `require` it does not know: a validator that would
 * crash at run time must fail the build instead.
 */
export function rewriteRequires(code: string): RewrittenCode {
  const helpers = new Set<GeneratedImport>()
  const out = code.replace(REQUIRE_RE, (whole, _q, module: string, dotted?: string, _q2?: string, bracketed?: string) => {
    const property = dotted ?? bracketed
    const helper = AJV_HELPERS.find((h) => h.module === module && h.property === property)
    if (!helper) {
      throw new Error(
        `cannot make the validator pure ESM: unknown helper \`${whole}\` in Ajv's output; ` +
          `export it from "${CODEGEN_MODULE}", name it in src/contract/generated-imports.ts and add it to AJV_HELPERS in src/codegen/rewrite-requires.ts`,
      )
    }
    helpers.add(helper.name)
    return helper.name
  })
  return { code: out, helpers: [...helpers].sort() }
}
