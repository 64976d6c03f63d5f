/**
 * Lenient arguments (docs/profiles.md): a tool accepts what its advertised
 * schema accepts, and also every other spelling the protobuf JSON decoder
 * reads for a field (numbers for 64-bit integers, numeric strings for
 * other numbers, enum numbers, proto field names, objects for maps advertised as
 * entries, native JSON for JSON text), and messages, lists and maps sent as
 * a JSON string of the right shape (some clients stringify nested
 * arguments). {@link coerceArguments} rewrites those into the advertised
 * form, so the one precompiled validator decides and its texts speak of
 * the advertised schema; {@link toProtoJson} then turns the advertised
 * forms protobuf JSON lacks (map entries, JSON text, strict mode's nulls)
 * into protobuf JSON for the decoder.
 */
import { exact64, type Exact64 } from './int64.ts'
import type { NumberSource } from './number-source.ts'
import type { DecodeFailure } from './protojson.ts'
import type { LenientField, LenientPlan } from './types.ts'
import { isRecord, setOwn } from '../contract/is-record.ts'

type Obj = Record<string, unknown>

// Deeper than any schema a tool advertises; the validator reports what is past it.
const MAX_DEPTH = 64
const INT_TEXT_RE = /^-?(?:0|[1-9][0-9]*)$/
const FLOAT_TEXT_RE = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$/

const VALUE = 'google.protobuf.Value'

const own = (o: Obj, key: string): boolean => Object.hasOwn(o, key)
// Type names are data: a message called `toString` must not find Object.prototype's.
const fieldsOf = (plan: LenientPlan, type: string): LenientField[] | undefined =>
  Object.hasOwn(plan.messages, type) ? plan.messages[type] : undefined

/** `text` parsed when it is JSON of the wanted kind, else `undefined`. */
function parsed(text: string, wantArray: boolean): unknown {
  const first = text.trimStart()[0]
  if (first !== (wantArray ? '[' : '{')) return undefined
  try {
    const value: unknown = JSON.parse(text)
    return wantArray ? (Array.isArray(value) ? value : undefined) : isRecord(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** Whether a message field of type `type` is advertised as JSON text at this depth (the schema inlines recursion `depth` times). */
function isPlaceholder(plan: LenientPlan, type: string, stack: readonly string[]): boolean {
  if (!plan.portable) return false
  let seen = 0
  for (const name of stack) if (name === type) seen++
  const root = stack[0]!
  return seen >= (plan.depths !== undefined && Object.hasOwn(plan.depths, root) ? plan.depths[root]! : plan.depth)
}

/** What one lenient pass reads besides the arguments, and what it refused. */
interface Pass {
  plan: LenientPlan
  /** The text the arguments came from, for 64-bit numbers past ±2^53 (number-source.ts). */
  source: NumberSource | undefined
  /** 64-bit numbers that cannot be read exactly, with their field paths. */
  refused: DecodeFailure[]
}

/**
 * The arguments of a tool whose request is `type`, rewritten into the
 * advertised form wherever they use another spelling the decoder reads;
 * the same object when nothing changed. A 64-bit number past ±2^53 becomes
 * the decimal string the client wrote (`source`), or is pushed on
 * `refused` with its field path when that is not known (int64.ts). Never
 * throws: what it cannot read stays as it is, for the validator to report.
 */
export function coerceArguments(
  plan: LenientPlan,
  type: string,
  args: unknown,
  source?: NumberSource,
  refused: DecodeFailure[] = [],
): unknown {
  try {
    return coerceMessage({ plan, source, refused }, type, args, [type], '')
  } catch {
    return args
  }
}

const join = (path: string, key: string): string => (path === '' ? key : `${path}.${key}`)

function coerceMessage(pass: Pass, type: string, value: unknown, stack: string[], path: string): unknown {
  const { plan } = pass
  if (typeof value === 'string') value = parsed(value, false) ?? value
  const fields = fieldsOf(plan, type)
  if (!isRecord(value) || fields === undefined || stack.length > MAX_DEPTH) return value
  let out: Obj | undefined
  const copy = (): Obj => {
    if (out === undefined) {
      out = {}
      for (const key of Object.keys(value)) setOwn(out, key, value[key])
    }
    return out
  }
  for (const f of fields) {
    // protobuf JSON also reads the proto field name.
    if (f.p !== undefined && !own(out ?? value, f.j) && own(out ?? value, f.p)) {
      const o = copy()
      setOwn(o, f.j, o[f.p])
      delete o[f.p]
    }
    const current = out ?? value
    if (!own(current, f.j)) {
      if (plan.strict && f.q === undefined) setOwn(copy(), f.j, null)
      continue
    }
    const v = current[f.j]
    if (v === null) {
      // protobuf JSON reads null as "not set" (NullValue's one value; JSON text "null" for Value).
      if (f.k === 'null' && !f.r && f.m === undefined) setOwn(copy(), f.j, 'NULL_VALUE')
      else if (f.k === 'json' && !f.r && f.m === undefined) setOwn(copy(), f.j, 'null')
      else if (!plan.strict) delete copy()[f.j]
      continue
    }
    const next = coerceField(pass, f, v, stack, join(path, f.j))
    if (next !== v) setOwn(copy(), f.j, next)
  }
  return out ?? value
}

function coerceField(pass: Pass, f: LenientField, v: unknown, stack: string[], at: string): unknown {
  if (f.m !== undefined) return coerceMap(pass, f, v, stack, at)
  if (f.r) {
    const list = typeof v === 'string' ? (parsed(v, true) ?? v) : v
    if (!Array.isArray(list)) return list
    let changed = list !== v
    const items = list.map((item, i) => {
      const next = coerceValue(pass, f, item, stack, `${at}[${i}]`)
      if (next !== item) changed = true
      return next
    })
    return changed ? items : v
  }
  return coerceValue(pass, f, v, stack, at)
}

/** A map: an object becomes `{key, value}` entries where those are advertised; entries' values are coerced. */
function coerceMap(pass: Pass, f: LenientField, v: unknown, stack: string[], at: string): unknown {
  const { plan } = pass
  let value = v
  if (typeof value === 'string') value = parsed(value, plan.portable && value.trimStart()[0] === '[') ?? value
  if (!plan.portable) {
    if (!isRecord(value)) return value
    const out: Obj = {}
    let changed = value !== v
    for (const [key, item] of Object.entries(value)) {
      const next = coerceValue(pass, f, item, stack, `${at}[${JSON.stringify(key)}]`)
      if (next !== item) changed = true
      setOwn(out, key, next)
    }
    return changed ? out : v
  }
  const entries = isRecord(value)
    ? Object.entries(value).map(([key, item]) => ({ key: coerceKey(pass, f.m!, key, at), value: item }))
    : value
  if (!Array.isArray(entries)) return value
  let changed = entries !== v
  const out = entries.map((entry) => {
    if (!isRecord(entry) || !own(entry, 'value')) return entry
    const key = own(entry, 'key') ? coerceKey(pass, f.m!, entry.key, at) : undefined
    const item = coerceValue(pass, f, entry.value, stack, `${at}[${JSON.stringify(key ?? null)}]`)
    if (item === entry.value && key === entry.key) return entry
    changed = true
    return { ...entry, ...(key === undefined ? {} : { key }), value: item }
  })
  return changed ? out : v
}

/** A map key as its entry advertises it: a JSON object's string key becomes the key type's value. */
function coerceKey(pass: Pass, kind: LenientField['k'], key: unknown, at: string): unknown {
  if (kind === 'i64' || kind === 'u64') return typeof key === 'number' ? number64(pass, kind, key, `${at} key`) : key
  if (typeof key !== 'string') return key
  if (kind === 'int') return /^-?[0-9]+$/.test(key) ? Number(key) : key
  if (kind === 'bool') return key === 'true' ? true : key === 'false' ? false : key
  return key
}

/**
 * A JSON number of a 64-bit field as the decimal string it stands for: a
 * safe integer as is, one past ±2^53 as the client wrote it, or left as it
 * is (and refused at `at`) when that is not known or not in range.
 */
function number64(pass: Pass, kind: 'i64' | 'u64', v: number, at: string): unknown {
  if (!Number.isInteger(v)) return v
  if (Number.isSafeInteger(v)) return String(v)
  const exact: Exact64 | undefined = exact64(v, kind === 'i64' ? 'int64' : 'uint64', pass.source)
  if (exact !== undefined && 'decimal' in exact) return exact.decimal
  if (exact !== undefined) pass.refused.push({ path: at, reason: exact.refused })
  return v
}

/** The decoder's text for a value nested past its depth limit (protojson's), used for JSON text too deep to write. */
const MAX_DEPTH_EXCEEDED = 'max depth exceeded'

/**
 * Native JSON where JSON text is advertised, as that text; a value too
 * deeply nested to write is left as it is and refused at `at` with the
 * decoder's depth text (else the whole pass would stop, and in `strict`
 * every property it had still to fill would be reported missing).
 */
function jsonText(pass: Pass, v: unknown, at: string): unknown {
  if (typeof v === 'string') return v
  try {
    return JSON.stringify(v)
  } catch (error) {
    if (!(error instanceof RangeError)) throw error
    pass.refused.push({ path: at, reason: MAX_DEPTH_EXCEEDED })
    return v
  }
}

function coerceValue(pass: Pass, f: LenientField, v: unknown, stack: string[], at: string): unknown {
  const { plan } = pass
  switch (f.k) {
    case 'msg': {
      if (isPlaceholder(plan, f.t!, stack)) return jsonText(pass, v, at)
      return coerceMessage(pass, f.t!, v, [...stack, f.t!], at)
    }
    case 'json':
      return jsonText(pass, v, at)
    case 'i64':
    case 'u64':
      return plan.portable && typeof v === 'number' ? number64(pass, f.k, v, at) : v
    case 'float':
      return typeof v === 'string' && FLOAT_TEXT_RE.test(v) ? Number(v) : v
    case 'int':
      return typeof v === 'string' && INT_TEXT_RE.test(v) ? Number(v) : v
    case 'enum': {
      if (typeof v !== 'number') return v
      const names = Object.hasOwn(plan.enums, f.t!) ? plan.enums[f.t!] : undefined
      return names !== undefined && Object.hasOwn(names, String(v)) ? names[String(v)] : v
    }
    case 'null':
      return v === null || v === 0 ? 'NULL_VALUE' : v
  }
  return v
}

/** A value that is not valid JSON text, at a field path (`notes.0`). */
export class JsonTextError extends Error {
  override name = 'JsonTextError'
  constructor(
    readonly path: string,
    cause: unknown,
  ) {
    super(`${path}: not valid JSON text`, { cause })
  }
}

const needsCache = new WeakMap<LenientPlan, Map<string, boolean>>()

/** Whether validated arguments of `type` can hold a form {@link toProtoJson} rewrites (so the walk can be skipped). */
export function needsProtoJson(plan: LenientPlan, type: string): boolean {
  if (!plan.portable) return false
  let cache = needsCache.get(plan)
  if (cache === undefined) needsCache.set(plan, (cache = new Map()))
  const visiting = new Set<string>()
  const visit = (name: string): boolean => {
    const known = cache.get(name)
    if (known !== undefined) return known
    // A cycle: its advertised schema ends in a JSON-text placeholder.
    if (visiting.has(name)) return true
    visiting.add(name)
    const fields = fieldsOf(plan, name) ?? []
    const needs = plan.strict || fields.some((f) => f.m !== undefined || f.k === 'json' || (f.k === 'msg' && visit(f.t!)))
    visiting.delete(name)
    cache.set(name, needs)
    return needs
  }
  return visit(type)
}

/** A value sent as JSON text past the recursion depth, parsed: `pointer` is where (in the advertised form), `type` its message. */
export interface DeepPart {
  pointer: string
  type: string
  value: unknown
}

const pointerKey = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1')

/**
 * Validated arguments (advertised form) as protobuf JSON: entries become a
 * map object, JSON text is parsed, strict mode's `null`s mean "not set".
 * Throws {@link JsonTextError} for JSON text that does not parse. Each
 * message parsed from JSON text past the recursion depth is pushed on
 * `deep` (when given), for its `full` validator (runtime/pipeline.ts).
 */
export function toProtoJson(plan: LenientPlan, type: string, args: unknown, deep?: DeepPart[]): unknown {
  return messageToJson({ plan, deep }, type, args, [type], '', '')
}

/** What one protobuf JSON pass reads, and the parts it found past the recursion depth. */
interface ToJson {
  plan: LenientPlan
  deep: DeepPart[] | undefined
}

function messageToJson(pass: ToJson, type: string, value: unknown, stack: string[], path: string, pointer: string): unknown {
  const { plan } = pass
  const fields = fieldsOf(plan, type)
  if (!isRecord(value) || fields === undefined) return value
  const out: Obj = {}
  for (const key of Object.keys(value)) setOwn(out, key, value[key])
  for (const f of fields) {
    if (!own(out, f.j)) continue
    const v = out[f.j]
    const at = path ? `${path}.${f.j}` : f.j
    const ptr = `${pointer}/${pointerKey(f.j)}`
    // Strict mode's null is "not set" (a NullValue is set by its name); elsewhere null is NullValue's value.
    if (v === null && (plan.strict || f.k !== 'null')) {
      delete out[f.j]
      continue
    }
    if (f.m !== undefined && Array.isArray(v)) {
      const map: Obj = {}
      ;(v as Obj[]).forEach((entry, i) => {
        const key = String(entry.key)
        // As Go's protojson: a key given twice is an error, not the last one winning.
        if (Object.hasOwn(map, key)) throw new Error(`${at}: duplicate map key ${JSON.stringify(key)}`)
        setOwn(map, key, valueToJson(pass, f, entry.value, stack, `${at}.${key}`, `${ptr}/${i}/value`))
      })
      out[f.j] = map
    } else if (f.r && Array.isArray(v)) {
      out[f.j] = v.map((item, i) => valueToJson(pass, f, item, stack, `${at}.${i}`, `${ptr}/${i}`))
    } else {
      out[f.j] = valueToJson(pass, f, v, stack, at, ptr)
    }
  }
  return out
}

function valueToJson(pass: ToJson, f: LenientField, v: unknown, stack: string[], path: string, pointer: string): unknown {
  const { plan } = pass
  const text = (): unknown => {
    try {
      return JSON.parse(v as string)
    } catch (error) {
      // A google.protobuf.Value may be any JSON value: text that is not JSON is the string itself.
      if (f.t === VALUE) return v
      throw new JsonTextError(path, error)
    }
  }
  if (f.k === 'json' && typeof v === 'string') return text()
  if (f.k !== 'msg') return v
  if (typeof v === 'string' && isPlaceholder(plan, f.t!, stack)) {
    const value = text()
    pass.deep?.push({ pointer, type: f.t!, value })
    return value
  }
  return messageToJson(pass, f.t!, v, [...stack, f.t!], path, pointer)
}

const fullPlans = new WeakMap<LenientPlan, LenientPlan>()

/**
 * `plan` as `full` reads a request: no JSON text, maps as objects, no
 * strict nulls; for checking a part parsed from JSON text against its
 * `full` validator (after {@link coerceArguments} with it).
 */
export function fullPlanOf(plan: LenientPlan): LenientPlan {
  let full = fullPlans.get(plan)
  if (full === undefined) {
    const messages: Record<string, LenientField[]> = {}
    for (const [name, fields] of Object.entries(plan.messages))
      setOwn(
        messages,
        name,
        fields.map((f) => (f.k === 'json' ? { ...f, k: 'other' as const } : f)),
      )
    full = { portable: false, strict: false, depth: plan.depth, messages, enums: plan.enums }
    fullPlans.set(plan, full)
  }
  return full
}
