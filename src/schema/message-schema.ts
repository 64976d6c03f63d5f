/**
 * The JSON Schema of a message (docs/mapping.md, "Input schema: the shape"): fields as properties under
 * their JSON names, descriptions placed on the outermost schema, messages
 * inlined at every use except those found in a cycle (`$defs` + `$ref`).
 */
import { DEFAULT_PROFILE } from '../contract/defaults.ts'
import type { JsonSchema, Profile, SchemaMode } from './types.ts'
import type { FieldModel, MessageModel, ProtoModel, ValueType } from '../proto/model.ts'
import { descriptionAt, oneofNote } from './descriptions.ts'
import type { DescriptionLevel } from './descriptions.ts'
import { applyFieldRules, isOutputOnly, isRequiredField, VALIDATE_FIELD, VALIDATE_MESSAGE, VALIDATE_ONEOF } from './field-rules.ts'
import { withHeaderParam } from './header-param.ts'
import { isPortable, NOTE, scalarSchema, STUB_MARK, TYPE_MARK } from './scalar-schema.ts'
import { setOwn, sortKeys } from './sort-keys.ts'
import { jsonTextSchema, wellKnownEnumSchema, wellKnownSchema } from './well-known.ts'

/** How many times `portable` and `strict` inline a recursive message inside itself before a JSON-text placeholder. */
export const DEFAULT_RECURSION_DEPTH = 3

/** Options of {@link messageSchema}. */
export interface MessageSchemaOptions {
  /** @default 'portable' */
  profile?: Profile
  /** `input`: what a client may send; `output`: what protojson emits. @default 'input' */
  mode?: SchemaMode
  /**
   * Receives the notes of the verbose report: `buf.validate` rules left out
   * of an input schema (CEL, ...). Called once per field use.
   */
  note?: (text: string) => void
  /**
   * `portable`/`strict` input: how many times a recursive message is
   * inlined inside itself; deeper, the field is JSON text of the message.
   * @default 3
   */
  recursionDepth?: number
  /**
   * Stamps every message's object schema with its full name (`x-type`), for
   * the token budget to cut it (schema/budget.ts); stripped from what is
   * advertised and validated.
   * @default false
   */
  marks?: boolean
  /**
   * How much of each comment: `full`; `first-paragraph` (up to its first
   * blank line: what a tool within a token budget advertises), or less when
   * even that does not fit: `first-sentence`, `none`.
   * @default 'full'
   */
  descriptions?: DescriptionLevel
  /** Called when a `first-paragraph` description left some of its comment out. */
  trimmed?: () => void
  /** Receives every raw comment the schema's descriptions are made from (a level that describes each alike gives the same schema). */
  comments?: Set<string>
  /**
   * Gives up (returns undefined from {@link messageSchemaWithin}) past this
   * many object schemas: each one is a node with `properties`, so the
   * finished schema would count more.
   */
  maxObjects?: number
  /** Keys sorted at every depth. @default true */
  sorted?: boolean
  /**
   * With `marks`: a message this many messages below the root is a stub,
   * its node without fields or properties, marked `STUB_MARK` (its type,
   * description and type mark are the whole node's: all a budget placeholder
   * reads of it). For the budget's fits that read only the top of a big
   * schema (schema/budget.ts, `cutShort`).
   */
  stubsBelow?: number
  /** Called when a message became a stub (`stubsBelow`). */
  stubbed?: () => void
}

/** Thrown inside {@link messageSchemaWithin} when the object count passes `maxObjects`. */
const OVER_OBJECTS = Symbol('over maxObjects')

/** The `$ref` of a message in the root's `$defs`: keyed by full name without the leading dot. */
export function defsRef(fullName: string): string {
  return `#/$defs/${fullName}`
}

/**
 * The schema of message `fullName` as a tool's root: an object schema
 * (never a bare `$ref`, even when the message is recursive) with `$defs`
 * for the messages found in a cycle. Keys sorted.
 */
export function messageSchema(model: ProtoModel, fullName: string, options: MessageSchemaOptions = {}): JsonSchema {
  return buildMessageSchema(model, fullName, options)
}

/** {@link messageSchema}, or undefined once it holds more than `options.maxObjects` object schemas (not built to its end). */
export function messageSchemaWithin(model: ProtoModel, fullName: string, options: MessageSchemaOptions): JsonSchema | undefined {
  try {
    return buildMessageSchema(model, fullName, options)
  } catch (error) {
    if (error === OVER_OBJECTS) return undefined
    throw error
  }
}

/** Thrown inside {@link passesObjects} at a message the model does not have: the build itself says so. */
const UNKNOWN_MESSAGE = Symbol('unknown message')

/**
 * Whether {@link messageSchemaWithin} of a `portable`/`strict` input schema
 * with these options gives up (makes more than `maxObjects` object schemas),
 * worked out without making them: the same walk through the messages (the
 * same inlining, output-only fields and well-known types left out), with no
 * schema, description or rule made. False for a message it cannot walk to
 * its end (an unknown one), whose build throws.
 */
export function passesObjects(
  model: ProtoModel,
  fullName: string,
  options: { profile: Profile; recursionDepth: number; maxObjects: number },
): boolean {
  const { profile, recursionDepth: depth, maxObjects } = options
  if (!isPortable(profile)) return false
  const annotated = profile !== 'topeka'
  const wellKnown = new Map<string, boolean>()
  const building: string[] = []
  let objects = 0
  // As objectSchema and messageUse in buildMessageSchema: true once past the limit.
  const visit = (name: string): boolean => {
    const message = model.messages.get(name)
    if (!message) throw UNKNOWN_MESSAGE
    if (++objects > maxObjects) return true
    building.push(name)
    for (const field of message.fields) {
      if (field.type.kind !== 'message' || (annotated && isOutputOnly(field))) continue
      const type = field.type.typeName
      let known = wellKnown.get(type)
      if (known === undefined) wellKnown.set(type, (known = wellKnownSchema(type, profile, 'input') !== undefined))
      if (known) continue
      let seen = 0
      for (const n of building) if (n === type) seen++
      if (seen < depth && visit(type)) return true
    }
    building.pop()
    return false
  }
  try {
    return visit(fullName)
  } catch (error) {
    if (error === UNKNOWN_MESSAGE) return false
    throw error
  }
}

function buildMessageSchema(model: ProtoModel, fullName: string, options: MessageSchemaOptions): JsonSchema {
  const profile = options.profile ?? DEFAULT_PROFILE
  const mode = options.mode ?? 'input'
  const defs = new Map<string, JsonSchema>()
  const recursive = new Set<string>()
  const building: string[] = []
  // The extensions of docs/mapping.md, "Extensions" that shape what a client may send.
  const annotated = profile !== 'topeka' && mode === 'input'
  const note = options.note ?? (() => {})
  // `portable`/`strict` input schemas: single types, no `$ref`, maps as entries.
  const portable = isPortable(profile) && mode === 'input'
  const strict = profile === 'strict' && mode === 'input'
  const depth = options.recursionDepth ?? DEFAULT_RECURSION_DEPTH
  const comments = options.comments
  const maxObjects = options.maxObjects ?? Infinity
  let objects = 0
  const describe = (raw: string | null): string | undefined => {
    if (raw !== null) comments?.add(raw)
    const whole = descriptionAt(raw, 'full')
    const level = options.descriptions ?? 'full'
    if (level === 'full') return whole
    const part = descriptionAt(raw, level)
    if (part !== whole) options.trimmed?.()
    return part
  }

  const objectSchema = (name: string): JsonSchema => {
    const message = model.messages.get(name)
    if (!message) throw new Error(`unknown message "${name}"`)
    if (++objects > maxObjects) throw OVER_OBJECTS
    const stub = options.stubsBelow !== undefined && building.length >= options.stubsBelow
    const fields = stub ? [] : message.fields
    building.push(name)
    const properties: Record<string, JsonSchema> = {}
    const required: string[] = []
    for (const field of fields) {
      if (annotated && isOutputOnly(field)) continue
      let schema = fieldSchema(field)
      let isRequired = false
      if (annotated) {
        schema = applyFieldRules(schema, field, { model, where: `${name}.${field.name}`, note })
        isRequired = isRequiredField(field)
      }
      if (portable && field.mapKey !== undefined) schema = mapEntries(schema, scalarSchema(field.mapKey, profile, mode))
      // OpenAI strict mode: every property required, the optional ones nullable.
      if (strict && !isRequired) schema = nullable(schema)
      // A header is one value of the request itself: read on the request message's own fields.
      if (annotated && building.length === 1) schema = withHeaderParam(schema, field, `${name}.${field.name}`)
      if (isRequired || strict) required.push(field.jsonName)
      setOwn(properties, field.jsonName, schema)
    }
    building.pop()
    if (annotated) noteMessageRules(message, note)
    const schema: JsonSchema = stub
      ? { type: 'object', additionalProperties: false }
      : { type: 'object', properties, additionalProperties: false }
    if (stub) {
      schema[STUB_MARK] = true
      options.stubbed?.()
    }
    if (required.length > 0) schema.required = required
    // Ajv skips a `__proto__` key of `properties` (and would reject the field
    // as additional); a pattern property validates it the same way.
    if (Object.hasOwn(properties, '__proto__')) schema.patternProperties = { '^__proto__$': properties.__proto__ }
    const description = describe(message.comment)
    if (description !== undefined) schema.description = description
    if (options.marks) schema[TYPE_MARK] = name
    return schema
  }

  /** A use of a message: its inline schema (with its own description), or a `$ref` once it is known recursive. */
  const messageUse = (name: string): JsonSchema => {
    const known = wellKnownSchema(name, profile, mode)
    if (known) return known
    if (portable) {
      // Inlined again while it recurses fewer than `depth` times, then JSON text.
      const seen = building.filter((n) => n === name).length
      if (seen < depth) return objectSchema(name)
      // Marked, it is one of the budget's placeholders (which names the type tool); the validator reads JSON text either way.
      return options.marks ? { type: 'string', [TYPE_MARK]: name } : jsonTextSchema(name)
    }
    if (recursive.has(name)) return { $ref: defsRef(name) }
    if (building.includes(name)) {
      recursive.add(name)
      return { $ref: defsRef(name) }
    }
    const schema = objectSchema(name)
    if (!recursive.has(name)) return schema
    defs.set(name, schema)
    return { $ref: defsRef(name) }
  }

  const valueSchema = (type: ValueType): JsonSchema => {
    if (type.kind === 'scalar') return scalarSchema(type.scalar, profile, mode)
    if (type.kind === 'message') return messageUse(type.typeName)
    return enumSchema(type.typeName)
  }

  const enumSchema = (name: string): JsonSchema => {
    const enm = model.enums.get(name)
    if (!enm) throw new Error(`unknown enum "${name}"`)
    const known = wellKnownEnumSchema(name, profile, mode)
    if (known) return known
    const names: JsonSchema = { type: 'string', enum: enm.values.map((v) => v.name) }
    // protojson writes a value the enum does not declare as its number.
    const schema: JsonSchema = mode === 'output' ? { anyOf: [names, { type: 'integer' }] } : names
    const description = describe(enm.comment)
    if (description !== undefined) schema.description = description
    return schema
  }

  const fieldSchema = (field: FieldModel): JsonSchema => {
    const value = valueSchema(field.type)
    let schema: JsonSchema =
      field.mapKey !== undefined
        ? { type: 'object', additionalProperties: value }
        : field.repeated
          ? { type: 'array', items: value }
          : value
    // The field's comment goes on its outermost schema, replacing a message's or enum's own.
    const description = describe(field.comment)
    if (description !== undefined) schema = { ...schema, description }
    if (field.oneof !== undefined) {
      const note = oneofNote(field.oneof)
      const before = schema.description
      schema = { ...schema, description: typeof before === 'string' ? `${before} ${note}` : note }
    }
    return schema
  }

  const root = (mode === 'output' ? wellKnownSchema(fullName, profile, mode) : undefined) ?? objectSchema(fullName)
  if (recursive.has(fullName)) defs.set(fullName, root)
  const result: JsonSchema = { ...root }
  if (defs.size > 0) result.$defs = Object.fromEntries(defs)
  return options.sorted === false ? result : sortKeys(result)
}

/**
 * A map's schema (`{"type":"object","additionalProperties":V}` with its
 * rules) as `portable` writes it: an array of `{key, value}` entries, so the
 * value's type is still said without `additionalProperties`.
 */
function mapEntries(map: JsonSchema, key: JsonSchema): JsonSchema {
  const { type: _, additionalProperties: value, propertyNames, minProperties, maxProperties, ...rest } = map
  const keySchema = propertyNames === undefined ? key : { ...key, ...(propertyNames as JsonSchema) }
  const entries: JsonSchema = {
    ...rest,
    type: 'array',
    items: { type: 'object', properties: { key: keySchema, value }, required: ['key', 'value'], additionalProperties: false },
    [NOTE]: '{key, value} entries',
  }
  if (minProperties !== undefined) entries.minItems = minProperties
  if (maxProperties !== undefined) entries.maxItems = maxProperties
  return entries
}

/** `schema` also accepting `null` (OpenAI strict mode's spelling of an optional property). */
function nullable(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] }
  const out: JsonSchema = { ...schema }
  if (typeof out.type === 'string') out.type = [out.type, 'null']
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null']
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null]
  return out
}

/** Reports the message- and oneof-level `buf.validate` rules, none of which an input schema carries. */
function noteMessageRules(message: MessageModel, note: (text: string) => void): void {
  const rules = (message.customOptions?.[VALIDATE_MESSAGE] ?? {}) as Record<string, unknown>
  for (const key of Object.keys(rules)) {
    note(`${message.fullName}: (buf.validate.message).${key} is left out of the input schema (JSON Schema cannot say it)`)
  }
  for (const oneof of message.oneofs) {
    const oneofRules = (oneof.customOptions?.[VALIDATE_ONEOF] ?? {}) as Record<string, unknown>
    for (const key of Object.keys(oneofRules)) {
      note(`${message.fullName}.${oneof.name}: (buf.validate.oneof).${key} is left out of the input schema (JSON Schema cannot say it)`)
    }
  }
}

/**
 * Whether a schema of `fullName` could report a note: some message it
 * reaches has `buf.validate` rules (on itself, a oneof or a field). When
 * none does, a build may stop early without losing one.
 */
export function mayNote(model: ProtoModel, fullName: string): boolean {
  const seen = new Set<string>()
  const queue = [fullName]
  while (queue.length > 0) {
    const name = queue.pop()!
    const message = model.messages.get(name)
    if (seen.has(name) || message === undefined) continue
    seen.add(name)
    if (message.customOptions?.[VALIDATE_MESSAGE] !== undefined) return true
    if (message.oneofs.some((o) => o.customOptions?.[VALIDATE_ONEOF] !== undefined)) return true
    for (const field of message.fields) {
      if (field.customOptions[VALIDATE_FIELD] !== undefined) return true
      if (field.type.kind === 'message') queue.push(field.type.typeName)
    }
  }
  return false
}
