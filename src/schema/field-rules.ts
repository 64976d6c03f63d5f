/**
 * Field annotations in input schemas (docs/mapping.md, "Extensions"): `required` from
 * `google.api.field_behavior` and `buf.validate`, `OUTPUT_ONLY` fields left
 * out, and the `buf.validate` rules JSON Schema can say. What it cannot say
 * (CEL, byte lengths, IP prefixes, ...) is left out and reported as a note.
 */
import type { JsonSchema } from './types.ts'
import type { FieldModel, ProtoModel, ScalarType, ValueType } from '../proto/model.ts'
import { NON_FINITE_FLOATS } from './scalar-schema.ts'
import { WRAPPERS } from './well-known.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rule messages are plain JSON read key by key
type Json = Record<string, any>

/** Extension full names read here. */
export const FIELD_BEHAVIOR = 'google.api.field_behavior'
/** `(buf.validate.field)`: a field's `FieldRules`. */
export const VALIDATE_FIELD = 'buf.validate.field'
/** `(buf.validate.message)`: message-level rules (CEL, oneof rules). */
export const VALIDATE_MESSAGE = 'buf.validate.message'
/** `(buf.validate.oneof)`: oneof rules. */
export const VALIDATE_ONEOF = 'buf.validate.oneof'

/** Where rules are applied: the model, the field's name for notes, and the notes sink. */
export interface RuleContext {
  model: ProtoModel
  /** `pkg.Message.field`, as notes name it. */
  where: string
  note: (text: string) => void
}

const STRING_FORMATS: Record<string, string> = {
  email: 'email',
  hostname: 'hostname',
  ipv4: 'ipv4',
  ipv6: 'ipv6',
  uri: 'uri',
  uri_ref: 'uri-reference',
  uuid: 'uuid',
}
const NUMERIC = new Set<string>([
  'float',
  'double',
  'int32',
  'int64',
  'uint32',
  'uint64',
  'sint32',
  'sint64',
  'fixed32',
  'fixed64',
  'sfixed32',
  'sfixed64',
])
// Documentation-only keys of the rule messages: nothing to enforce.
const SILENT = new Set(['example', 'defined_only', 'strict'])
const REGEX_SPECIAL_RE = /[.*+?^${}()|[\]\\/]/g

const escapeRegex = (text: string): string => text.replace(REGEX_SPECIAL_RE, '\\$&')
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value])
const rulesOf = (field: FieldModel): Json => (field.customOptions[VALIDATE_FIELD] ?? {}) as Json

function behaviors(field: FieldModel): unknown[] {
  const value = field.customOptions[FIELD_BEHAVIOR]
  return value === undefined ? [] : asArray(value)
}

/** Whether a field is `OUTPUT_ONLY` (left out of input schemas, kept in output ones). */
export function isOutputOnly(field: FieldModel): boolean {
  return behaviors(field).includes('OUTPUT_ONLY')
}

/**
 * Whether a field is required in input schemas: `field_behavior = REQUIRED`,
 * `(buf.validate.field).required = true` (unless its `ignore` is
 * `IGNORE_ALWAYS`), or proto2 `required` / editions `LEGACY_REQUIRED`
 * (a protobuf parser rejects a message missing it).
 */
export function isRequiredField(field: FieldModel): boolean {
  const rules = rulesOf(field)
  return behaviors(field).includes('REQUIRED') || field.legacyRequired || (rules.required === true && rules.ignore !== 'IGNORE_ALWAYS')
}

/**
 * The input schema of `field` with its `buf.validate` rules applied:
 * `schema` is the field's schema as mapped (array for repeated, object for
 * maps). Rules JSON Schema cannot say are reported through `ctx.note`.
 */
export function applyFieldRules(schema: JsonSchema, field: FieldModel, ctx: RuleContext): JsonSchema {
  const rules = rulesOf(field)
  if (Object.keys(rules).length === 0) return schema
  const unsaid = (rule: string, why = 'JSON Schema cannot say it'): void =>
    ctx.note(`${ctx.where}: (buf.validate.field).${rule} is left out of the input schema (${why})`)
  for (const key of ['cel', 'cel_expression']) if (rules[key] !== undefined) unsaid(key, 'a CEL expression')
  if (rules.ignore === 'IGNORE_ALWAYS') return schema
  if (rules.ignore !== undefined && rules.ignore !== 'IGNORE_UNSPECIFIED') {
    // The rules would then hold only for non-zero values; a schema saying so exactly would be unreadable.
    unsaid(`ignore = ${String(rules.ignore)}`, 'its rules skip zero values')
    return schema
  }
  const out: Json = { ...schema }
  // protovalidate: a repeated or map field is "set" only when it has an element.
  if (rules.required === true && field.mapKey !== undefined) out.minProperties = 1
  else if (rules.required === true && field.repeated) out.minItems = 1
  const value = (type: ValueType, s: JsonSchema, r: Json, path: string): JsonSchema =>
    applyValueRules(s, kindOf(type), r, path, ctx, unsaid)
  if (field.mapKey !== undefined) {
    const map = (rules.map ?? {}) as Json
    if (typeof map.min_pairs === 'number') out.minProperties = Math.max(out.minProperties ?? 0, map.min_pairs)
    if (typeof map.max_pairs === 'number') out.maxProperties = map.max_pairs
    if (map.values) out.additionalProperties = value(field.type, out.additionalProperties, map.values, 'map.values')
    if (map.keys) {
      if (field.mapKey === 'string')
        out.propertyNames = value({ kind: 'scalar', scalar: 'string' }, { type: 'string' }, map.keys, 'map.keys')
      else unsaid('map.keys', 'JSON object keys are strings')
    }
    for (const key of Object.keys(map)) if (!['min_pairs', 'max_pairs', 'keys', 'values'].includes(key)) unsaid(`map.${key}`)
    otherFamilies(rules, ['map'], unsaid)
    return out
  }
  if (field.repeated) {
    const rep = (rules.repeated ?? {}) as Json
    if (typeof rep.min_items === 'number') out.minItems = Math.max(out.minItems ?? 0, rep.min_items)
    if (typeof rep.max_items === 'number') out.maxItems = rep.max_items
    if (rep.unique === true) out.uniqueItems = true
    if (rep.items) out.items = value(field.type, out.items, rep.items, 'repeated.items')
    for (const key of Object.keys(rep)) if (!['min_items', 'max_items', 'unique', 'items'].includes(key)) unsaid(`repeated.${key}`)
    otherFamilies(rules, ['repeated'], unsaid)
    return out
  }
  return value(field.type, schema, rules, '')
}

/** Reports rule families that do not fit the field (e.g. `string` rules on a repeated field). */
function otherFamilies(rules: Json, allowed: string[], unsaid: (rule: string, why?: string) => void): void {
  for (const key of Object.keys(rules)) {
    if (['cel', 'cel_expression', 'required', 'ignore', ...allowed].includes(key)) continue
    unsaid(key, 'it does not apply to this field')
  }
}

type Kind = ScalarType | { enum: string } | { message: string }

function kindOf(type: ValueType): Kind {
  if (type.kind === 'scalar') return type.scalar
  if (type.kind === 'enum') return { enum: type.typeName }
  // protovalidate checks a wrapper with its scalar's rules.
  return WRAPPERS[type.typeName] ?? { message: type.typeName }
}

/** Applies the rule families of one value (`string`, `int64`, `enum`, ...) of `rules` to `schema`. */
function applyValueRules(
  schema: JsonSchema,
  kind: Kind,
  rules: Json,
  path: string,
  ctx: RuleContext,
  unsaid: (rule: string, why?: string) => void,
): JsonSchema {
  let out: Json = { ...schema }
  const at = (key: string): string => (path ? `${path}.${key}` : key)
  for (const [family, familyRules] of Object.entries(rules)) {
    // The field's own CEL rules are reported by applyFieldRules; those of its items and values here.
    if ((family === 'cel' || family === 'cel_expression') && path) unsaid(at(family), 'a CEL expression')
    if (['cel', 'cel_expression', 'required', 'ignore'].includes(family)) continue
    if (typeof familyRules !== 'object' || familyRules === null) continue
    const r = familyRules as Json
    if (family === 'string' && kind === 'string') out = stringRules(out, r, (k) => unsaid(at(`string.${k}`)))
    else if (family === 'bool' && kind === 'bool') {
      if (typeof r.const === 'boolean') out.const = r.const
    } else if (family === 'enum' && typeof kind === 'object' && 'enum' in kind)
      out = enumRules(out, kind.enum, r, ctx, (k) => unsaid(at(`enum.${k}`)))
    else if (NUMERIC.has(family) && family === kind) out = numericRules(out, family, r, (k) => unsaid(at(`${family}.${k}`)))
    else if (typeof kind === 'string' && family === kind) {
      for (const key of Object.keys(r)) if (!SILENT.has(key)) unsaid(at(`${family}.${key}`))
    } else if (typeof kind === 'object' && 'message' in kind) unsaid(at(family), `rules of ${kind.message}`)
    else unsaid(at(family), 'it does not apply to this field')
  }
  return out
}

function stringRules(schema: Json, r: Json, unsaid: (key: string) => void): Json {
  const out = { ...schema }
  const patterns: string[] = []
  for (const [key, value] of Object.entries(r)) {
    if (SILENT.has(key)) continue
    if (key === 'const') out.const = value
    else if (key === 'len') {
      out.minLength = value
      out.maxLength = value
    } else if (key === 'min_len') out.minLength = value
    else if (key === 'max_len') out.maxLength = value
    else if (key === 'in') out.enum = asArray(value)
    else if (key === 'not_in') out.not = { enum: asArray(value) }
    else if (key === 'prefix') patterns.push(`^${escapeRegex(String(value))}`)
    else if (key === 'suffix') patterns.push(`${escapeRegex(String(value))}$`)
    else if (key === 'contains') patterns.push(escapeRegex(String(value)))
    else if (key === 'pattern') {
      // RE2 and ECMAScript (Ajv compiles with the `u` flag) agree on common patterns, not on all (`(?i)`, `\z`).
      try {
        new RegExp(String(value), 'u')
        patterns.push(String(value))
      } catch {
        unsaid('pattern')
      }
    } else if (key in STRING_FORMATS) {
      if (value === true) {
        if (out.format === undefined) out.format = STRING_FORMATS[key]
        else unsaid(key)
      }
    } else unsaid(key)
  }
  // One `pattern` per schema: more than one go in an `allOf`.
  if (patterns.length === 1) out.pattern = patterns[0]
  else if (patterns.length > 1) out.allOf = patterns.map((pattern) => ({ pattern }))
  return out
}

function enumRules(schema: Json, enumName: string, r: Json, ctx: RuleContext, unsaid: (key: string) => void): Json {
  const names = Array.isArray(schema.enum) ? (schema.enum as string[]) : undefined
  if (!names) return schema
  const values = new Map((ctx.model.enums.get(enumName)?.values ?? []).map((v) => [v.name, v.number]))
  let keep = names
  for (const [key, value] of Object.entries(r)) {
    if (SILENT.has(key)) continue
    const numbers = asArray(value).map(Number)
    // Input enum schemas already accept declared names only: `defined_only` holds by construction.
    if (key === 'const') keep = keep.filter((n) => values.get(n) === numbers[0])
    else if (key === 'in') keep = keep.filter((n) => numbers.includes(values.get(n)!))
    else if (key === 'not_in') keep = keep.filter((n) => !numbers.includes(values.get(n)!))
    else unsaid(key)
  }
  return { ...schema, enum: keep }
}

interface Bounds {
  gt?: number
  gte?: number
  lt?: number
  lte?: number
  const?: number
  in?: number[]
  notIn?: number[]
}

/** Whether a number satisfies all of `b` (used for NaN and the infinities of floats). */
function satisfies(x: number, b: Bounds): boolean {
  if (b.const !== undefined && x !== b.const) return false
  if (b.in && !b.in.includes(x)) return false
  if (b.notIn?.includes(x)) return false
  const lower = (b.gt === undefined || x > b.gt) && (b.gte === undefined || x >= b.gte)
  const upper = (b.lt === undefined || x < b.lt) && (b.lte === undefined || x <= b.lte)
  // protovalidate: a lower bound above the upper one means "outside the range".
  return inverted(b) ? lower || upper : lower && upper
}

function inverted(b: Bounds): boolean {
  const low = b.gt ?? b.gte
  const high = b.lt ?? b.lte
  return low !== undefined && high !== undefined && low >= high
}

/** The JSON Schema keywords of numeric bounds, for a number or integer schema. */
function boundKeywords(b: Bounds): Json {
  const low: Json = {}
  const high: Json = {}
  if (b.gt !== undefined) low.exclusiveMinimum = b.gt
  if (b.gte !== undefined) low.minimum = b.gte
  if (b.lt !== undefined) high.exclusiveMaximum = b.lt
  if (b.lte !== undefined) high.maximum = b.lte
  const out: Json = inverted(b) ? { anyOf: [low, high] } : { ...low, ...high }
  if (b.const !== undefined) out.const = b.const
  if (b.in) out.enum = b.in
  if (b.notIn) out.not = { enum: b.notIn }
  return out
}

function numericRules(schema: Json, family: string, r: Json, unsaid: (key: string) => void): Json {
  const b: Bounds = {}
  let finite = false
  for (const [key, value] of Object.entries(r)) {
    if (SILENT.has(key)) continue
    const n = Number(value)
    if (key === 'finite') finite = value === true
    else if (key === 'in' || key === 'not_in') {
      const list = asArray(value).map(Number)
      if (list.every(Number.isFinite)) b[key === 'in' ? 'in' : 'notIn'] = list
      else unsaid(key)
    } else if (['gt', 'gte', 'lt', 'lte', 'const'].includes(key) && Number.isFinite(n)) b[key as 'gt'] = n
    else unsaid(key)
  }
  const keywords = boundKeywords(b)
  const merge = (base: Json): Json => {
    const out = { ...base, ...keywords }
    // uint32's own `minimum: 0` must survive a lower `gte`.
    if (typeof base.minimum === 'number' && typeof keywords.minimum === 'number') out.minimum = Math.max(base.minimum, keywords.minimum)
    return out
  }
  if (!Array.isArray(schema.anyOf)) return merge(schema)
  const [numberBranch, stringBranch] = schema.anyOf as Json[]
  if (family === 'float' || family === 'double') {
    // The non-finite strings stay only where their value passes the rules.
    const allowed = finite ? [] : NON_FINITE_FLOATS.filter((s) => satisfies(Number(s), b))
    const branches = [merge(numberBranch!), ...(allowed.length > 0 ? [{ ...stringBranch, enum: allowed }] : [])]
    const { anyOf: _, ...rest } = schema
    return branches.length === 1 ? { ...rest, ...branches[0] } : { ...rest, anyOf: branches }
  }
  // 64-bit: bounds go on the integer branch (docs/mapping.md, "Extensions"); an exact set of values holds for both spellings.
  const strings = b.in ?? (b.const !== undefined ? [b.const] : undefined)
  const text = strings ? { ...stringBranch, enum: strings.map(String) } : stringBranch
  return { ...schema, anyOf: [merge(numberBranch!), text] }
}
