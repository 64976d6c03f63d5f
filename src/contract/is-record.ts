/**
 * The one check of "a JSON object": not `null`, not an array, of type
 * `object` (a record of keys to values). Every stage imports it from here
 * (test/architecture.test.ts checks it is written nowhere else).
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
