/**
 * The protobufjs JSON descriptor of every type a `.proto` and its imports declare, for the
 * runtime's `protobuf.Root.fromJSON(descriptor)` + `ext/protojson` codec.
 */
import protobuf from 'protobufjs'

type Json = Record<string, unknown>

/** A long-running RPC's response (`google/longrunning/operations.proto`), the requests polling and cancelling it take, and its option naming its types. */
const LRO_OPERATION = '.google.longrunning.Operation'
const LRO_REQUESTS = ['.google.longrunning.GetOperationRequest', '.google.longrunning.CancelOperationRequest']
const LRO_INFO_OPTION = '(google.longrunning.operation_info)'

/** descriptor.proto's option messages, which custom options extend. */
const OPTIONS_TYPE_RE = /^google\.protobuf\.\w+Options$/

/** Keys whose children protobufjs reads in order (field order is output order; enum aliases). */
const ORDERED_KEYS = new Set(['fields', 'values'])

/**
 * Builds the descriptor of every message and enum in `root`: every type of
 * the imported file, of all the files it imports (transitively) and the
 * well-known types, so an `Any` can pack any of them as protojson resolves
 * from Go's global registry; types of `optionOnly` files only when used. protobufjs's default form (lowerCamel field
 * names with `protoName`), field types fully qualified. Keys are sorted,
 * except inside `fields` and `values`, which keep declaration order.
 */
export function buildDescriptor(root: protobuf.Root, optionOnly: ReadonlySet<string> = new Set()): Json {
  const reached = new Set<string>()
  const reach = (type: protobuf.Type | protobuf.Enum): void => {
    const name = type.fullName.slice(1)
    if (reached.has(name)) return
    reached.add(name)
    if (type instanceof protobuf.Type) {
      for (const field of type.fieldsArray) {
        const used = field.resolvedType
        if (used instanceof protobuf.Type || used instanceof protobuf.Enum) reach(used)
      }
    }
  }
  const visit = (ns: protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      // Types of files imported only for their options (validate.proto) stay
      // out unless another type uses them.
      const skip = nested.filename != null && optionOnly.has(nested.filename)
      if ((nested instanceof protobuf.Type || nested instanceof protobuf.Enum) && !skip) reach(nested)
      // An RPC uses its request and response types too, and a long-running one what polling and cancelling it take.
      if (nested instanceof protobuf.Service && !skip) for (const method of nested.methodsArray) reachMethod(method)
      if (nested instanceof protobuf.Namespace) visit(nested)
    }
  }
  const reachNamed = (name: string, from: protobuf.ReflectionObject): void => {
    const found = from.parent?.lookup(name)
    if (found instanceof protobuf.Type || found instanceof protobuf.Enum) reach(found)
  }
  const reachMethod = (method: protobuf.Method): void => {
    method.resolve()
    if (method.resolvedRequestType) reach(method.resolvedRequestType)
    if (method.resolvedResponseType) reach(method.resolvedResponseType)
    if (method.resolvedResponseType?.fullName !== LRO_OPERATION) return
    for (const name of LRO_REQUESTS) reachNamed(name, method)
    for (const key of ['response_type', 'metadata_type']) {
      const name = method.options?.[`${LRO_INFO_OPTION}.${key}`]
      if (typeof name === 'string') reachNamed(name, method.parent!)
    }
  }
  visit(root)

  const top: Json = {}
  const extensions: protobuf.Field[] = []
  for (const fullName of [...reached].sort()) {
    const obj = root.lookup(fullName)
    if (!(obj instanceof protobuf.Type) && !(obj instanceof protobuf.Enum)) continue
    const node = nodeFor(top, fullName.split('.'))
    Object.assign(node, typeJson(obj))
    if (obj instanceof protobuf.Type && !OPTIONS_TYPE_RE.test(fullName))
      for (const field of obj.fieldsArray) if (field.declaringField) extensions.push(field.declaringField)
  }
  // A reached message's extensions, where their `extend` declares them: protobufjs copies
  // each into the message again when the runtime loads the descriptor (a type's JSON leaves them out).
  // Custom options (extensions of descriptor.proto's `*Options`) are read at build time only.
  for (const field of extensions) Object.assign(nodeFor(top, field.fullName.slice(1).split('.')), extensionJson(field))
  return sortDescriptor({ nested: top }) as Json
}

/** An extension field's own JSON, its type and the type it extends fully qualified. */
function extensionJson(field: protobuf.Field): Json {
  const json = field.toJSON({ keepComments: false }) as unknown as Json
  if (field.resolvedType) json.type = field.resolvedType.fullName
  if (field.extensionField?.parent) json.extend = field.extensionField.parent.fullName
  return json
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

function sortDescriptor(value: unknown, keepOrder = false): unknown {
  if (Array.isArray(value)) return value.map((v) => sortDescriptor(v))
  if (value === null || typeof value !== 'object') return value
  const keys = Object.keys(value)
  const out: Json = {}
  for (const key of keepOrder ? keys : keys.sort()) out[key] = sortDescriptor((value as Json)[key], !keepOrder && ORDERED_KEYS.has(key))
  return out
}
