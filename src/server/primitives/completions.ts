/**
 * `completion/complete`: suggestions for a prompt's arguments and a
 * resource template's variables, from completers given where the prompt
 * or template is added.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { CallContext } from '../../runtime/types.ts'
import type { PromptEntry } from './prompts.ts'
import type { Completer } from './completer.ts'
import type { TemplateEntry } from './resource-templates.ts'

/** What `completion/complete` answers. */
export interface CompletionResult {
  completion: { values: string[]; total?: number; hasMore?: boolean }
}

/** The spec's cap on the values one answer carries. */
const MAX_VALUES = 100

/** The `completion/complete` params the handler reads. */
export interface CompleteParams {
  ref: { type: string; name?: string; uri?: string }
  argument: { name: string; value: string }
  context?: { arguments?: Record<string, string> }
}

/**
 * Answers one `completion/complete`: the completer of the referenced prompt
 * argument or template variable, capped at 100 values; no completer is an
 * empty answer. An unknown prompt or template is `-32602`.
 */
export async function complete(
  params: CompleteParams,
  lists: { prompts: ReadonlyMap<string, PromptEntry>; templates: ReadonlyMap<string, TemplateEntry> },
  context: CallContext & { state: unknown },
): Promise<CompletionResult> {
  const { ref, argument } = params
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- completers of every argument type share one table
  let completer: Completer<any> | undefined
  if (ref.type === 'ref/prompt') {
    const entry = lists.prompts.get(ref.name ?? '')
    if (entry === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Prompt ${ref.name} not found`)
    completer = entry.complete?.[argument.name]
  } else if (ref.type === 'ref/resource') {
    const entry = [...lists.templates.values()].find((t) => t.template.uriTemplate === ref.uri)
    if (entry === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Resource template ${ref.uri} not found`)
    completer = entry.complete[argument.name]
  } else {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `unknown completion reference type "${ref.type}"`)
  }
  if (completer === undefined) return { completion: { values: [], total: 0, hasMore: false } }
  const all = [...(await completer(argument.value, { ...context, arguments: params.context?.arguments ?? {} }))]
  const values = all.slice(0, MAX_VALUES)
  return { completion: { values, total: all.length, hasMore: all.length > values.length } }
}
