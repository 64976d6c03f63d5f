/**
 * How a tool's JSON keys a proto2 extension field (docs/mapping.md, "Input
 * schema: the shape"): by its dotted full name (`ext.v1.author`, the full
 * name of the field its `extend` declares). Protobuf JSON brackets it
 * (`[ext.v1.author]`), which Anthropic refuses as a property key: it takes
 * `^[a-zA-Z0-9_.-]{1,64}$` only, and refuses the whole request otherwise.
 * A dotted name longer than 64 characters, or one a field of the extended
 * message already spells (an extension without a package), is keyed by
 * its number instead (`extension_100`). The bracketed form is kept for
 * protobufjs's `ext/protojson` at the codec's edge
 * (runtime/extension-keys.ts). protobufjs copies an extension into the
 * message it extends under its full name (`.ext.v1.author`), the field as
 * declared being the copy's `declaringField`.
 */

/** A field as protobufjs declares it: the parts of an extension's name. */
interface DeclaredField {
  readonly name: string
  readonly protoName?: string | null
  readonly parent: { readonly fullName: string } | null
}

/** A field of a message as protobufjs reflects it (an extension's copy among them). */
interface MessageField {
  readonly id: number
  readonly name: string
  readonly jsonName: string
  readonly protoName?: string | null
  readonly declaringField: DeclaredField | null
  /** The message (protobufjs's `Type`, with its `fieldsArray`). */
  readonly parent: object | null
}

/** The longest property key every client takes (Anthropic's limit). */
const MAX_KEY = 64

/** The full name (no leading dot) of the scope an extension is declared in: its package or message. */
export function extensionScope(declaring: DeclaredField): string {
  return declaring.parent?.fullName.slice(1) ?? ''
}

/** The dotted full name of the extension `declaring` declares; protobuf JSON keys it `[name]`. */
export function extensionName(declaring: DeclaredField): string {
  const scope = extensionScope(declaring)
  const name = declaring.protoName ?? declaring.name
  return scope === '' ? name : `${scope}.${name}`
}

const keys = new WeakMap<object, string>()

/**
 * The key a tool's JSON spells a field of a message with: its JSON name, or
 * an extension's dotted full name (its number past 64 characters or when a
 * field of the message spells that name).
 */
export function jsonKeyOf(field: MessageField): string {
  const declaring = field.declaringField
  if (declaring === null) return field.jsonName
  const known = keys.get(field)
  if (known !== undefined) return known
  const spelled = new Set<string>()
  for (const other of (field.parent as { fieldsArray?: readonly MessageField[] } | null)?.fieldsArray ?? [])
    if (other.declaringField === null) for (const name of [other.jsonName, other.name, other.protoName]) if (name) spelled.add(name)
  let key = extensionName(declaring)
  if (key.length > MAX_KEY || spelled.has(key)) {
    key = `extension_${field.id}`
    while (spelled.has(key)) key = `${key}_`
  }
  keys.set(field, key)
  return key
}
