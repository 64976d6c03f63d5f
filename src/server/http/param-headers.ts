/**
 * Tool parameters mirrored into HTTP headers (SEP-2243, protocol revision
 * 2026-07-28): a property of a tool's `inputSchema` may say
 * `"x-mcp-header": "Region"`, and a client calling the tool over
 * Streamable HTTP then sends the argument's value in `Mcp-Param-Region`
 * too, so gateways can route on it without reading the body. The server
 * checks that the two agree (docs/serving.md, "Tools, errors and visibility").
 */
import type { ServerState } from '../serving/server-state.ts'
import { headerParamsOf, type HeaderParam } from '../tools/header-params.ts'
import { isVisible, scopesOf } from '../tools/tool-set.ts'

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
