/**
 * Types of the schema stage. `Profile`, `PROFILES` and `JsonSchema` are the
 * contract's (src/contract/), shared with the runtime.
 */
export { DEFAULT_PROFILE, PROFILES } from '../contract/index.ts'
export type { JsonSchema, Profile } from '../contract/index.ts'

/** Which side of a tool a schema describes: its arguments or its result. */
export type SchemaMode = 'input' | 'output'
