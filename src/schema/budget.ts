/**
 * The token budget of `portable` and `strict` tools (docs/profiles.md,
 * "Token budget"): an advertised schema is cut to fit, nested messages
 * kept as deep as the budget allows and the rest replaced by placeholders
 * (JSON text of the message, naming it and the tool that gives its
 * schema). The validator's schema is never cut.
 */
import type { JsonSchema } from './types.ts'
import { STUB_MARK, TYPE_MARK } from './scalar-schema.ts'
import { setOwn, sortKeys } from './sort-keys.ts'
import { countTokens, fitsTokens } from './tokens.ts'
import { isRecord } from '../contract/is-record.ts'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- schema nodes are plain JSON read key by key
type Json = Record<string, any>

/** The default token budget of one tool, and of one answer of the type tool. */
export const DEFAULT_TOOL_TOKEN_BUDGET = 1500

/** The default name of the tool that gives the schema of a message a placeholder names. */
export const DEFAULT_TYPE_TOOL = 'describe_type'

/** One subtree replaced by a placeholder: where (a JSON Pointer of the arguments, `*` for any array index) and its message type. */
export interface Cut {
  path: string
  type: string
}

/** Options of {@link fitBudget}. */
export interface FitOptions {
  /** At most this many o200k tokens, counted on `frame(schema)`. */
  budget: number
  /** The tool named by placeholders. */
  typeTool: string
  /**
   * The text counted for a schema: the tool (name, description, schema) or
   * the type tool's answer. It holds the schema's JSON (as an object value:
   * its keys are keys of the text), the rest of it not depending on the schema.
   */
  frame: (schema: JsonSchema) => string
  /** Only a schema that fits whole will do: when it does not, the cut schema is not worked out (`fitted` says so). */
  wholeOnly?: boolean
}

/** What {@link fitBudget} returns: the schema (marks taken out) and its cuts, in document order. */
export interface Fitted {
  schema: JsonSchema
  cuts: Cut[]
  /** Whether even the root with every message cut passes the budget. */
  over: boolean
  /** Whether the schema fit whole: nothing cut but messages inside themselves past the inlining depth. */
  whole: boolean
  /** With `wholeOnly`, when the schema does not fit whole: `schema`, `cuts` and `over` are not worked out; {@link fitBudget} again without it does. */
  unfitted?: true
}

interface Site {
  node: Json
  path: string
  depth: number
  /** The message types from the root down to this site's parent. */
  ancestors: readonly string[]
  order: number
}

const isJson = (value: unknown): value is Json => isRecord(value)
const typeOf = (node: Json): string | undefined => (typeof node[TYPE_MARK] === 'string' ? (node[TYPE_MARK] as string) : undefined)
const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** The text of a placeholder's description: what to send and where its schema is. */
export function placeholderText(type: string, typeTool: string): string {
  return `JSON text of ${type}; schema: ${typeTool}`
}

/** A message cut by the budget: JSON text (every client accepts a string), its field's description kept. */
function placeholder(node: Json, typeTool: string): Json {
  const text = placeholderText(typeOf(node)!, typeTool)
  const nullable = Array.isArray(node.type) && node.type.includes('null')
  const description = typeof node.description === 'string' && node.description ? `${node.description} (${text})` : text
  return { type: nullable ? ['string', 'null'] : 'string', description }
}

/** The marked message nodes right below `node` (not below them), with their paths; whether a stub is among them (`STUB_MARK`). */
function childSites(node: Json, path: string, out: { node: Json; path: string }[]): boolean {
  let stub = false
  const visit = (sub: unknown, at: string): void => {
    if (!isJson(sub)) return
    if (typeOf(sub) !== undefined) {
      if (isJson(sub.properties)) out.push({ node: sub, path: at })
      else if (sub[STUB_MARK] === true) stub = true
    } else if (childSites(sub, at, out)) stub = true
  }
  if (isJson(node.properties)) for (const [key, sub] of Object.entries(node.properties)) visit(sub, `${path}/${escapePointer(key)}`)
  if (isJson(node.items)) visit(node.items, `${path}/*`)
  return stub
}

/** A schema cut short (see {@link cutShort}): how its whole schema is made, and whether that one's keys alone pass the budget. */
interface Short {
  whole: () => JsonSchema
  keysOver: boolean
}

const shorts = new WeakMap<JsonSchema, Short>()

/**
 * `short` (a marked advertised schema whose messages below some depth are
 * stubs: `stubsBelow` of message-schema.ts) with `whole`, which makes the
 * same schema with no stub: {@link fitBudget} fits `short` while it reads
 * nothing below a stub (the budget opens only the top of a big schema), and
 * the whole schema (made once) once it would; {@link fitLevels} compares
 * whole schemas. The fit is the same either way: a stub's placeholder is the
 * whole node's. `keysOver`: the whole schema's {@link keyFloor} is known to
 * pass the budget (its keys but descriptions do at another level of
 * comments: only descriptions differ between levels), so it does not fit
 * whole; else whether it fits whole is read on the whole schema.
 */
export function cutShort(short: JsonSchema, whole: () => JsonSchema, keysOver: boolean): JsonSchema {
  let made: JsonSchema | undefined
  shorts.set(short, { whole: () => (made ??= whole()), keysOver })
  return short
}

/** `schema`, or the whole schema of one cut short. */
const wholeSchema = (schema: JsonSchema): JsonSchema => shorts.get(schema)?.whole() ?? schema

const WORD_RE = /[\p{L}\p{N}]/u

/** Whether an object key is at least one o200k token of its own: see {@link keyFloor}. */
const wordKey = (key: string): boolean => WORD_RE.test(key)

/**
 * A floor under the o200k count of any text holding `render(node, every
 * marked node)` as JSON, counted only until it passes `limit`: each key with
 * a letter or digit is a token of its own at least. o200k's pre-tokenizer
 * splits a text into pieces before any merge (a token never spans two), and
 * a piece holding letters or digits holds one run of them with at most one
 * other character before it; two keys' letters are parted by at least
 * `":`, so they fall in different pieces. Without `descriptions`, the
 * `description` keys are not counted: a floor for the same schema at any
 * level of comments (the levels differ only in descriptions).
 */
export function keyFloor(node: Json, limit: number, descriptions = true): number {
  let n = 0
  const visit = (at: Json): void => {
    for (const [key, value] of Object.entries(at)) {
      if (n > limit) return
      if (key === TYPE_MARK) continue
      if (wordKey(key) && (descriptions || key !== 'description')) n++
      if (key === 'properties' && isJson(value)) {
        for (const [name, sub] of Object.entries(value)) {
          if (n > limit) return
          if (wordKey(name)) n++
          child(sub)
        }
      } else if (key === 'items' && isJson(value)) child(value)
    }
  }
  // As renderChild: a marked node without properties is a placeholder (`type` and `description`).
  const child = (sub: unknown): void => {
    if (!isJson(sub)) return
    if (typeOf(sub) !== undefined && !isJson(sub.properties)) n += 2
    else visit(sub)
  }
  visit(node)
  return n
}

/**
 * `node` without marks, every marked node outside `open` a placeholder;
 * `cuts` (when given) receives each placeholder's path and type.
 */
function render(node: Json, open: ReadonlySet<Json>, typeTool: string, path = '', cuts?: Cut[]): Json {
  const out: Json = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === TYPE_MARK) continue
    if (key === 'properties' && isJson(value)) {
      const properties: Json = {}
      for (const [name, sub] of Object.entries(value)) {
        setOwn(properties, name, renderChild(sub, open, typeTool, `${path}/${escapePointer(name)}`, cuts))
      }
      out.properties = properties
    } else if (key === 'items' && isJson(value)) {
      out.items = renderChild(value, open, typeTool, `${path}/*`, cuts)
    } else {
      out[key] = value
    }
  }
  return out
}

function renderChild(sub: unknown, open: ReadonlySet<Json>, typeTool: string, path: string, cuts?: Cut[]): unknown {
  if (!isJson(sub)) return sub
  const type = typeOf(sub)
  // A marked node without properties is a message inside itself past the inlining depth: always a placeholder.
  if (type !== undefined && (!open.has(sub) || !isJson(sub.properties))) {
    cuts?.push({ path, type })
    return placeholder(sub, typeTool)
  }
  return render(sub, open, typeTool, path, cuts)
}

/**
 * `root` (a marked advertised schema) with every message below it a
 * placeholder, marks taken out, keys sorted: what {@link fitBudget} counts
 * first (a schema over the budget even so is `over`).
 */
export function rootAlone(root: JsonSchema, typeTool: string): JsonSchema {
  return sortKeys(render(root, new Set([root]), typeTool))
}

/**
 * `root` (an advertised schema whose message nodes carry their type mark)
 * fitted to `options.budget` tokens: the root's own fields always stay;
 * nested messages are opened breadth first, shallow before deep, a message
 * not yet shown in this schema before one shown elsewhere in it, and never
 * inside itself, while the count stays within the budget. A schema that
 * fits whole is returned whole.
 */
export function fitBudget(root: JsonSchema, options: FitOptions): Fitted {
  const { budget, typeTool, frame } = options
  // A schema cut short (cutShort) is fitted whole once the fit would read below its stubs.
  const short = shorts.get(root)
  const complete = short?.whole
  // Rendered and counted only when its keys alone do not pass the budget (for a big schema, most of the work).
  if (short?.keysOver !== true && keyFloor(root, budget) <= budget) {
    if (complete !== undefined) return fitBudget(complete(), options)
    const all = new Set<Json>()
    const mark = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(mark)
      else if (isJson(node)) {
        if (typeOf(node) !== undefined) all.add(node)
        Object.values(node).forEach(mark)
      }
    }
    mark(root)
    const wholeCuts: Cut[] = []
    const whole = sortKeys(render(root, all, typeTool, '', wholeCuts))
    if (fitsTokens(frame(whole), budget)) return { schema: whole, cuts: wholeCuts, over: false, whole: true }
  }
  if (options.wholeOnly) return { schema: root, cuts: [], over: false, whole: false, unfitted: true }

  const open = new Set<Json>([root])
  const opened: Json[] = []
  const shown = new Set<string>()
  const rootType = typeOf(root)
  if (rootType !== undefined) shown.add(rootType)
  let total = countTokens(frame(rootAlone(root, typeTool)))
  const over = total > budget
  const queue: Site[] = []
  let order = 0
  // Whether `node` has a stub right below it: the fit would read below it.
  const enqueue = (node: Json, path: string, depth: number, ancestors: readonly string[]): boolean => {
    const found: { node: Json; path: string }[] = []
    const stub = childSites(node, path, found)
    for (const site of found) queue.push({ ...site, depth, ancestors, order: order++ })
    return stub
  }
  if (enqueue(root, '', 1, rootType === undefined ? [] : [rootType]) && complete !== undefined) return fitBudget(complete(), options)
  while (!over && queue.length > 0) {
    // Shallow first; at one depth, a message not yet shown before one shown elsewhere; then document order.
    let best = 0
    const rank = (s: Site): [number, number, number] => [s.depth, shown.has(typeOf(s.node)!) ? 1 : 0, s.order]
    for (let i = 1; i < queue.length; i++) {
      const a = rank(queue[i]!)
      const b = rank(queue[best]!)
      if (a[0] < b[0] || (a[0] === b[0] && (a[1] < b[1] || (a[1] === b[1] && a[2] < b[2])))) best = i
    }
    const site = queue.splice(best, 1)[0]!
    const type = typeOf(site.node)!
    // A message inside itself stays cut: its schema is one call away.
    if (site.ancestors.includes(type)) continue
    const shell = JSON.stringify(render(site.node, new Set([site.node]), typeTool))
    const delta = countTokens(shell) - countTokens(JSON.stringify(placeholder(site.node, typeTool)))
    if (total + delta > budget) continue
    total += delta
    open.add(site.node)
    opened.push(site.node)
    shown.add(type)
    if (enqueue(site.node, site.path, site.depth + 1, [...site.ancestors, type]) && complete !== undefined)
      return fitBudget(complete(), options)
  }
  // Counts of parts add up only nearly: the whole is counted, and the last opened closed until it fits.
  let cuts: Cut[] = []
  let schema = sortKeys(render(root, open, typeTool, '', cuts))
  while (opened.length > 0 && countTokens(frame(schema)) > budget) {
    open.delete(opened.pop()!)
    cuts = []
    schema = sortKeys(render(root, open, typeTool, '', cuts))
  }
  return { schema, cuts, over, whole: false }
}

/**
 * {@link fitBudget} at each description level in turn (most comment first)
 * until one is `accepted` (by default: it fits with its root alone):
 * `schema(level)` builds the marked advertised schema, `options(level)`
 * says how it is counted. The last level's result when none is.
 */
export function fitLevels<L>(
  levels: readonly L[],
  schema: (level: L) => JsonSchema,
  options: (level: L) => FitOptions,
  accepted: (fitted: Fitted, level: L) => boolean = (fitted) => !fitted.over,
  wholeOnly: (level: L) => boolean = () => false,
): Fitted & { level: L } {
  let result: (Fitted & { level: L }) | undefined
  let previous: { schema: JsonSchema; frame: string; counted: FitOptions } | undefined
  for (const level of levels) {
    const built = schema(level)
    const counted = options(level)
    // A level that leaves out nothing more (no comments to cut) fits as the one before did: same schema, same frame
    // around it. Not when the one before had to fit whole and did not: this level may cut, so it is fitted.
    const frame = counted.frame({})
    const again = result !== undefined && (result.unfitted === undefined || wholeOnly(level))
    if (again && previous !== undefined && frame === previous.frame && sameJson(wholeSchema(built), wholeSchema(previous.schema))) continue
    previous = { schema: built, frame, counted }
    result = { ...fitBudget(built, { ...counted, wholeOnly: wholeOnly(level) }), level }
    if (result.unfitted === undefined && accepted(result, level)) break
  }
  // A level that had to fit whole and did not, with no later level different from it: fitted as any other.
  if (result!.unfitted) result = { ...fitBudget(previous!.schema, previous!.counted), level: result!.level }
  return result!
}

/** A value JSON.stringify leaves out of an object and writes as `null` in an array. */
const noJson = (value: unknown): boolean => value === undefined || typeof value === 'function' || typeof value === 'symbol'

/** The keys JSON.stringify writes of `value`, in its order. */
const jsonKeys = (value: Json): string[] => Object.keys(value).filter((key) => !noJson(value[key]))

/**
 * Whether `a` and `b` have the same JSON text (keys in the same order),
 * without writing either: stops at the first difference.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(noJson(a[i]) ? null : a[i], noJson(b[i]) ? null : b[i])) return false
    return true
  }
  if (!isJson(a) || !isJson(b) || Array.isArray(b)) return JSON.stringify(a) === JSON.stringify(b)
  const keys = jsonKeys(a)
  const other = jsonKeys(b)
  if (keys.length !== other.length) return false
  return keys.every((key, i) => key === other[i] && sameJson(a[key], b[key]))
}
