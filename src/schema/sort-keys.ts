/**
 * Deterministic JSON: object keys sorted at every depth.
 */
import { setOwn } from '../contract/is-record.ts'

export { setOwn }

/** Returns a deep copy of `value` whose object keys are sorted (arrays keep their order). */
export function sortKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(sortKeys) as T
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort()) setOwn(out, key, sortKeys((value as Record<string, unknown>)[key]))
    return out as T
  }
  return value
}
