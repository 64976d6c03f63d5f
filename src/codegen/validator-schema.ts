/**
 * What the validators are compiled from (docs/calls.md, "Validation"): the exact
 * schemas with everything that only documents dropped, two shapes made
 * keywords whose errors say what the renderer needs without Ajv's
 * `verbose` output, and the message schemas several places share moved
 * into schemas of their own, so each is compiled once per module.
 */
import { ADVERTISED_BRANCH } from '../schema/scalar-schema.ts'
import { NOT_IN_KEYWORD, PROTO_FLOAT_KEYWORD } from '../contract/index.ts'
import type { JsonSchema } from '../contract/index.ts'
import { isRecord } from '../contract/is-record.ts'

export { NOT_IN_KEYWORD, PROTO_FLOAT_KEYWORD }

/** Annotations: they change no validation result, so the validator does not carry them. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  '$comment',
  'deprecated',
  'readOnly',
  'writeOnly',
  'default',
  'contentEncoding',
  'contentMediaType',
])
/** Keys whose value is a map of names to subschemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'])
/** Keys whose value is one subschema. */
const SCHEMA_ONE = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
])
/** Keys whose value is a list of subschemas. */
const SCHEMA_LISTS = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems'])
/** Subschemas only some values are checked against: a shared schema inside them would change what `schemaPath` says of their errors. */
const BRANCHES = new Set(['anyOf', 'oneOf', 'allOf', 'not', 'if', 'then', 'else'])

const isSchemaObject = (value: unknown): value is JsonSchema => isRecord(value)

const isScalar = (value: unknown): boolean => value === null || ['string', 'number', 'boolean'].includes(typeof value)

/**
 * `{anyOf: [{type: 'number', ...}, {type: 'string', enum}, {type: 'null'}?], x-advertised-branch: 0}`
 * (`strict` adds the `null` branch) as `{x-proto-float: [...enum, null?], ...}`.
 */
function protoFloat(node: JsonSchema): JsonSchema | undefined {
  if (node[ADVERTISED_BRANCH] !== 0 || !Array.isArray(node.anyOf) || node.anyOf.length < 2 || node.anyOf.length > 3) return undefined
  const [number, strings, nullable] = node.anyOf as unknown[]
  if (!isSchemaObject(number) || number.type !== 'number' || !isSchemaObject(strings)) return undefined
  if (strings.type !== 'string' || !Array.isArray(strings.enum) || Object.keys(strings).length !== 2) return undefined
  if (nullable !== undefined && !(isSchemaObject(nullable) && nullable.type === 'null' && Object.keys(nullable).length === 1))
    return undefined
  const { type: _type, ...bounds } = number
  const { anyOf: _anyOf, [ADVERTISED_BRANCH]: _mark, ...rest } = node
  return { ...rest, ...bounds, [PROTO_FLOAT_KEYWORD]: nullable === undefined ? strings.enum : [...strings.enum, null] }
}

/** The validator's form of one schema node (and its subschemas). */
export function validatorSchema(node: unknown): unknown {
  if (!isSchemaObject(node)) return node
  const float = protoFloat(node)
  const source = float ?? node
  const out: JsonSchema = {}
  for (const [key, value] of Object.entries(source)) {
    if (ANNOTATIONS.has(key) || key === ADVERTISED_BRANCH) continue
    if (
      key === 'not' &&
      isSchemaObject(value) &&
      Object.keys(value).length === 1 &&
      Array.isArray(value.enum) &&
      value.enum.every(isScalar)
    ) {
      out[NOT_IN_KEYWORD] = value.enum
    } else if (SCHEMA_MAPS.has(key) && isSchemaObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, validatorSchema(sub)]))
    } else if (SCHEMA_ONE.has(key)) {
      out[key] = validatorSchema(value)
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map(validatorSchema)
    } else {
      out[key] = value
    }
  }
  return out
}

/** Shared schemas are worth a function of their own from this size (as JSON) up. */
const SHARED_MIN_CHARS = 60

/** Whether `node` may move into a schema of its own: an object schema with no reference into its tool's schema. */
function movable(node: JsonSchema, text: string): boolean {
  return (
    text.length >= SHARED_MIN_CHARS &&
    (node.type === 'object' || isSchemaObject(node.properties)) &&
    !/"\$(?:ref|defs|dynamicRef|dynamicAnchor|anchor|id)"/.test(text)
  )
}

/** The children of `node` that are subschemas checked for every value (not branches): where shared schemas may be found. */
function* sharedCandidates(node: JsonSchema): Generator<[key: string, name: string | undefined, sub: JsonSchema]> {
  for (const [key, value] of Object.entries(node)) {
    if (BRANCHES.has(key)) continue
    if (SCHEMA_MAPS.has(key) && isSchemaObject(value)) {
      for (const [name, sub] of Object.entries(value)) if (isSchemaObject(sub)) yield [key, name, sub]
    } else if (SCHEMA_ONE.has(key) && isSchemaObject(value)) {
      yield [key, undefined, value]
    }
  }
}

/** The result of {@link shareSchemas}. */
export interface SharedSchemas {
  /** The roots, with every shared subschema as a `$ref` to its id. */
  roots: JsonSchema[]
  /** The shared schemas in the order they were made (each before the ones that use it), with their `$id`. */
  shared: JsonSchema[]
}

/**
 * Moves every object subschema that occurs at least twice among `roots`
 * (outside `anyOf`/`oneOf`/`not`/... branches, with no `$ref`) into a
 * schema of its own with the `$id` `shared:N`, referenced from each place.
 * Deterministic: ids are numbered in the order of a depth-first walk.
 */
export function shareSchemas(roots: readonly JsonSchema[]): SharedSchemas {
  const counts = new Map<string, number>()
  const count = (node: JsonSchema): void => {
    for (const [, , sub] of sharedCandidates(node)) {
      const text = JSON.stringify(sub)
      if (movable(sub, text)) counts.set(text, (counts.get(text) ?? 0) + 1)
      count(sub)
    }
  }
  for (const root of roots) count(root)
  const ids = new Map<string, string>()
  const shared: JsonSchema[] = []
  const rewrite = (node: JsonSchema): JsonSchema => {
    const out: JsonSchema = { ...node }
    // Each map of subschemas (`properties`, ...) copied once, not once per entry (quadratic in a wide message).
    const copied = new Set<string>()
    for (const [key, name, sub] of sharedCandidates(node)) {
      const text = JSON.stringify(sub)
      let replaced: JsonSchema
      if ((counts.get(text) ?? 0) > 1) {
        let id = ids.get(text)
        if (id === undefined) {
          const body = rewrite(sub)
          id = `shared:${shared.length}`
          ids.set(text, id)
          shared.push({ $id: id, ...body })
        }
        replaced = { $ref: id }
      } else {
        replaced = rewrite(sub)
      }
      if (name === undefined) out[key] = replaced
      else {
        if (!copied.has(key)) {
          copied.add(key)
          out[key] = { ...(out[key] as JsonSchema) }
        }
        // Defined, not assigned: a field named `__proto__` stays a property.
        Object.defineProperty(out[key], name, { value: replaced, enumerable: true, writable: true, configurable: true })
      }
    }
    return out
  }
  return { roots: roots.map(rewrite), shared }
}
