/**
 * Prompts from the proto (docs/guide/resources.md, Prompts): the spec a
 * `(proto_mcp.prompt)` option becomes, and its template grammar, which the
 * build checks and the server renders. A placeholder is `{{name}}` (spaces
 * inside the braces allowed), `name` an argument's name; any other text,
 * braces too, is the prompt's text as written.
 */

/** One prompt of a spec: what `prompts/list` shows, and its template. */
export interface PromptSpec {
  name: string
  title?: string
  description?: string
  /** The arguments, in field order; `required` only when true. */
  arguments?: Array<{ name: string; description?: string; required?: boolean }>
  /** The text, `{{argument}}` placeholders naming arguments only (the build checked them). */
  text: string
  /** The values of enum arguments, by argument name: `completion/complete` suggests them. */
  values?: Record<string, string[]>
}

const PLACEHOLDER_RE = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g

/** The placeholders of `text`, each with the name it gives and its offset. */
export function templatePlaceholders(text: string): Array<{ name: string; index: number }> {
  return [...text.matchAll(PLACEHOLDER_RE)].map((m) => ({ name: m[1]!, index: m.index }))
}

/** `text` with each placeholder replaced by its argument's value (`""` for an argument not given). */
export function renderTemplate(text: string, args: Readonly<Record<string, string | undefined>>): string {
  return text.replace(PLACEHOLDER_RE, (_, name: string) => (Object.hasOwn(args, name) ? (args[name] ?? '') : ''))
}
