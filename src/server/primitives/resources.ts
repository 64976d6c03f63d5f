/**
 * Resources with readers and prompts with getters, as immutable snapshots
 * like the tool set, and the results their readers' shorthands stand for.
 */
import { runtimeError } from '../../runtime/errors.ts'
import type { CallContext } from '../../runtime/types.ts'
import type { Completer } from './completer.ts'

/** A resource as `resources/list` shows it. */
export interface ResourceDefinition {
  uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  [key: string]: unknown
}

/** The contents of one resource read. */
export interface ResourceContents {
  uri: string
  mimeType?: string
  text?: string
  blob?: string
  [key: string]: unknown
}

/** Reads a resource: a string is its text, otherwise `{ contents }` as `resources/read` answers. */
export type ResourceReader<State = unknown> = (
  uri: string,
  context: CallContext & { state: State },
) => string | { contents: ResourceContents[] } | Promise<string | { contents: ResourceContents[] }>

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

/** A resource with its reader. */
export interface ResourceEntry {
  readonly resource: ResourceDefinition
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
  readonly read: ResourceReader<any>
  /** A type-detail resource (type-detail.ts): it comes and goes with its server's type tool. */
  readonly typeDetail?: true
}

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
}

/** Checks a resource before it is added. */
export function checkResource(resource: ResourceDefinition, read: unknown): ResourceEntry {
  if (typeof resource?.uri !== 'string' || resource.uri === '') throw runtimeError('BAD_SPEC', 'a resource needs a non-empty "uri"')
  if (typeof resource.name !== 'string') throw runtimeError('BAD_SPEC', `resource "${resource.uri}" needs a "name"`)
  try {
    new URL(resource.uri)
  } catch {
    throw runtimeError('BAD_SPEC', `resource uri "${resource.uri}" is not a URI`)
  }
  if (typeof read !== 'function') throw runtimeError('BAD_SPEC', `resource "${resource.uri}" has no reader function`)
  return { resource: { ...resource }, read: read as ResourceReader }
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

/** `map` plus `[key, value]`, or an error when the key is taken. */
export function withEntry<V>(map: ReadonlyMap<string, V>, key: string, value: V, what: string): Map<string, V> {
  if (map.has(key)) throw runtimeError('BAD_SPEC', `${what} "${key}" is already defined: remove it first`)
  return new Map(map).set(key, value)
}

/** `map` without `key` (the same map when it was absent). */
export function withoutEntry<V>(map: ReadonlyMap<string, V>, key: string): ReadonlyMap<string, V> {
  if (!map.has(key)) return map
  const next = new Map(map)
  next.delete(key)
  return next
}

/** The `resources/read` result of a reader's return value. */
export function readResult(resource: ResourceDefinition, value: unknown): { contents: ResourceContents[] } {
  if (typeof value === 'string') {
    const contents: ResourceContents = { uri: resource.uri, text: value }
    if (resource.mimeType !== undefined) contents.mimeType = resource.mimeType
    return { contents: [contents] }
  }
  return value as { contents: ResourceContents[] }
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
