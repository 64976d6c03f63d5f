/**
 * How a tool's JSON keys a proto2 extension field: by its dotted full name
 * (`ext.v1.author`, the full name of the field its `extend` declares;
 * docs/mapping.md, "Input schema: the shape"). Protobuf JSON brackets it
 * (`[ext.v1.author]`), which Anthropic refuses as a property key (it takes
 * `^[a-zA-Z0-9_.-]{1,64}$` only, and refuses the whole request): the
 * bracketed form is kept for protobufjs's `ext/protojson` at the codec's
 * edge (runtime/extension-keys.ts). protobufjs copies an extension into the
 * message it extends under its full name (`.ext.v1.author`), the field as
 * declared being the copy's `declaringField`.
 */

/** A field as protobufjs declares it: the parts of an extension's key. */
interface DeclaredField {
  readonly name: string
  readonly protoName?: string | null
  readonly parent: { readonly fullName: string } | null
}

/** The full name (no leading dot) of the scope an extension is declared in: its package or message. */
export function extensionScope(declaring: DeclaredField): string {
  return declaring.parent?.fullName.slice(1) ?? ''
}

/** The key of the extension `declaring` declares: its dotted full name. */
export function extensionKey(declaring: DeclaredField): string {
  const scope = extensionScope(declaring)
  const name = declaring.protoName ?? declaring.name
  return scope === '' ? name : `${scope}.${name}`
}

/** The key a tool's JSON spells a field of a message with: its JSON name, or an extension's dotted full name. */
export function jsonKeyOf(field: { readonly jsonName: string; readonly declaringField: DeclaredField | null }): string {
  return field.declaringField === null ? field.jsonName : extensionKey(field.declaringField)
}
