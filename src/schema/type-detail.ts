/**
 * Type detail on demand (docs/profiles.md, "Token budget"): the answers of
 * the type tool, built at build time. A placeholder names a message; the
 * tool's answer for it is that message's schema with its whole comments,
 * itself within the budget (deeper messages are placeholders again), so a
 * model descends one call at a time. A tool's name gives its whole
 * description and its request's schema.
 */
import type { TypeDetailSpec, TypeToolListing } from '../contract/index.ts'
import type { JsonSchema, Profile } from './types.ts'
import type { ProtoModel } from '../proto/model.ts'
import { advertise } from './advertise.ts'
import { fitLevels, rootAlone } from './budget.ts'
import type { Cut, Fitted } from './budget.ts'
import { descriptionAt, DESCRIPTION_LEVELS, levelSchemas } from './descriptions.ts'
import type { DescriptionLevel } from './descriptions.ts'
import { messageSchema } from './message-schema.ts'
import { sortKeys } from './sort-keys.ts'
import { countTokens, fitsTokens } from './tokens.ts'
import { wellKnownSchema } from './well-known.ts'

export type { TypeDetailSpec, TypeToolListing }

/** A tool whose comment or schema the budget shortened: its whole description is on demand. */
export interface DetailedTool {
  name: string
  /** Its whole description (the RPC's comment, or its name in words). */
  description: string
  /** The RPC's raw comment. */
  comment: string | null
  requestType: string
}

/** Options of {@link buildTypeDetail}. */
export interface TypeDetailOptions {
  profile: Profile
  budget: number
  toolName: string
  /** Every answer made now, as the queue finds them, even when their names are known without (the tests compare the two). */
  eager?: boolean
}

/** The type tool's listing, for a profile: one required string argument (strict: the object closed). */
export function typeToolListing(name: string, profile: Profile): TypeToolListing {
  const inputSchema: JsonSchema = {
    type: 'object',
    properties: {
      type: {
        type: 'string',
        description: 'The full name of a message as a placeholder names it (e.g. "pkg.Message"), or a tool\'s name',
      },
    },
    required: ['type'],
  }
  if (profile === 'strict') inputSchema.additionalProperties = false
  return {
    name,
    description:
      'The JSON Schema of a message that the other tools show as a placeholder ("JSON text of pkg.Message; schema: ' +
      `${name}"), with its whole comments; or, given a tool's name, that tool's whole description and arguments. ` +
      'Deeper messages are placeholders again: ask for them the same way. Send the message as a JSON object (or as JSON text).',
    inputSchema,
  }
}

/**
 * The answers for every message of `seeds` and every message their
 * answers name in turn, and for each tool of `tools`; each answer is at
 * most `budget` tokens (a message whose own fields do not fit comes in
 * parts, each naming the next).
 *
 * An answer is made when it is first read (docs/internals.md, "Start-up"):
 * a server starts without them, and only a type tool call or a resource
 * read pays for the one it asks. The names are known at once: every seed,
 * when the seeds already hold every message an answer can name (see
 * {@link namesAllSeeds}), each in one text when its root with every
 * message cut fits at the last level (else its parts are made now), and
 * each tool. Otherwise every answer is made now, as the queue finds them.
 * Either way each answer's text is the same: it depends only on its name.
 */
export function buildTypeDetail(
  model: ProtoModel,
  seeds: Iterable<string>,
  tools: readonly DetailedTool[],
  options: TypeDetailOptions,
): TypeDetailSpec {
  const { profile, budget, toolName } = options
  // Inlined once: the budget never opens a message inside itself.
  const schemaAt = (type: string, descriptions: DescriptionLevel, comments?: Set<string>): JsonSchema =>
    advertise(messageSchema(model, type, { profile, mode: 'input', marks: true, descriptions, recursionDepth: 1, comments }), profile)
  // Each message's schema at the first level, once: a tool's answer and its request's answer start from the same one.
  const whole = new Map<string, { schema: JsonSchema; comments: Set<string> }>()
  const fit = (type: string, frame: (schema: JsonSchema, level: DescriptionLevel) => string): Fitted & { level: DescriptionLevel } => {
    let first = whole.get(type)
    if (first === undefined) {
      const comments = new Set<string>()
      whole.set(type, (first = { schema: schemaAt(type, DESCRIPTION_LEVELS[0]!, comments), comments }))
    }
    return fitLevels(
      DESCRIPTION_LEVELS,
      levelSchemas(DESCRIPTION_LEVELS[0]!, first.schema, first.comments, (level) => schemaAt(type, level)),
      (level) => ({ budget, typeTool: toolName, frame: (schema) => frame(schema, level) }),
    )
  }
  const answerTool = (tool: DetailedTool): { text: string; cuts: readonly Cut[] } => {
    // The tool's whole description while the schema's own comments are; its first paragraph after.
    const frame = (schema: JsonSchema, level: DescriptionLevel): string =>
      JSON.stringify({
        tool: tool.name,
        description: level === 'full' || tool.comment === null ? tool.description : (descriptionAt(tool.comment, level) ?? ''),
        type: tool.requestType,
        schema,
      })
    const fitted = fit(tool.requestType, frame)
    return { text: frame(fitted.schema, fitted.level), cuts: fitted.cuts }
  }
  // A message's answer: one text, or its parts (`type`, `type#2`, ...) when even its own fields pass the budget.
  const answerType = (type: string): { texts: [string, string][]; cuts: readonly Cut[] } => {
    const frame = (schema: JsonSchema): string => JSON.stringify({ type, schema })
    const fitted = fit(type, frame)
    if (!fitted.over) return { texts: [[type, frame(fitted.schema)]], cuts: fitted.cuts }
    // Counted with the longest part texts, a few tokens spare: joins of JSON count nearly, not exactly.
    const parts = splitFields(
      fitted.schema,
      (schema) => countTokens(JSON.stringify({ type, part: '99 of 99', next: `${type}#99`, schema })),
      budget - 8,
    )
    const texts = parts.map((schema, i): [string, string] => {
      const key = i === 0 ? type : `${type}#${i + 1}`
      const next = i + 1 < parts.length ? { next: `${type}#${i + 2}` } : {}
      return [key, JSON.stringify({ type, part: `${i + 1} of ${parts.length}`, ...next, schema })]
    })
    return { texts, cuts: fitted.cuts }
  }
  const listing = typeToolListing(toolName, profile)
  const seedList = [...seeds]
  if (options.eager || !namesAllSeeds(model, seedList, tools, profile)) {
    const answers: Record<string, string> = {}
    const queue = [...seedList]
    const follow = (cuts: readonly Cut[]): void => {
      for (const cut of cuts) if (!Object.hasOwn(answers, cut.type)) queue.push(cut.type)
    }
    for (const tool of tools) {
      const answer = answerTool(tool)
      answers[tool.name] = answer.text
      follow(answer.cuts)
    }
    while (queue.length > 0) {
      const type = queue.shift()!
      if (Object.hasOwn(answers, type) || !model.messages.has(type)) continue
      const answer = answerType(type)
      follow(answer.cuts)
      for (const [key, text] of answer.texts) answers[key] = text
    }
    return { tool: listing, answers: sortKeys(answers) }
  }
  // Each name's text, or how it is made when first read.
  const made = new Map<string, string | (() => string)>()
  for (const tool of tools) made.set(tool.name, () => answerTool(tool).text)
  const last = DESCRIPTION_LEVELS[DESCRIPTION_LEVELS.length - 1]!
  for (const type of seedList) {
    if (made.has(type)) continue
    // Within the budget with every message cut and no comments: the answer is one text (fitLevels stops at a level that fits).
    const alone = rootAlone(
      advertise(
        messageSchema(model, type, { profile, mode: 'input', marks: true, descriptions: last, recursionDepth: 1, stubsBelow: 1 }),
        profile,
      ),
      toolName,
    )
    if (fitsTokens(JSON.stringify({ type, schema: alone }), budget)) made.set(type, () => answerType(type).texts[0]![1])
    else for (const [key, text] of answerType(type).texts) made.set(key, text)
  }
  const answers: Record<string, string> = {}
  for (const key of [...made.keys()].sort()) {
    const make = made.get(key)!
    if (typeof make === 'string') {
      answers[key] = make
      continue
    }
    Object.defineProperty(answers, key, {
      enumerable: true,
      configurable: true,
      get: () => {
        const text = make()
        Object.defineProperty(answers, key, { value: text, enumerable: true, writable: true, configurable: true })
        return text
      },
    })
  }
  return { tool: listing, answers }
}

/**
 * Whether the answers' names are known without making them: every message
 * an answer can name as a placeholder (a message-typed field of a message
 * the seeds or the tools' requests reach, but a well-known type, which is
 * never a placeholder) is a seed, every seed is a message of the model, and
 * no tool's name is a seed's or another tool's (the first answer of a name
 * is the one kept). Then the queue of the eager build answers exactly the
 * seeds (and their parts) and the tools.
 */
function namesAllSeeds(model: ProtoModel, seeds: readonly string[], tools: readonly DetailedTool[], profile: Profile): boolean {
  const seedSet = new Set(seeds)
  const names = new Set<string>()
  for (const tool of tools) {
    if (seedSet.has(tool.name) || names.has(tool.name) || tool.name.includes('#')) return false
    names.add(tool.name)
  }
  if (seeds.some((type) => !model.messages.has(type))) return false
  const seen = new Set<string>()
  const queue = [...seeds, ...tools.map((t) => t.requestType)]
  while (queue.length > 0) {
    const name = queue.pop()!
    const message = model.messages.get(name)
    if (seen.has(name) || message === undefined) continue
    seen.add(name)
    for (const field of message.fields) {
      if (field.type.kind !== 'message') continue
      const type = field.type.typeName
      if (wellKnownSchema(type, profile, 'input') !== undefined || !model.messages.has(type)) continue
      if (!seedSet.has(type)) return false
      queue.push(type)
    }
  }
  return true
}

/** A root schema's properties in consecutive parts, each a schema whose count stays within `budget` (one property at least). */
function splitFields(schema: JsonSchema, count: (schema: JsonSchema) => number, budget: number): JsonSchema[] {
  const properties = (schema.properties ?? {}) as Record<string, unknown>
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : undefined
  const part = (names: string[]): JsonSchema => {
    const out: JsonSchema = { ...schema, properties: Object.fromEntries(names.map((n) => [n, properties[n]])) }
    if (required) out.required = required.filter((n) => names.includes(n))
    return sortKeys(out)
  }
  const parts: JsonSchema[] = []
  let names: string[] = []
  for (const name of Object.keys(properties)) {
    if (names.length > 0 && count(part([...names, name])) > budget) {
      parts.push(part(names))
      names = []
    }
    names.push(name)
  }
  parts.push(part(names))
  return parts
}
