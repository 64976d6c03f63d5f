/**
 * Custom options (`[(buf.validate.field).string.min_len = 3]`,
 * `option (proto_mcp.tool) = { ... }`) as structured JSON: protobufjs keeps
 * them as a list of partial statements, this merges them the way protoc does.
 */
import protobuf from 'protobufjs'
import { isRecord } from '../contract/is-record.ts'

type Json = Record<string, unknown>

const CUSTOM_OPTION_RE = /^\(\.?([^()]+)\)$/

/**
 * The custom options of a declaration, keyed by the extension's full name
 * without the leading dot (`buf.validate.field`). With the extension's
 * declaration loaded, its type drives the merge: repeated fields collect
 * every value (`in: 1, in: 2` → `[1, 2]`), message fields merge the
 * statements that set them, a singular scalar set twice keeps the last, enum
 * numbers become names. Without it, values merge by shape as a fallback.
 * Integers beyond ±2^53 are as protobufjs parsed them (rounded doubles).
 */
export function customOptions(obj: protobuf.ReflectionObject): Json {
  const out: Json = {}
  const parsed = (obj as { parsedOptions?: Json[] | null }).parsedOptions ?? []
  for (const statement of parsed) {
    for (const [key, value] of Object.entries(statement)) {
      const name = CUSTOM_OPTION_RE.exec(key)?.[1]
      if (name === undefined) continue
      const extension = lookupExtension(obj, name)
      mergeField(out, extension ? extension.fullName.slice(1) : name, value, extension)
    }
  }
  return out
}

/** The extension field `name` as seen from `obj`'s scope, or undefined when it is not loaded. */
function lookupExtension(obj: protobuf.ReflectionObject, name: string): protobuf.Field | undefined {
  const scope = obj.parent ?? obj.root
  try {
    const found = scope?.lookup(name)
    return found instanceof protobuf.Field ? found : undefined
  } catch {
    return undefined
  }
}

function isObject(value: unknown): value is Json {
  return isRecord(value)
}

/** Merges the statements in `parts` into one message value, typed by `type` when known. */
function mergeMessage(parts: readonly unknown[], type: protobuf.Type | undefined): Json {
  const out: Json = {}
  for (const part of parts) {
    if (!isObject(part)) continue
    for (const [key, value] of Object.entries(part)) mergeField(out, key, value, type?.fields[key])
  }
  return out
}

function mergeField(out: Json, key: string, value: unknown, field: protobuf.Field | undefined): void {
  const type = field?.resolvedType
  const message = type instanceof protobuf.Type ? type : undefined
  const values = Array.isArray(value) ? [...value, ...strayProperties(value)] : [value]
  const convert = (v: unknown): unknown => {
    if (message) return mergeMessage([v], message)
    // Options written with a number for an enum value read as the name (`= 2` → `REQUIRED`).
    if (type instanceof protobuf.Enum && typeof v === 'number') return type.valuesById[v] ?? v
    return v
  }
  const before = out[key]
  if (field?.repeated || (!field && Array.isArray(value) && !value.every(isObject))) {
    out[key] = [...(Array.isArray(before) ? before : before === undefined ? [] : [before]), ...values.map(convert)]
  } else if (message || (!field && values.every(isObject))) {
    out[key] = mergeMessage([...(before === undefined ? [] : [before]), ...values], message)
  } else {
    out[key] = convert(values[values.length - 1])
  }
}

/**
 * protobufjs sets a sub-option written after two statements merged into an
 * array (`.string.min_len = 1, .string = {...}, .string.in = "z"`) as a
 * property of that array: returned as one more statement.
 */
function strayProperties(array: unknown[]): Json[] {
  const stray = Object.keys(array).filter((key) => !/^\d+$/.test(key))
  return stray.length === 0 ? [] : [Object.fromEntries(stray.map((key) => [key, (array as unknown as Json)[key]]))]
}
