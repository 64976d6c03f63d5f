/**
 * proto2 `required` fields (editions `LEGACY_REQUIRED`) in canonical
 * protobuf JSON. protobufjs `ext/protojson` writes a message that lacks one
 * without complaint; protobuf JSON encoders refuse it (Go's protojson,
 * `@bufbuild/protobuf`), so a reply without one is an encoding error.
 */
import { isType, isWellKnown, reachPredicate } from './nested-types.ts'
import type { Type } from 'protobufjs'
import type { DecodeFailure } from './protojson.ts'
import { isRecord } from '../contract/is-record.ts'
import { jsonKeyOf } from '../contract/extension-key.ts'

/** The reason of a required field missing from a reply. */
export const REQUIRED_NOT_SET = 'required field not set'

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`)

/** Whether a message of `type` can lack a required field: one of its own or of a message it nests (one lookup once known). */
const reachesRequired = reachPredicate((t) => !isWellKnown(t) && t.fieldsArray.some((f) => f.required))

/**
 * The first required field missing from `json`, the canonical protobuf JSON
 * of a `type` message (lists and map values included), with its path as
 * decode failures give it (`items[1].name`, `byKey["a"].name`); `undefined`
 * when none is.
 */
export function missingRequired(type: Type, json: unknown, path = ''): DecodeFailure | undefined {
  if (!reachesRequired(type) || !isRecord(json)) return undefined
  for (const field of type.fieldsArray) {
    const key = jsonKeyOf(field)
    const at = join(path, key)
    const value = json[key]
    if (value === undefined || value === null) {
      if (field.required) return { path: at, reason: REQUIRED_NOT_SET }
      continue
    }
    const nested = field.resolvedType
    if (!isType(nested) || !reachesRequired(nested)) continue
    let found: DecodeFailure | undefined
    if (field.map && isRecord(value)) {
      for (const [key, item] of Object.entries(value))
        if ((found = missingRequired(nested, item, `${at}[${JSON.stringify(key)}]`))) return found
    } else if (field.repeated && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if ((found = missingRequired(nested, value[i], `${at}[${i}]`))) return found
    } else if ((found = missingRequired(nested, value, at))) return found
  }
  return undefined
}
