import protobuf from 'protobufjs'
import { describe, expect, it } from 'vitest'
import { isClosedEnum } from '../../src/codegen/emit-codec.ts'

/** Files whose enums protobufjs decodes closed or open, each with a message `M` holding a field `e` of the enum named in `enums`. */
const FILES: Array<{ name: string; text: string; enums: Record<string, boolean> }> = [
  {
    name: 'proto2: top-level and nested enums are closed',
    text: 'syntax = "proto2"; package p; enum Top { T0 = 0; T1 = 1; } message M { enum In { I0 = 0; } optional Top e = 1; optional In f = 2; }',
    enums: { 'p.Top': true, 'p.M.In': true },
  },
  {
    name: 'no syntax statement is proto2',
    text: 'package q; enum Top { T0 = 0; } message M { optional Top e = 1; }',
    enums: { 'q.Top': true },
  },
  {
    name: 'proto3: open',
    text: 'syntax = "proto3"; package r; enum Top { T0 = 0; } message M { enum In { I0 = 0; } Top e = 1; In f = 2; }',
    enums: { 'r.Top': false, 'r.M.In': false },
  },
  {
    name: 'edition 2023: open unless a feature says closed (enum, message or file)',
    text:
      'edition = "2023"; package s; enum Top { T0 = 0; } enum Shut { option features.enum_type = CLOSED; S0 = 0; } ' +
      'message M { option features.enum_type = CLOSED; enum In { I0 = 0; } enum Ajar { option features.enum_type = OPEN; A0 = 0; } ' +
      'Top e = 1; Shut f = 2; In g = 3; Ajar h = 4; }',
    enums: { 's.Top': false, 's.Shut': true, 's.M.In': true, 's.M.Ajar': false },
  },
  {
    name: 'edition 2023 with a file-level feature',
    text: 'edition = "2023"; package t; option features.enum_type = CLOSED; enum Top { T0 = 0; } message M { enum In { I0 = 0; } Top e = 1; In f = 2; }',
    enums: { 't.Top': true, 't.M.In': true },
  },
]

/** As emitCodecs reads a file: its protobufjs JSON, read back. */
const reread = (text: string): protobuf.Root => protobuf.Root.fromJSON(protobuf.parse(text, { keepCase: true }).root.toJSON())

/** What protobufjs's decoder does with an unknown number (99) in each enum field of `M`: drops it (closed) or keeps it (open). */
function decodesClosed(root: protobuf.Root, pkg: string): Record<string, boolean> {
  const type = root.lookupType(`${pkg}.M`)
  const out: Record<string, boolean> = {}
  for (const field of type.fieldsArray) {
    const enm = field.resolve().resolvedType as protobuf.Enum
    const bytes = protobuf.Writer.create()
      .uint32((field.id << 3) | 0)
      .int32(99)
      .finish()
    const decoded = type.decode(bytes) as unknown as Record<string, unknown>
    out[enm.fullName.slice(1)] = decoded[field.name] !== 99
  }
  return out
}

describe('isClosedEnum (emit-codec): closed exactly where protobufjs decodes closed, from public members', () => {
  for (const file of FILES) {
    it(file.name, () => {
      const root = reread(file.text)
      const pkg = Object.keys(file.enums)[0]!.split('.')[0]!
      const ours = Object.fromEntries(Object.keys(file.enums).map((name) => [name, isClosedEnum(root.lookupEnum(name))]))
      expect(ours).toEqual(file.enums)
      // The expectations are protobufjs's own: its decoder keeps an unknown number only in an open enum.
      expect(decodesClosed(root, pkg)).toEqual(file.enums)
    })
  }
})
