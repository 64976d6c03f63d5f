/**
 * Questions of the form "can a message of this type, or one it nests, hold
 * X?", answered once per type and cached, for the checks that run on
 * every decode or encode (protojson-checks.ts, required-fields.ts).
 */
import type { Type } from 'protobufjs'
import { loadProtobuf } from './load-protobuf.ts'

/** Whether `value` is a reflected message type. */
export const isType = (value: unknown): value is Type => value instanceof loadProtobuf().protobuf.Type
/** Well-known types have their own JSON forms and are never walked field by field. */
export const isWellKnown = (type: Type): boolean => type.fullName.startsWith('.google.protobuf.')

/**
 * A cached predicate over types: true for a type when `direct` holds for it
 * or for any message type it reaches through its fields (the fields of
 * well-known types are not walked). Decided for every type `type` reaches in one
 * fixpoint, so recursive messages are right and later calls cost one lookup.
 */
export function reachPredicate(direct: (type: Type) => boolean): (type: Type) => boolean {
  const cache = new WeakMap<Type, boolean>()
  return (type) => {
    const known = cache.get(type)
    if (known !== undefined) return known
    const reach: Type[] = []
    const seen = new Set<Type>()
    const visit = (t: Type): void => {
      if (seen.has(t) || cache.has(t)) return
      seen.add(t)
      reach.push(t)
      if (isWellKnown(t)) return
      for (const field of t.fieldsArray) {
        const resolved = field.resolve().resolvedType
        if (isType(resolved)) visit(resolved)
      }
    }
    visit(type)
    const result = new Map(reach.map((t) => [t, direct(t)]))
    const get = (t: Type): boolean => result.get(t) ?? cache.get(t) ?? false
    for (let changed = true; changed;) {
      changed = false
      for (const t of reach) {
        if (result.get(t) || isWellKnown(t)) continue
        if (
          t.fieldsArray.some((f) => {
            const r = f.resolvedType
            return isType(r) && get(r)
          })
        ) {
          result.set(t, true)
          changed = true
        }
      }
    }
    for (const [t, value] of result) cache.set(t, value)
    return result.get(type)!
  }
}

/** The full name of `google.protobuf.Any`. */
export const ANY_TYPE = '.google.protobuf.Any'

/**
 * The type an `Any`'s JSON packs (looked up in `any`'s root by its
 * `@type`); `undefined` without one, or for a type the root lacks (the
 * decoder reports it).
 */
export function packedType(any: Type, json: Record<string, unknown>): Type | undefined {
  const url = json['@type']
  if (typeof url !== 'string') return undefined
  try {
    return any.root.lookupType(url.slice(url.lastIndexOf('/') + 1))
  } catch {
    return undefined
  }
}
