/**
 * The data the run-time lenient pass reads (runtime/lenient.ts): for each
 * request message a tool reaches, its fields with their JSON and proto
 * names and what kind of value each holds, so that another spelling the
 * protobuf JSON decoder reads becomes the advertised one before the
 * validator runs, and an advertised form protobuf JSON lacks (map entries,
 * JSON text) becomes protobuf JSON after it.
 */
import type { LenientField, LenientKind, LenientPlan } from '../contract/index.ts'
import type { FieldModel, ProtoModel, ScalarType, ValueType } from '../proto/model.ts'
import { isOutputOnly, isRequiredField } from './field-rules.ts'
import { DEFAULT_RECURSION_DEPTH } from './message-schema.ts'
import { isPortable } from './scalar-schema.ts'
import { setOwn } from './sort-keys.ts'
import type { Profile } from './types.ts'
import { JSON_TEXT_TYPES, WRAPPERS } from './well-known.ts'

export type { LenientField, LenientKind, LenientPlan }

const SIGNED_64 = new Set<ScalarType>(['int64', 'sint64', 'sfixed64'])
const UNSIGNED_64 = new Set<ScalarType>(['uint64', 'fixed64'])

function scalarKind(scalar: ScalarType): LenientKind {
  if (SIGNED_64.has(scalar)) return 'i64'
  if (UNSIGNED_64.has(scalar)) return 'u64'
  if (scalar === 'float' || scalar === 'double') return 'float'
  if (scalar === 'bool') return 'bool'
  if (scalar === 'string' || scalar === 'bytes') return 'other'
  return 'int'
}

function valueKind(type: ValueType, portable: boolean): { k: LenientKind; t?: string } {
  if (type.kind === 'scalar') return { k: scalarKind(type.scalar) }
  if (type.kind === 'enum') return type.typeName === 'google.protobuf.NullValue' ? { k: 'null' } : { k: 'enum', t: type.typeName }
  const wrapped = WRAPPERS[type.typeName]
  if (wrapped) return { k: scalarKind(wrapped) }
  if (JSON_TEXT_TYPES[type.typeName] !== undefined) return portable ? { k: 'json', t: type.typeName } : { k: 'other' }
  if (type.typeName.startsWith('google.protobuf.') && type.typeName !== 'google.protobuf.Empty') return { k: 'other' }
  return { k: 'msg', t: type.typeName }
}

/** The lenient plan of the requests of `requestTypes` in `profile`; `undefined` for `topeka` (which validates as Topeka does). */
export function lenientPlan(
  model: ProtoModel,
  requestTypes: readonly string[],
  profile: Profile,
  recursionDepth = DEFAULT_RECURSION_DEPTH,
  depths: ReadonlyMap<string, number> = new Map(),
): LenientPlan | undefined {
  if (profile === 'topeka') return undefined
  const portable = isPortable(profile)
  const messages: Record<string, LenientField[]> = {}
  const enums: Record<string, Record<string, string>> = {}
  const field = (f: FieldModel, required: boolean): LenientField => {
    const out: LenientField = { j: f.jsonName, ...valueKind(f.type, portable) }
    if (f.name !== f.jsonName) out.p = f.name
    if (f.repeated) out.r = 1
    if (f.mapKey !== undefined) out.m = scalarKind(f.mapKey)
    if (required) out.q = 1
    return out
  }
  const visit = (name: string): void => {
    if (Object.hasOwn(messages, name)) return
    const message = model.messages.get(name)
    if (!message) return
    const fields: LenientField[] = []
    setOwn(messages, name, fields)
    for (const f of message.fields) {
      // Input schemas leave OUTPUT_ONLY fields out: they stay unknown fields.
      if (isOutputOnly(f)) continue
      const entry = field(f, isRequiredField(f))
      fields.push(entry)
      if (entry.k === 'msg') visit(entry.t!)
      if (entry.k === 'enum' && !Object.hasOwn(enums, entry.t!)) {
        const values: Record<string, string> = {}
        // The first name of a number wins, as protojson writes it.
        for (const v of model.enums.get(entry.t!)?.values ?? [])
          if (!Object.hasOwn(values, String(v.number))) values[String(v.number)] = v.name
        setOwn(enums, entry.t!, values)
      }
    }
  }
  for (const type of requestTypes) visit(type)
  const plan: LenientPlan = { portable, strict: profile === 'strict', depth: recursionDepth, messages, enums }
  if (depths.size > 0) {
    plan.depths = {}
    for (const [type, depth] of depths) setOwn(plan.depths, type, depth)
  }
  return plan
}
