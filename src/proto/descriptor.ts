/**
 * The protobufjs JSON descriptor of the types a model's RPCs reach, for the
 * runtime's `protobuf.Root.fromJSON(descriptor)` + `ext/protojson` codec.
 */
import protobuf from 'protobufjs'
import type { ProtoModel } from './model.ts'

type Json = Record<string, unknown>

/** Keys whose children protobufjs reads in order (field order is output order; enum aliases). */
const ORDERED_KEYS = new Set(['fields', 'values'])

/**
 * Builds the descriptor of every message and enum reached from the request
 * and response types of the model's services' methods (transitively,
 * well-known types included), in protobufjs's default form (lowerCamel field
 * names with `protoName`), field types fully qualified. Keys are sorted,
 * except inside `fields` and `values`, which keep declaration order.
 */
export function buildDescriptor(root: protobuf.Root, model: ProtoModel): Json {
  const reached = new Set<string>()
  const visit = (fullName: string): void => {
    if (reached.has(fullName)) return
    reached.add(fullName)
    const message = model.messages.get(fullName)
    if (!message) return
    for (const field of message.fields) {
      if (field.type.kind !== 'scalar') visit(field.type.typeName)
    }
  }
  for (const service of model.services) {
    for (const method of service.methods) {
      visit(method.requestType)
      visit(method.responseType)
    }
  }

  const top: Json = {}
  for (const fullName of [...reached].sort()) {
    const obj = root.lookup(fullName)
    if (!(obj instanceof protobuf.Type) && !(obj instanceof protobuf.Enum)) continue
    const node = nodeFor(top, fullName.split('.'))
    Object.assign(node, typeJson(obj))
    // A nested type whose parent is not emitted loses the parent's edition.
    const edition = topLevelEdition(obj)
    if (edition && edition !== 'proto3' && !reachedTopLevel(obj, reached)) node.edition = edition
  }
  return sortDescriptor({ nested: top }) as Json
}

/** The JSON node at `path` under `top`, creating `{ nested }` namespaces on the way. */
function nodeFor(top: Json, path: string[]): Json {
  let nested = top
  let node: Json = {}
  for (const [i, part] of path.entries()) {
    node = (nested[part] ??= {}) as Json
    if (i < path.length - 1) nested = (node.nested ??= {}) as Json
  }
  return node
}

/** A type's or enum's own JSON (no comments, no nested types), field types fully qualified. */
function typeJson(obj: protobuf.Type | protobuf.Enum): Json {
  const json = obj.toJSON({ keepComments: false }) as unknown as Json
  delete json.nested
  if (obj instanceof protobuf.Type) {
    const fields = json.fields as Record<string, Json>
    for (const field of obj.fieldsArray) {
      const fieldJson = fields[field.name]
      if (fieldJson && field.resolvedType) fieldJson.type = field.resolvedType.fullName
    }
  }
  return json
}

function topLevelEdition(obj: protobuf.ReflectionObject): string | null {
  let top = obj
  while (top.parent && !(top.parent instanceof protobuf.Root) && top.parent instanceof protobuf.Type) top = top.parent
  return (top as unknown as { _edition: string | null })._edition ?? null
}

/** True when the type's top-level ancestor message is emitted too (and carries the edition). */
function reachedTopLevel(obj: protobuf.ReflectionObject, reached: Set<string>): boolean {
  let top = obj
  while (top.parent instanceof protobuf.Type) top = top.parent
  return top !== obj && reached.has(top.fullName.slice(1))
}

function sortDescriptor(value: unknown, keepOrder = false): unknown {
  if (Array.isArray(value)) return value.map(v => sortDescriptor(v))
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value)
  const out: Json = {}
  for (const key of keepOrder ? keys : keys.sort())
    out[key] = sortDescriptor((value as Json)[key], !keepOrder && ORDERED_KEYS.has(key))
  return out
}
