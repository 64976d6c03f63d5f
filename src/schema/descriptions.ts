/**
 * Descriptions from comments (docs/mapping.md, "Descriptions from comments").
 */

const NAME_BOUNDARY_RE = /[a-z][A-Z]|[A-Za-z][0-9]|[0-9][A-Za-z]/g
const WHITESPACE_RUN_RE = /\s+/g

/**
 * Normalises a raw leading comment (docs/mapping.md, "Descriptions from comments"): strips one leading `// `
 * and `/* ` and one trailing ` *\/`, strips one `// ` from each line, joins
 * the lines with spaces, trims and collapses whitespace. `null` (no comment)
 * stays `null`; a comment that normalises to `""` gives `""`.
 */
export function describeComment(raw: string | null): string | null {
  if (raw === null) return null
  let text = raw
  if (text.startsWith('// ')) text = text.slice(3)
  if (text.startsWith('/* ')) text = text.slice(3)
  if (text.endsWith(' */')) text = text.slice(0, -3)
  return text
    .split('\n')
    .map((line) => (line.startsWith('// ') ? line.slice(3) : line))
    .join(' ')
    .trim()
    .replace(WHITESPACE_RUN_RE, ' ')
}

/**
 * Splits a name at case and digit boundaries, scanning left to right in
 * non-overlapping pairs (lower→upper, letter→digit, digit→letter):
 * `SetVibeDetails` → `Set Vibe Details`, `GetVibe2Array` → `Get Vibe 2Array`.
 */
export function splitName(name: string): string {
  return name.replace(NAME_BOUNDARY_RE, (pair) => `${pair[0]} ${pair[1]}`)
}

/** The description of a comment, or undefined when it is absent or normalises to `""` (then no `description` key). */
export function descriptionOf(raw: string | null): string | undefined {
  const text = describeComment(raw)
  return text ? text : undefined
}

/**
 * The description of a comment's first paragraph (up to its first blank
 * line), normalised as {@link describeComment}; undefined as {@link descriptionOf}.
 */
export function firstParagraphOf(raw: string | null): string | undefined {
  if (raw === null) return undefined
  const lines = raw.split('\n')
  // A blank line (or one holding only the comment marker) after some text ends the first paragraph.
  let seenText = false
  for (let i = 0; i < lines.length; i++) {
    const blank = /^\s*(?:\/\/)?\s*$/.test(lines[i]!)
    if (!blank) seenText = true
    else if (seenText) return descriptionOf(lines.slice(0, i).join('\n'))
  }
  return descriptionOf(raw)
}

/** How much of a comment a description keeps (docs/profiles.md, "Token budget"), most first. */
export type DescriptionLevel = 'full' | 'first-paragraph' | 'first-sentence' | 'none'

/** Every description level, most first. */
export const DESCRIPTION_LEVELS: readonly DescriptionLevel[] = ['full', 'first-paragraph', 'first-sentence', 'none']

const SENTENCE_END_RE = /^(.*?[.!?])\s/

/**
 * Descriptions already made, by level and comment: a schema is built once
 * per description level and again for the type tool, so one field's
 * comment is read many times. A pure function of its text, so exact;
 * started afresh past {@link DESCRIPTION_CACHE_ENTRIES} comments.
 */
const described = new Map<DescriptionLevel, Map<string, string | undefined>>()
let describedEntries = 0

/** The most comments the description cache holds before it starts afresh. */
export const DESCRIPTION_CACHE_ENTRIES = 100_000

/** The description of `raw` at `level`: undefined when nothing is left. */
export function descriptionAt(raw: string | null, level: DescriptionLevel): string | undefined {
  if (raw === null) return undefined
  let byRaw = described.get(level)
  if (byRaw === undefined) described.set(level, (byRaw = new Map()))
  if (byRaw.has(raw)) return byRaw.get(raw)
  if (describedEntries >= DESCRIPTION_CACHE_ENTRIES) {
    described.clear()
    describedEntries = 0
    described.set(level, byRaw)
    byRaw.clear()
  }
  const text = describeAtLevel(raw, level)
  byRaw.set(raw, text)
  describedEntries++
  return text
}

function describeAtLevel(raw: string, level: DescriptionLevel): string | undefined {
  switch (level) {
    case 'full':
      return descriptionOf(raw)
    case 'first-paragraph':
      return firstParagraphOf(raw)
    case 'first-sentence': {
      const first = firstParagraphOf(raw)
      return first === undefined ? undefined : (SENTENCE_END_RE.exec(first)?.[1] ?? first)
    }
    case 'none':
      return undefined
  }
}

/** The text appended to the description of a field in a real oneof (docs/mapping.md, "Input schema: the shape"). */
export function oneofNote(oneof: string): string {
  return `Part of the "${oneof}" oneof: at most one of its fields may be set.`
}

/**
 * The schema of each description level, for `fitLevels`: `first` at
 * `firstLevel`; at a later level, the schema of the level asked before it
 * when every comment in `comments` (the raw comments the schema is
 * described from) reads the same at both, since then nothing in it
 * differs; else `build(level)`. Levels are asked in order.
 */
export function levelSchemas<S>(
  firstLevel: DescriptionLevel,
  first: S,
  comments: ReadonlySet<string>,
  build: (level: DescriptionLevel) => S,
): (level: DescriptionLevel) => S {
  let last = { level: firstLevel, schema: first }
  return (level) => {
    if (level === firstLevel) return first
    let alike = true
    for (const raw of comments) {
      if (descriptionAt(raw, level) !== descriptionAt(raw, last.level)) {
        alike = false
        break
      }
    }
    last = { level, schema: alike ? last.schema : build(level) }
    return last.schema
  }
}

/** A spec's `serviceComments`: each service's normalised comment, keys sorted; undefined when none has one. */
export function serviceComments(
  services: ReadonlyArray<{ readonly fullName: string; readonly comment: string | null }>,
): Record<string, string> | undefined {
  const out: Record<string, string> = {}
  for (const service of [...services].sort((a, b) => (a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0))) {
    const text = descriptionOf(service.comment)
    if (text !== undefined) out[service.fullName] = text
  }
  return Object.keys(out).length > 0 ? out : undefined
}

/** `{ serviceComments }` for a spec, or nothing when no service has a comment. */
export function serviceCommentsKey(services: ReadonlyArray<{ readonly fullName: string; readonly comment: string | null }>): {
  serviceComments?: Record<string, string>
} {
  const comments = serviceComments(services)
  return comments === undefined ? {} : { serviceComments: comments }
}
