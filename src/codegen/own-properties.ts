/**
 * Whether input schemas name a property `Object.prototype` also has
 * (`constructor`, `toString`, ...): Ajv reads `data.constructor` and would
 * find the inherited function on an object that lacks the key, so those
 * validators are compiled with Ajv's `ownProperties` (own keys only). Other
 * schemas keep the plain, faster check.
 */

const isPrototypeKey = (key: string): boolean => key in Object.prototype

/** Whether any schema in `schemas` names such a property in `properties` or `required`, at any depth. */
export function needsOwnProperties(schemas: readonly unknown[]): boolean {
  const seen = new Set<object>()
  const visit = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return false
    seen.add(node)
    if (Array.isArray(node)) return node.some(visit)
    const record = node as Record<string, unknown>
    const properties = record.properties
    if (properties !== null && typeof properties === 'object' && Object.keys(properties).some(isPrototypeKey)) return true
    if (Array.isArray(record.required) && record.required.some((key) => typeof key === 'string' && isPrototypeKey(key))) return true
    return Object.values(record).some(visit)
  }
  return schemas.some(visit)
}
