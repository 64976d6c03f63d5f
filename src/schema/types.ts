/**
 * Types of the schema stage. (`runtime/types.ts` spells the same `Profile`
 * and `JsonSchema` for generated code; build-time stages may not import the
 * runtime, and TypeScript checks the two agree wherever they meet.)
 */

/**
 * Which mapping to produce: `portable` (schemas every major AI client
 * accepts; the default), `strict` (OpenAI strict mode), `full` (exact
 * JSON Schema 2020-12 with the extensions) or `topeka` (the Go generator's
 * tools, byte for byte).
 */
export type Profile = 'portable' | 'strict' | 'full' | 'topeka'

/** Every profile, the default first. */
export const PROFILES: readonly Profile[] = ['portable', 'strict', 'full', 'topeka']

/** A JSON Schema document, as plain JSON. */
export type JsonSchema = Record<string, unknown>

/** Which side of a tool a schema describes: its arguments or its result. */
export type SchemaMode = 'input' | 'output'
