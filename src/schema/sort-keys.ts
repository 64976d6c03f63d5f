/**
 * Deterministic JSON: object keys sorted at every depth.
 */

/**
 * Sets `key` as an own, enumerable property of `target`, even `__proto__`
 * (a plain `target[key] = value` would set the prototype instead, and a
 * field with `json_name = "__proto__"` would vanish from the schema).
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // A plain assignment is the fast path (a build sets millions of keys); only `__proto__` needs defining.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

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
