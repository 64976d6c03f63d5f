/**
 * Tool parameters mirrored into HTTP headers (SEP-2243, protocol revision
 * 2026-07-28): a property of a tool's `inputSchema` may say
 * `"x-mcp-header": "Region"`, and a client calling the tool over
 * Streamable HTTP then sends the argument's value in `Mcp-Param-Region`
 * too, so gateways can route on it without reading the body. The server
 * checks that the two agree (docs/serving.md, "Tools, errors and visibility").
 */
import { HEADER_NAME_RE, HEADER_PARAM_TYPES, X_MCP_HEADER } from '../../contract/index.ts'
import type { ServerState } from '../serving/server-state.ts'
import { isVisible, scopesOf } from '../tools/tool-set.ts'

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
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return
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
      const branches = Array.isArray(sub) ? sub : MAPS.has(keyword) && sub !== null && typeof sub === 'object' ? Object.values(sub) : [sub]
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

/** `=?base64?…?=`: a header value that is the Base64 of its UTF-8 text. */
const SENTINEL = /^=\?base64\?(.*)\?=$/s
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** The text a header value stands for, or `undefined` for a sentinel that is not canonical Base64 of UTF-8. */
function headerText(value: string): string | undefined {
  const sentinel = SENTINEL.exec(value)
  if (sentinel === null) return value
  const base64 = sentinel[1]!
  if (!CANONICAL_BASE64.test(base64)) return undefined
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)))
  } catch {
    return undefined
  }
}

/** An argument's value as a header carries it; `undefined` for one no header can carry. */
function argumentText(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (typeof value === 'boolean') return String(value)
  if (typeof value === 'number' && Number.isFinite(value) && (!Number.isInteger(value) || Number.isSafeInteger(value))) return String(value)
  return undefined
}

/** What disagrees between a call's headers and its arguments: the header and what the body says. */
export interface HeaderMismatch {
  header: string
  body: string
}

/**
 * Checks each mirrored parameter of a call: an argument given (not `null`)
 * needs its `Mcp-Param-<Name>` header, whose value (Base64 sentinel
 * decoded) must equal it; numbers compare as numbers. An argument left out
 * needs no header (one sent anyway is ignored). `undefined` when all agree.
 */
export function checkParamHeaders(params: readonly HeaderParam[], args: unknown, headers: Headers): HeaderMismatch | undefined {
  for (const param of params) {
    let value: unknown = args
    for (const key of param.path) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined
    const expected = argumentText(value)
    if (value === undefined || value === null || expected === undefined) continue
    const header = `Mcp-Param-${param.header}`
    const raw = headers.get(header)
    const argument = `arguments.${param.path.join('.')} is ${JSON.stringify(value)}`
    if (raw === null) return { header, body: `${argument} but the ${header} header is missing` }
    const text = headerText(raw)
    if (text === undefined) return { header, body: `the ${header} header is not valid Base64 of UTF-8 text inside =?base64?…?=` }
    const same = typeof value === 'number' && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) === value : text === expected
    if (!same) return { header, body: `${argument} but the ${header} header says ${JSON.stringify(text)}` }
  }
  return undefined
}

/**
 * The `400` answer (JSON-RPC `-32020`, HeaderMismatch) to a 2026-07-28
 * `tools/call` whose `Mcp-Param-*` headers disagree with its arguments, or
 * `undefined` to serve it. A tool unknown or hidden to the caller is left
 * to the call, which answers it as unknown.
 */
export function paramHeaderRejection(state: ServerState, message: unknown, headers: Headers, authInfo: unknown): Response | undefined {
  if (message === null || typeof message !== 'object' || (message as { method?: unknown }).method !== 'tools/call') return undefined
  const { id, params } = message as { id?: unknown; params?: { name?: unknown; arguments?: unknown } }
  if (typeof params?.name !== 'string') return undefined
  const entry = state.tools.byName.get(params.name)
  if (entry === undefined || (state.tools.gated && !isVisible(entry, scopesOf(authInfo), state.features))) return undefined
  const declared = headerParamsOf(entry.listed.inputSchema)
  const mismatch = declared.length === 0 ? undefined : checkParamHeaders(declared, params.arguments, headers)
  if (mismatch === undefined) return undefined
  const error = { code: -32020, message: `Bad Request: the request headers and body disagree: ${mismatch.body}`, data: { mismatch } }
  return Response.json({ jsonrpc: '2.0', id: typeof id === 'string' || typeof id === 'number' ? id : null, error }, { status: 400 })
}
