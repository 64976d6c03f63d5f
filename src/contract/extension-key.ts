/**
 * The protobuf JSON key of a proto2 extension field: `[pkg.name]`, the full
 * name of the field its `extend` declares, in brackets (docs/mapping.md,
 * "Input schema: the shape"). protobufjs copies an extension into the
 * message it extends under its full name (`.pkg.name`, its `declaringField`
 * being the field as declared); its `ext/protojson` reads and writes the
 * bracketed key only. The input schema, the decoder's checks and the error
 * paths spell it with this one function.
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

/** The bracketed key of the extension `declaring` declares. */
export function extensionKey(declaring: DeclaredField): string {
  const scope = extensionScope(declaring)
  const name = declaring.protoName ?? declaring.name
  return `[${scope === '' ? name : `${scope}.${name}`}]`
}

/** The key protobuf JSON spells a field of a message with: its JSON name, or an extension's bracketed key. */
export function protoJsonKey(field: { readonly jsonName: string; readonly declaringField: DeclaredField | null }): string {
  return field.declaringField === null ? field.jsonName : extensionKey(field.declaringField)
}
