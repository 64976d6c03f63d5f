/**
 * How every validator is compiled (docs/calls.md, "Validation" and "Validation texts"): the generated
 * ones at build time (codegen/compile-validators.ts), hand-written tools'
 * at run time (server/tools/hand-written-tool.ts). Each adds only what differs.
 */

/** What both kinds share: 2020-12 documents, every error reported, unknown keywords (annotations) allowed. */
export const VALIDATOR_OPTIONS = { allErrors: true, strict: false } as const

/**
 * Generated validators: no `message`, `schema` or `data` on errors (the
 * renderer reads `keyword`, `params` and the value at `instancePath`), and a
 * `$ref` to a shared schema kept a call (inlined, it would be compiled once per use).
 */
export const GENERATED_VALIDATOR_OPTIONS = { ...VALIDATOR_OPTIONS, verbose: false, messages: false, inlineRefs: false } as const

/**
 * Hand-written tools' validators: `verbose`, since a user's schema may hold
 * any `not` (its text shows the schema), and own keys only (a property named
 * `constructor` is a property, not `Object.prototype`'s).
 */
export const HAND_TOOL_VALIDATOR_OPTIONS = { ...VALIDATOR_OPTIONS, verbose: true, ownProperties: true } as const
