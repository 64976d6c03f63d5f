/**
 * Prompts with getters (`prompts/list`, `prompts/get`) and the completers
 * of their arguments, as immutable snapshots like the tool set, and the
 * result a getter's shorthand stands for.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { nearestName } from '../../contract/nearest.ts'
import { renderTemplate, type PromptSpec } from '../../contract/prompt-template.ts'
import { runtimeError } from '../../runtime/errors.ts'
import type { CallContext } from '../../runtime/types.ts'
import type { Completer } from './completer.ts'

/** A prompt as `prompts/list` shows it. */
export interface PromptDefinition {
  name: string
  title?: string
  description?: string
  arguments?: Array<{ name: string; description?: string; required?: boolean }>
  [key: string]: unknown
}

/** One message of a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant'
  content: { type: string; [key: string]: unknown }
}

/** Gets a prompt: a string is one user text message, otherwise `{ messages }` as `prompts/get` answers. */
export type PromptGetter<State = unknown> = (
  args: Record<string, string>,
  context: CallContext & { state: State },
) => string | { description?: string; messages: PromptMessage[] } | Promise<string | { description?: string; messages: PromptMessage[] }>

/** Options of a prompt. */
export interface PromptOptions<State = unknown> {
  /** Completers of the prompt's arguments, by argument name (`completion/complete`). @default none */
  complete?: Record<string, Completer<State>>
}

/** A prompt with its getter and argument completers. */
export interface PromptEntry {
  readonly prompt: PromptDefinition
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
  readonly get: PromptGetter<any>
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
  readonly complete?: Readonly<Record<string, Completer<any>>>
  /** A prompt of the proto (`(proto_mcp.prompt)`): it comes and goes with its server's tools (`replaceTools`, hot reload). */
  readonly fromProto?: true
}

/** Checks a prompt before it is added. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
export function checkPrompt(prompt: PromptDefinition, get: unknown, options: PromptOptions<any> = {}): PromptEntry {
  if (typeof prompt?.name !== 'string' || prompt.name === '') throw runtimeError('BAD_SPEC', 'a prompt needs a non-empty "name"')
  if (typeof get !== 'function') throw runtimeError('BAD_SPEC', `prompt "${prompt.name}" has no getter function`)
  if (options.complete === undefined) return { prompt: { ...prompt }, get: get as PromptGetter }
  const names = new Set((prompt.arguments ?? []).map((a) => a.name))
  for (const [name, completer] of Object.entries(options.complete)) {
    if (!names.has(name)) throw runtimeError('BAD_SPEC', `prompt "${prompt.name}" has no argument "${name}" to complete`)
    if (typeof completer !== 'function')
      throw runtimeError('BAD_SPEC', `prompt "${prompt.name}": the completer of "${name}" is not a function`)
  }
  return { prompt: { ...prompt }, get: get as PromptGetter, complete: { ...options.complete } }
}

/** The `prompts/get` result of a getter's return value. */
export function promptResult(prompt: PromptDefinition, value: unknown): { description?: string; messages: PromptMessage[] } {
  if (typeof value === 'string') {
    const result: { description?: string; messages: PromptMessage[] } = {
      messages: [{ role: 'user', content: { type: 'text', text: value } }],
    }
    if (prompt.description !== undefined) result.description = prompt.description
    return result
  }
  return value as { messages: PromptMessage[] }
}

/**
 * The entries of a spec's prompts (`(proto_mcp.prompt)` options): each gets
 * its text with the given arguments in its placeholders (the build checked
 * that each names an argument; `prompts/get` refuses a missing required one),
 * and enum arguments complete to their values.
 */
export function protoPromptEntries(prompts: readonly PromptSpec[]): PromptEntry[] {
  return prompts.map(({ text, values, ...prompt }) => ({
    prompt,
    get: (args: Record<string, string>) => renderTemplate(text, checkedArguments(prompt, values, args)),
    // An enum argument completes to its values starting with what was typed (any case).
    ...(values === undefined
      ? {}
      : {
          complete: Object.fromEntries(
            Object.entries(values).map(([name, names]) => [
              name,
              (typed: string) => names.filter((v) => v.toLowerCase().startsWith(typed.toLowerCase())),
            ]),
          ),
        }),
    fromProto: true as const,
  }))
}

/**
 * The arguments of a proto prompt's `prompts/get`, checked as its fields
 * would be (docs/guide/resources.md, "Prompts from the proto"): each one the
 * prompt has, an enum's one of its values, a required one not empty; else
 * `-32602` saying which and what it takes.
 */
function checkedArguments(
  prompt: PromptDefinition,
  values: Readonly<Record<string, readonly string[]>> | undefined,
  args: Record<string, string>,
): Record<string, string> {
  const names = (prompt.arguments ?? []).map((a) => a.name)
  const refuse = (text: string): never => {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${prompt.name}: ${text}`)
  }
  for (const [name, value] of Object.entries(args)) {
    if (!names.includes(name)) {
      const near = nearestName(name, names)
      refuse(
        `unknown argument "${name}"${near === undefined ? '' : ` (did you mean "${near}"?)`}; its arguments are ${names.join(', ') || 'none'}`,
      )
    }
    const allowed = values?.[name]
    if (allowed !== undefined && !allowed.includes(value)) refuse(`argument "${name}" must be one of ${allowed.join(', ')}, got "${value}"`)
  }
  for (const arg of prompt.arguments ?? []) if (arg.required && args[arg.name] === '') refuse(`required argument "${arg.name}" is empty`)
  return args
}
