/**
 * The search index of `search_tools` (docs/guide/big-apis.md): BM25+ over
 * each tool's words, by MiniSearch (small, no dependencies, nothing
 * Node-only, so the web build has it too). Built at run time from the
 * tools' listings and specs, once per tool snapshot.
 */
import type MiniSearch from 'minisearch'
import type { ToolEntry, ToolSet } from './tool-set.ts'

/** Words too common in tool descriptions to tell tools apart. */
const STOP_WORDS = new Set(
  'a an and are as at be by for from has have in is it its of on or that the this to was were will with which you your if not can may'.split(
    ' ',
  ),
)

/** `getVibeHistory`, `get_vibe_history`, `GET-VIBE` → get, vibe, history (camel case, `_`, any other non-letter split). */
export function splitWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '')
}

/** A word's stem, enough to meet its plural and tenses (`lists`, `listing`, `listed` → `list`). */
function stem(word: string): string {
  let w = word.toLowerCase()
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3)
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2)
  else if (w.length > 3 && w.endsWith('es') && /(ss|x|ch|sh)es$/.test(w)) w = w.slice(0, -2)
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss')) w = w.slice(0, -1)
  if (w.length > 3 && w.endsWith('e')) w = w.slice(0, -1)
  return w
}

/** The terms of a text: its words split, stop words out, stemmed. */
function terms(text: string): string[] {
  const out: string[] = []
  for (const word of splitWords(text)) {
    const lower = word.toLowerCase()
    if (!STOP_WORDS.has(lower)) out.push(stem(lower))
  }
  return out
}

/**
 * The words people (and models) ask with, by the verbs APIs name their
 * methods with: a query's word adds those, at {@link SYNONYM_BOOST}
 * ("send a message" finds Publish, "look up a queue" GetQueue, "erase"
 * DeleteDocument). Keys and values are plain words; both are stemmed.
 */
const SYNONYMS: ReadonlyArray<readonly [words: string, adds: string]> = [
  ['send post emit push deliver', 'publish add'],
  ['fetch retrieve read look lookup show view see inspect', 'get'],
  ['fetch receive consume download', 'pull'],
  ['remove erase destroy drop discard wipe trash', 'delete'],
  ['make new add register insert', 'create'],
  ['change modify edit alter rename', 'update'],
  ['save store', 'create update'],
  ['find lookup', 'search list'],
  ['enumerate browse', 'list'],
  ['subscribe', 'subscription'],
  ['count tally', 'count aggregation'],
]

/** How much a synonym counts against a word of the query itself. */
const SYNONYM_BOOST = 0.5

/** A query term's stem → the stems it adds. */
const SYNONYM_TERMS: ReadonlyMap<string, readonly string[]> = (() => {
  const out = new Map<string, string[]>()
  for (const [words, adds] of SYNONYMS) {
    for (const word of words.split(' ')) {
      const list = out.get(stem(word)) ?? []
      for (const add of adds.split(' ')) if (!list.includes(stem(add))) list.push(stem(add))
      out.set(stem(word), list)
    }
  }
  return out
})()

/** The words a query of terms `own` adds by {@link SYNONYMS} that it does not have already, as stems. */
function synonymsOf(own: readonly string[]): string[] {
  const added: string[] = []
  for (const term of own) for (const add of SYNONYM_TERMS.get(term) ?? []) if (!own.includes(add) && !added.includes(add)) added.push(add)
  return added
}

/** Property names of a schema, nested ones too (each object once). */
function propertyNames(schema: unknown, out: Set<string>, seen = new Set<unknown>()): Set<string> {
  if (schema === null || typeof schema !== 'object' || seen.has(schema)) return out
  seen.add(schema)
  if (Array.isArray(schema)) {
    for (const item of schema) propertyNames(item, out, seen)
    return out
  }
  const properties = (schema as { properties?: unknown }).properties
  if (properties !== null && typeof properties === 'object') for (const name of Object.keys(properties)) out.add(name)
  for (const value of Object.values(schema)) propertyNames(value, out, seen)
  return out
}

/** The last part of a full name (`google.firestore.v1.Document` → `Document`). */
const shortName = (full: string): string => full.slice(full.lastIndexOf('.') + 1)

/** One document of the index: a tool's searchable fields. */
interface ToolDocument {
  id: string
  name: string
  title: string
  description: string
  rpc: string
  /** The comment of the proto service the tool's RPC belongs to. */
  service: string
  fields: string
  messages: string
}

/** The searchable text of a tool: its listing, and for a proto tool its service, method and messages. */
function documentOf(entry: ToolEntry): ToolDocument {
  const { listed } = entry
  const spec = entry.proto?.tool.spec
  return {
    id: listed.name,
    name: listed.name,
    title: typeof listed.title === 'string' ? listed.title : '',
    description: listed.description,
    rpc: spec === undefined ? '' : `${spec.service} ${spec.method}`,
    // A table of an older module has no comments (`?.`).
    service: spec === undefined ? '' : (entry.proto?.table.serviceComments?.get(spec.service) ?? ''),
    fields: [...propertyNames(listed.inputSchema, new Set())].join(' '),
    messages: spec === undefined ? '' : `${shortName(spec.requestType)} ${shortName(spec.responseType)}`,
  }
}

/** How much a match in each field counts (a name match most). */
const BOOST = { name: 3, title: 2, description: 1, rpc: 1.5, service: 0.5, fields: 0.5, messages: 1 }

/** A tool set's index: the tool names ranked for a query. */
export class ToolIndex {
  readonly #search: MiniSearch<ToolDocument>
  readonly #folded: Map<string, string>

  constructor(Search: typeof MiniSearch, entries: Iterable<ToolEntry>) {
    this.#search = new Search<ToolDocument>({
      fields: Object.keys(BOOST),
      tokenize: (text) => [text],
      processTerm: (text) => terms(text),
      searchOptions: {
        boost: BOOST,
        // A long word may be a prefix or one typo away (`vibe` → `vibes`, `docment` → `document`).
        prefix: (term) => term.length >= 4,
        fuzzy: (term) => (term.length >= 6 ? 1 : false),
        combineWith: 'OR',
      },
    })
    this.#folded = new Map()
    const documents: ToolDocument[] = []
    for (const entry of entries) {
      documents.push(documentOf(entry))
      this.#folded.set(fold(entry.listed.name), entry.listed.name)
    }
    this.#search.addAll(documents)
  }

  /**
   * The names of the tools that match `query`, best first, of those
   * `visible` lets through: BM25+ scores, ties in listing order; a query
   * that is a tool's name (case and `_` ignored) puts that tool first.
   */
  rank(query: string, visible: (name: string) => boolean): string[] {
    const exact = this.#folded.get(fold(query.trim()))
    // The query's own terms, then its synonyms' (each a stem, which stems to itself), the latter counting less.
    const ownTerms = terms(query)
    const own = ownTerms.length
    const added = synonymsOf(ownTerms)
    const ranked = this.#search
      .search(added.length === 0 ? query : `${query} ${added.join(' ')}`, {
        filter: (r) => visible(r.id as string),
        ...(added.length === 0 ? {} : { boostTerm: (_term: string, i: number) => (i < own ? 1 : SYNONYM_BOOST) }),
      })
      .map((r) => r.id as string)
    if (exact === undefined || !visible(exact)) return ranked
    return [exact, ...ranked.filter((name) => name !== exact)]
  }
}

/** A name with case, `_` and `-` ignored. */
function fold(name: string): string {
  return name.toLowerCase().replace(/[_-]/g, '')
}

/** Each snapshot's index, built when first searched. */
const indexes = new WeakMap<ToolSet, ToolIndex>()

/** MiniSearch, loaded on the first search (a server that is never searched never loads it). */
let loaded: Promise<typeof MiniSearch> | undefined

/** The index of `set` (built once per snapshot, so it follows every hot reload and `handle()` change). */
export async function indexOf(set: ToolSet): Promise<ToolIndex> {
  const Search = await (loaded ??= import('minisearch').then((m) => m.default))
  let index = indexes.get(set)
  if (index === undefined) indexes.set(set, (index = new ToolIndex(Search, set.byName.values())))
  return index
}
