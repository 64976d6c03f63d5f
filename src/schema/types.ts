/**
 * Types of the schema stage. (`runtime/types.ts` spells the same `Profile`
 * and `JsonSchema` for generated code; build-time stages may not import the
 * runtime, and TypeScript checks the two agree wherever they meet.)
 */

/** Which mapping to produce (mapping.md §5): Topeka's exactly, or with the extensions. */
export type Profile = 'default' | 'topeka'

/** A JSON Schema document, as plain JSON. */
export type JsonSchema = Record<string, unknown>

/** Which side of a tool a schema describes: its arguments or its result. */
export type SchemaMode = 'input' | 'output'
