/**
 * Tool parameters mirrored into HTTP headers (SEP-2243, protocol revision
 * 2026-07-28): the schema keyword both the schema stage (which writes it
 * for a `(proto_mcp.field).header` option) and the server (which checks a
 * call's headers against it) read.
 */

/** The schema keyword naming the header a property is mirrored into (`Mcp-Param-<name>`). */
export const X_MCP_HEADER = 'x-mcp-header'

/** The JSON types a mirrored property may have: one header value each. */
export const HEADER_PARAM_TYPES: readonly string[] = ['string', 'integer', 'boolean']

/** An RFC 9110 token: what a header name may be made of. */
export const HEADER_NAME_RE = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
