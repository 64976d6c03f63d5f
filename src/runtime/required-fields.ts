/**
 * proto2 `required` fields (editions `LEGACY_REQUIRED`) in canonical
 * protobuf JSON. protobufjs `ext/protojson` writes a message that lacks one
 * without complaint; protobuf JSON encoders refuse it (Go's protojson,
 * `@bufbuild/protobuf`), so a reply without one is an encoding error.
 */
import { loadProtobuf } from './protobufjs.cjs'
import type { Type } from 'protobufjs'
import type { DecodeFailure } from './protojson.ts'

/** The reason of a required field missing from a reply. */
export const REQUIRED_NOT_SET = 'required field not set'

const reachesCache = new WeakMap<Type, boolean>()

const isType = (value: unknown): value is Type => value instanceof loadProtobuf().protobuf.Type
// Well-known types declare no required field, and an Any's content is not walked (Go does not check it either).
const isWellKnown = (type: Type): boolean => type.fullName.startsWith('.google.protobuf.')
const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`)

/**
 * Whether a message of `type` can lack a required field: one of its own or
 * of a message it nests. Decided once for every type `type` reaches (a
 * fixpoint, so recursive messages are right): replies of the usual proto3
 * types cost one lookup.
 */
function reachesRequired(type: Type): boolean {
  const known = reachesCache.get(type)
  if (known !== undefined) return known
  const reach: Type[] = []
  const seen = new Set<Type>()
  const visit = (t: Type): void => {
    if (seen.has(t) || reachesCache.has(t)) return
    seen.add(t)
    reach.push(t)
    if (isWellKnown(t)) return
    for (const field of t.fieldsArray) {
      const resolved = field.resolve().resolvedType
      if (isType(resolved)) visit(resolved)
    }
  }
  visit(type)
  const result = new Map(reach.map(t => [t, !isWellKnown(t) && t.fieldsArray.some(f => f.required)]))
  const get = (t: Type): boolean => result.get(t) ?? reachesCache.get(t) ?? false
  for (let changed = true; changed;) {
    changed = false
    for (const t of reach) {
      if (result.get(t) || isWellKnown(t)) continue
      if (t.fieldsArray.some(f => { const r = f.resolvedType; return isType(r) && get(r) })) {
        result.set(t, true)
        changed = true
      }
    }
  }
  for (const [t, value] of result) reachesCache.set(t, value)
  return result.get(type)!
}

/**
 * The first required field missing from `json`, the canonical protobuf JSON
 * of a `type` message (lists and map values included), with its path as
 * decode failures give it (`items[1].name`, `byKey["a"].name`); `undefined`
 * when none is.
 */
export function missingRequired(type: Type, json: unknown, path = ''): DecodeFailure | undefined {
  if (!reachesRequired(type) || !isObject(json)) return undefined
  for (const field of type.fieldsArray) {
    const at = join(path, field.jsonName)
    const value = json[field.jsonName]
    if (value === undefined || value === null) {
      if (field.required) return { path: at, reason: REQUIRED_NOT_SET }
      continue
    }
    const nested = field.resolvedType
    if (!isType(nested) || !reachesRequired(nested)) continue
    let found: DecodeFailure | undefined
    if (field.map && isObject(value)) {
      for (const [key, item] of Object.entries(value)) if ((found = missingRequired(nested, item, `${at}[${JSON.stringify(key)}]`))) return found
    } else if (field.repeated && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if ((found = missingRequired(nested, value[i], `${at}[${i}]`))) return found
    } else if ((found = missingRequired(nested, value, at))) return found
  }
  return undefined
}
