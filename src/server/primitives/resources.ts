/**
 * Resources with readers, as immutable snapshots like the tool set, the
 * result a reader's shorthand stands for, and the snapshot map helpers
 * resources, prompts (prompts.ts) and templates share.
 */
import { runtimeError } from '../../runtime/errors.ts'
import type { CallContext } from '../../runtime/types.ts'

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

/** A resource with its reader. */
export interface ResourceEntry {
  readonly resource: ResourceDefinition
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- readers and completers of every state type share one table
  readonly read: ResourceReader<any>
  /** A type-detail resource (type-detail.ts): it comes and goes with its server's type tool. */
  readonly typeDetail?: true
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
