/**
 * Extension keys at the codec's edge (docs/mapping.md, "Input schema: the
 * shape"): a tool's JSON keys an extension by its dotted full name
 * (`ext.v1.author`, contract/extension-key.ts), protobufjs `ext/protojson`
 * by protobuf JSON's bracketed one (`[ext.v1.author]`). {@link bracketed}
 * turns the first into the second before a decode, {@link unbracketed} the
 * second into the first after an encode, inside an `Any` too (its packed
 * type looked up by its `@type`). JSON of a type that reaches neither an
 * extension nor an `Any` is returned as it is, for one lookup.
 */
import type { Field, Type } from 'protobufjs'
import { extensionName, jsonKeyOf } from '../contract/extension-key.ts'
import { isRecord, setOwn } from '../contract/is-record.ts'
import { ANY_TYPE, isType, isWellKnown, packedType, reachPredicate } from './nested-types.ts'

/** Deeper than protobufjs decodes (its recursion limit is 100): left as it is, for the decoder to refuse. */
const MAX_DEPTH = 100

/** Whether a message of `type`, or one it nests, can hold an extension, or an `Any` that may (one lookup once known). */
const reachesExtension = reachPredicate(
  (t) => t.fullName === ANY_TYPE || (!isWellKnown(t) && t.fieldsArray.some((f) => f.declaringField !== null)),
)

/** A type's fields by the key one side spells them with, and the key the other side wants. */
type KeyIndex = Map<string, { field: Field; to: string }>

const indexes = { bracket: new WeakMap<Type, KeyIndex>(), unbracket: new WeakMap<Type, KeyIndex>() }

function indexOf(type: Type, direction: keyof typeof indexes): KeyIndex {
  let index = indexes[direction].get(type)
  if (index !== undefined) return index
  index = new Map()
  for (const field of type.fieldsArray) {
    field.resolve()
    if (field.declaringField !== null) {
      const key = jsonKeyOf(field)
      const bracketedKey = `[${extensionName(field.declaringField)}]`
      if (direction === 'bracket') index.set(key, { field, to: bracketedKey })
      else index.set(bracketedKey, { field, to: key })
      continue
    }
    // Any spelling the decoder reads names the field (its proto name too); the encoder writes the JSON name.
    for (const key of new Set([field.jsonName, (field as Field & { protoName?: string }).protoName ?? field.name, field.name]))
      index.set(key, { field, to: key })
  }
  indexes[direction].set(type, index)
  return index
}

function rekey(type: Type, json: unknown, direction: keyof typeof indexes, depth: number): unknown {
  if (!isRecord(json) || depth > MAX_DEPTH || !reachesExtension(type)) return json
  if (type.fullName === ANY_TYPE) {
    // Its fields are the packed message's, beside `@type` (which no field spells).
    const packed = packedType(type, json)
    return packed === undefined || isWellKnown(packed) ? json : rekey(packed, json, direction, depth + 1)
  }
  const index = indexOf(type, direction)
  // Copied only from the first key that changes: most JSON walked here (of a type that may hold an Any) has none.
  let out: Record<string, unknown> | undefined
  const keys = Object.keys(json)
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!
    const value = json[key]
    const entry = index.get(key)
    const to = entry?.to ?? key
    const next = entry === undefined ? value : valueOf(entry.field, value, direction, depth)
    if (out === undefined && (to !== key || next !== value)) {
      out = {}
      for (const earlier of keys.slice(0, i)) setOwn(out, earlier, json[earlier])
    }
    // A key given twice (both spellings) keeps the last, as the decoder does.
    if (out !== undefined) setOwn(out, to, next)
  }
  return out ?? json
}

function valueOf(field: Field, value: unknown, direction: keyof typeof indexes, depth: number): unknown {
  const nested = field.resolvedType
  if (!isType(nested) || !reachesExtension(nested)) return value
  if (field.map && isRecord(value)) {
    let out: Record<string, unknown> | undefined
    for (const [key, item] of Object.entries(value)) {
      const next = rekey(nested, item, direction, depth + 1)
      if (next !== item) setOwn((out ??= { ...value }), key, next)
    }
    return out ?? value
  }
  if (field.repeated && Array.isArray(value)) {
    let out: unknown[] | undefined
    for (let i = 0; i < value.length; i++) {
      const next = rekey(nested, value[i], direction, depth + 1)
      if (next !== value[i]) (out ??= value.slice())[i] = next
    }
    return out ?? value
  }
  return rekey(nested, value, direction, depth + 1)
}

/** `json` (a tool's JSON of a `type` message) with its extensions keyed as protojson reads them. */
export function bracketed(type: Type, json: unknown): unknown {
  return rekey(type, json, 'bracket', 0)
}

/** `json` (protojson's JSON of a `type` message) with its extensions keyed as a tool's JSON keys them. */
export function unbracketed(type: Type, json: unknown): unknown {
  return rekey(type, json, 'unbracket', 0)
}
