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
import { fitLevels } from './budget.ts'
import type { Cut, Fitted } from './budget.ts'
import { descriptionAt, DESCRIPTION_LEVELS, levelSchemas } from './descriptions.ts'
import type { DescriptionLevel } from './descriptions.ts'
import { messageSchema } from './message-schema.ts'
import { sortKeys } from './sort-keys.ts'
import { countTokens } from './tokens.ts'

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
  const answers: Record<string, string> = {}
  const queue = [...seeds]
  const follow = (cuts: readonly Cut[]): void => {
    for (const cut of cuts) if (!Object.hasOwn(answers, cut.type)) queue.push(cut.type)
  }
  for (const tool of tools) {
    // The tool's whole description while the schema's own comments are; its first paragraph after.
    const frame = (schema: JsonSchema, level: DescriptionLevel): string =>
      JSON.stringify({
        tool: tool.name,
        description: level === 'full' || tool.comment === null ? tool.description : (descriptionAt(tool.comment, level) ?? ''),
        type: tool.requestType,
        schema,
      })
    const fitted = fit(tool.requestType, frame)
    answers[tool.name] = frame(fitted.schema, fitted.level)
    follow(fitted.cuts)
  }
  while (queue.length > 0) {
    const type = queue.shift()!
    if (Object.hasOwn(answers, type) || !model.messages.has(type)) continue
    const frame = (schema: JsonSchema): string => JSON.stringify({ type, schema })
    const fitted = fit(type, frame)
    follow(fitted.cuts)
    if (!fitted.over) {
      answers[type] = frame(fitted.schema)
      continue
    }
    // Even its own fields pass the budget: the answer comes in parts, each naming the next.
    // Counted with the longest part texts, a few tokens spare: joins of JSON count nearly, not exactly.
    const parts = splitFields(
      fitted.schema,
      (schema) => countTokens(JSON.stringify({ type, part: '99 of 99', next: `${type}#99`, schema })),
      budget - 8,
    )
    parts.forEach((schema, i) => {
      const key = i === 0 ? type : `${type}#${i + 1}`
      const next = i + 1 < parts.length ? { next: `${type}#${i + 2}` } : {}
      answers[key] = JSON.stringify({ type, part: `${i + 1} of ${parts.length}`, ...next, schema })
    })
  }
  return { tool: typeToolListing(toolName, profile), answers: sortKeys(answers) }
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
