/**
 * The keywords generated validators use beyond JSON Schema's (docs/calls.md,
 * "Validation"): the code generator compiles them (codegen/validator-schema.ts), the
 * runtime's error texts name them (runtime/validation-text.ts).
 */

/** A `portable`/`strict` float: a number or one of the listed values (non-finite strings, `null` in `strict`). */
export const PROTO_FLOAT_KEYWORD = 'x-proto-float'

/** `not: {enum}` (buf.validate `not_in`), whose error carries the values as `params.values`. */
export const NOT_IN_KEYWORD = 'x-not-in'
