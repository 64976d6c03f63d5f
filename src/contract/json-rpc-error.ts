/**
 * The body of an HTTP answer that is a JSON-RPC error with no request id
 * (a refused or failed request, docs/serving.md, "Transports"): the HTTP transports and
 * the Vite dev-server mount all answer with it.
 */

/** A JSON-RPC error response with `id: null`. */
export interface JsonRpcErrorBody {
  jsonrpc: '2.0'
  error: { code: number; message: string }
  id: null
}

/** The JSON-RPC error response `{ jsonrpc, error: { code, message }, id: null }`. */
export function jsonRpcErrorBody(code: number, message: string): JsonRpcErrorBody {
  return { jsonrpc: '2.0', error: { code, message }, id: null }
}
