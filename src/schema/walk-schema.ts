import { isRecord } from '../contract/is-record.ts'
/**
 * Walking a JSON Schema document the way the client rules look at it: every
 * subschema with its JSON Pointer and position, local `$ref` resolution, and
 * the size figures the providers' limits are stated in.
 */

/** A schema node as plain JSON. */
export type SchemaNode = Record<string, unknown>

/** Where a keyword keeps its subschemas: a map of them, one, a list, or one or a list. */
type Holder = 'map' | 'one' | 'list' | 'one-or-list'

/** Keywords holding subschemas, in the order they are visited. */
const SUBSCHEMA_KEYWORDS: ReadonlyArray<readonly [string, Holder]> = [
  ['properties', 'map'],
  ['patternProperties', 'map'],
  ['$defs', 'map'],
  ['definitions', 'map'],
  ['dependentSchemas', 'map'],
  ['items', 'one-or-list'],
  ['prefixItems', 'list'],
  ['additionalItems', 'one'],
  ['unevaluatedItems', 'one'],
  ['contains', 'one'],
  ['additionalProperties', 'one'],
  ['unevaluatedProperties', 'one'],
  ['propertyNames', 'one'],
  ['not', 'one'],
  ['if', 'one'],
  ['then', 'one'],
  ['else', 'one'],
  ['contentSchema', 'one'],
  ['anyOf', 'list'],
  ['oneOf', 'list'],
  ['allOf', 'list'],
]

/** The composition keywords. */
export const COMBINATORS = ['anyOf', 'oneOf', 'allOf'] as const

/** Whether `value` is a JSON object (not null, not an array). */
export function isSchemaNode(value: unknown): value is SchemaNode {
  return isRecord(value)
}

/** The node's `type` as a list (empty when it has none). */
export function typesOf(node: SchemaNode): unknown[] {
  const type = node.type
  return Array.isArray(type) ? type : type === undefined ? [] : [type]
}

/** Whether the node describes an object: `type` says so, or it has `properties` and no `type`. */
export function isObjectNode(node: SchemaNode): boolean {
  return typesOf(node).includes('object') || (node.type === undefined && isSchemaNode(node.properties))
}

/** Whether the node's `type` includes `array`. */
export function isArrayNode(node: SchemaNode): boolean {
  return typesOf(node).includes('array')
}

/** Whether the node uses any of `anyOf`, `oneOf`, `allOf`. */
export function hasCombinator(node: SchemaNode): boolean {
  return COMBINATORS.some((k) => k in node)
}

/** One visited node and where it sits. */
export interface NodeVisit {
  node: SchemaNode
  /** JSON Pointer of the node, from the walk's base. */
  ptr: string
  /** The walk's starting node. */
  isRoot: boolean
  /** The keyword the node hangs under (`properties`, `items`, `anyOf`, ...); null at the root. */
  via: string | null
  /** The property name, for a node under `properties`. */
  prop?: string
  /** The definition name, for a node under `$defs`/`definitions`. */
  defName?: string
  /** Object and array nesting, the root object being 1; a definition starts again at 0 (`$ref` is not followed). */
  depth: number
}

/** Escapes a JSON Pointer token (RFC 6901). */
function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1')
}

/** Calls `visit` for every schema node of `root`, parents before children; `base` prefixes every pointer. */
export function walkSchema(root: unknown, base: string, visit: (at: NodeVisit) => void): void {
  const step = (node: unknown, at: Omit<NodeVisit, 'node'>): void => {
    if (!isSchemaNode(node)) return
    const depth = at.depth + (isObjectNode(node) || isArrayNode(node) ? 1 : 0)
    visit({ ...at, node, depth })
    for (const [keyword, holder] of SUBSCHEMA_KEYWORDS) {
      const value = node[keyword]
      if (value === undefined) continue
      const ptr = `${at.ptr}/${keyword}`
      if (holder === 'map' && isSchemaNode(value)) {
        const inDefs = keyword === '$defs' || keyword === 'definitions'
        for (const [key, child] of Object.entries(value)) {
          const where: Omit<NodeVisit, 'node'> = {
            ptr: `${ptr}/${escapeToken(key)}`,
            isRoot: false,
            via: keyword,
            depth: inDefs ? 0 : depth,
          }
          if (keyword === 'properties') where.prop = key
          if (inDefs) where.defName = key
          step(child, where)
        }
      } else if ((holder === 'list' || holder === 'one-or-list') && Array.isArray(value)) {
        value.forEach((child, i) => step(child, { ptr: `${ptr}/${i}`, isRoot: false, via: keyword, depth }))
      } else if (holder === 'one' || holder === 'one-or-list') {
        step(value, { ptr, isRoot: false, via: keyword, depth })
      }
    }
  }
  step(root, { ptr: base, isRoot: true, via: null, depth: 0 })
}

/** The target of a local reference (`#`, `#/$defs/A`), or undefined when it is not local or does not resolve. */
export function resolveLocalRef(root: unknown, ref: unknown): unknown {
  if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined
  if (ref === '#') return root
  if (!ref.startsWith('#/')) return undefined
  let at: unknown = root
  for (const raw of ref.slice(2).split('/')) {
    let token: string
    try {
      token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~')
    } catch {
      return undefined
    }
    if (at === null || typeof at !== 'object') return undefined
    at = (at as Record<string, unknown>)[token]
    if (at === undefined) return undefined
  }
  return at
}

/** Size figures of a schema, as the providers state their limits. */
export interface SchemaStats {
  /** Properties of every object, summed. */
  properties: number
  /** The deepest object/array nesting (without following `$ref`). */
  maxDepth: number
  /** Values of every `enum`, plus one per `const`. */
  enumValues: number
  /** Characters of property and definition names and of string enum/const values. */
  chars: number
  /** Enums of more than 250 strings totalling more than 15000 characters. */
  bigEnums: Array<{ count: number; chars: number }>
  /** Properties not listed in their object's `required`. */
  optional: number
  /** Properties whose schema is a union (a composition or a type list of two or more). */
  unions: number
}

/** Counts what the providers' size limits count. */
export function schemaStats(schema: unknown): SchemaStats {
  const stats: SchemaStats = { properties: 0, maxDepth: 0, enumValues: 0, chars: 0, bigEnums: [], optional: 0, unions: 0 }
  walkSchema(schema, '', ({ node, depth, defName }) => {
    stats.maxDepth = Math.max(stats.maxDepth, depth)
    if (defName !== undefined) stats.chars += defName.length
    if (isSchemaNode(node.properties)) {
      const required = new Set(Array.isArray(node.required) ? node.required : [])
      for (const [key, property] of Object.entries(node.properties)) {
        stats.properties++
        stats.chars += key.length
        if (!required.has(key)) stats.optional++
        if (isSchemaNode(property) && (hasCombinator(property) || (Array.isArray(property.type) && property.type.length > 1)))
          stats.unions++
      }
    }
    if (Array.isArray(node.enum)) {
      stats.enumValues += node.enum.length
      const strings = node.enum.filter((v): v is string => typeof v === 'string')
      const length = strings.reduce((sum, v) => sum + v.length, 0)
      stats.chars += length
      if (strings.length > 250 && length > 15000) stats.bigEnums.push({ count: strings.length, chars: length })
    }
    if ('const' in node) {
      stats.enumValues++
      if (typeof node.const === 'string') stats.chars += node.const.length
    }
  })
  return stats
}

/**
 * Whether following local `$ref`s from the root comes back to a definition
 * already on the path. With `requiredOnly`, only references a valid instance
 * cannot avoid count: through required properties and `allOf`, not through
 * optional properties, items, unions or maps.
 */
export function hasRefCycle(schema: unknown, { requiredOnly = false } = {}): boolean {
  if (!isSchemaNode(schema)) return false
  // The local refs reachable from a node without passing through another ref.
  const refsUnder = (start: SchemaNode): string[] => {
    const refs: string[] = []
    const step = (node: unknown, avoidable: boolean): void => {
      if (!isSchemaNode(node)) return
      if (typeof node.$ref === 'string') {
        if (!(requiredOnly && avoidable)) refs.push(node.$ref)
        return
      }
      const required = new Set(Array.isArray(node.required) ? node.required : [])
      for (const [keyword, holder] of SUBSCHEMA_KEYWORDS) {
        if (keyword === '$defs' || keyword === 'definitions') continue
        const value = node[keyword]
        if (value === undefined) continue
        if (holder === 'map' && isSchemaNode(value)) {
          for (const [key, child] of Object.entries(value)) step(child, avoidable || keyword !== 'properties' || !required.has(key))
        } else if (Array.isArray(value)) {
          for (const child of value) step(child, avoidable || keyword !== 'allOf')
        } else {
          step(value, true)
        }
      }
    }
    step(start, false)
    return refs
  }
  const state = new Map<string, 'open' | 'done'>()
  const revisits = (ref: string): boolean => {
    const seen = state.get(ref)
    if (seen !== undefined) return seen === 'open'
    state.set(ref, 'open')
    const target = resolveLocalRef(schema, ref)
    const found = isSchemaNode(target) && refsUnder(target).some(revisits)
    state.set(ref, 'done')
    return found
  }
  return refsUnder(schema).some(revisits)
}
