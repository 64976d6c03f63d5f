/**
 * The tool parameters an input schema mirrors into HTTP headers (SEP-2243,
 * `"x-mcp-header": "Region"` on a property): read from the schema and
 * checked against SEP-2243's rules, for hand-written tools as they are
 * added and for every listed tool as a call is checked
 * (http/param-headers.ts compares them with a request's headers).
 */
import { HEADER_NAME_RE, HEADER_PARAM_TYPES, X_MCP_HEADER } from '../../contract/index.ts'
import { isRecord } from '../../contract/is-record.ts'

/** One mirrored parameter: where its value is in the arguments, its header name and its JSON type. */
export interface HeaderParam {
  path: readonly string[]
  header: string
  type: string
}

/** Keywords whose subschemas are not reached by a chain of `properties` (a header there has no single value). */
const UNREACHABLE = [
  'items',
  'prefixItems',
  'contains',
  'additionalProperties',
  'unevaluatedProperties',
  'unevaluatedItems',
  'propertyNames',
  'patternProperties',
  'dependentSchemas',
  'oneOf',
  'anyOf',
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$defs',
  'definitions',
] as const

/** Keywords above whose value maps names to subschemas. */
const MAPS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions'])

const where = (path: readonly string[]): string => (path.length === 0 ? 'the schema root' : `"${path.join('.')}"`)

/**
 * The mirrored parameters of an input schema, in schema order. Throws an
 * `Error` saying what is wrong when a declaration breaks SEP-2243's rules:
 * on a property reached through `properties` only, of type string, integer
 * or boolean, a token as its name, names unique ignoring case.
 */
export function scanHeaderParams(schema: unknown): HeaderParam[] {
  const found: HeaderParam[] = []
  const names = new Map<string, string>()
  const visit = (node: unknown, path: string[], reachable: boolean): void => {
    if (!isRecord(node)) return
    const s = node as Record<string, unknown>
    if (X_MCP_HEADER in s) {
      const header = s[X_MCP_HEADER]
      if (!reachable || path.length === 0) {
        throw new Error(
          `${X_MCP_HEADER} at ${where(path)}: only a property reached through "properties" alone may be mirrored into a header`,
        )
      }
      if (typeof header !== 'string' || !HEADER_NAME_RE.test(header)) {
        throw new Error(`${X_MCP_HEADER} at ${where(path)}: ${JSON.stringify(header)} is not a header name (an RFC 9110 token)`)
      }
      if (typeof s.type !== 'string' || !HEADER_PARAM_TYPES.includes(s.type)) {
        throw new Error(
          `${X_MCP_HEADER} at ${where(path)}: only a string, integer or boolean property may be mirrored, this one is ${JSON.stringify(s.type ?? 'untyped')}`,
        )
      }
      const before = names.get(header.toLowerCase())
      if (before !== undefined)
        throw new Error(`${X_MCP_HEADER} "${header}" at ${where(path)}: the name is already used at ${before} (names ignore case)`)
      names.set(header.toLowerCase(), where(path))
      found.push({ path, header, type: s.type })
    }
    const properties = s.properties
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key], reachable)
    }
    for (const keyword of UNREACHABLE) {
      const sub = s[keyword]
      if (sub === undefined) continue
      const branches = Array.isArray(sub) ? sub : MAPS.has(keyword) && isRecord(sub) ? Object.values(sub) : [sub]
      for (const branch of branches) visit(branch, [...path, `<${keyword}>`], false)
    }
  }
  visit(schema, [], true)
  return found
}

const scanned = new WeakMap<object, readonly HeaderParam[]>()

/** The mirrored parameters of a listed tool's schema, scanned once per schema object. */
export function headerParamsOf(schema: object): readonly HeaderParam[] {
  let params = scanned.get(schema)
  if (params === undefined) scanned.set(schema, (params = scanHeaderParams(schema)))
  return params
}
