/**
 * JSON spliced into JavaScript as an object literal is not quite JSON: a
 * `"__proto__": value` entry sets the object's prototype instead of a
 * property (a field with `json_name = "__proto__"` would vanish from the
 * schema at run time). A computed key `["__proto__"]` makes an own property.
 */

// In JSON text a `"` inside a string is always escaped, so `{"__proto__":` or
// `,"__proto__":` (any whitespace between) can only be a key.
const PROTO_KEY_RE = /([{,]\s*)"__proto__"(\s*):/g

/** Rewrites every `"__proto__":` key of JSON text (or of code embedding JSON literals) to `["__proto__"]:`. */
export function protectProtoKeys(code: string): string {
  return code.replace(PROTO_KEY_RE, '$1["__proto__"]$2:')
}
