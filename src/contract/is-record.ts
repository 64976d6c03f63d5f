/**
 * The one check of "a JSON object": not `null`, not an array, of type
 * `object` (a record of keys to values). Every stage imports it from here
 * (test/architecture.test.ts checks it is written nowhere else).
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * Sets `key` as an own, enumerable property of `target`, even `__proto__`:
 * keys of JSON are data (a plain `target[key] = value` would set the
 * prototype instead, and a field with `json_name = "__proto__"` or such a
 * map key would vanish). Every stage imports it from here.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // A plain assignment is the fast path (a build sets millions of keys); only `__proto__` needs defining.
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}
