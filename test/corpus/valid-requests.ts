/**
 * Valid requests of real protos, made with protobuf-es (@bufbuild/protobuf)
 * from buf's descriptors: a random message (test/protojson/arbitrary.ts)
 * with OUTPUT_ONLY fields cleared and REQUIRED ones set, as protobuf JSON.
 * detail.test.ts and discovery.test.ts send them.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { create, fromBinary, isFieldSet, toJson, type DescField, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf'
import { createFileRegistry, type FileRegistry } from '@bufbuild/protobuf'
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt'
import { REPO } from '../helpers/repo.ts'
import { CORPUS, GOOGLE_PROTOS } from './corpus.ts'

/** The descriptors of `protos` (paths under `root`; the corpus by default) as buf builds them, one registry. */
export function corpusRegistry(root = GOOGLE_PROTOS, protos: readonly string[] = CORPUS): FileRegistry {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(REPO, '.tmp', 'buf-corpus-'))
  try {
    const out = join(dir, 'set.binpb')
    const args = ['build', root, ...protos.flatMap((p) => ['--path', join(root, p)]), '-o', out]
    execFileSync(join(REPO, 'node_modules', '.bin', 'buf'), args, { cwd: REPO, stdio: ['ignore', 'ignore', 'pipe'] })
    return createFileRegistry(fromBinary(FileDescriptorSetSchema, readFileSync(out)))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** `google.api.field_behavior` of a field, as numbers (2 REQUIRED, 3 OUTPUT_ONLY). */
function behaviors(field: DescField): number[] {
  const options = field.proto.options as unknown as { $unknown?: { no: number; data: Uint8Array }[] } | undefined
  const out: number[] = []
  for (const u of options?.$unknown ?? []) {
    if (u.no !== 1052) continue
    // A varint or a packed run of varints (enum values are small).
    const bytes = u.data
    for (let i = 0; i < bytes.length; i++) if (bytes[i]! < 0x80 && (i === 0 || bytes[i - 1]! < 0x80)) out.push(bytes[i]!)
  }
  return out
}

/** A valid request: OUTPUT_ONLY fields cleared, REQUIRED ones set, in every message set. */
function makeValid(desc: DescMessage, message: Message, depth = 0): void {
  const m = message as unknown as Record<string, unknown>
  for (const field of desc.fields) {
    const b = behaviors(field)
    if (b.includes(3)) {
      if (field.oneof) {
        const o = m[field.oneof.localName] as { case?: string }
        if (o.case === field.localName) m[field.oneof.localName] = { case: undefined }
      } else m[field.localName] = create(desc, {} as never)[field.localName as never]
      continue
    }
    if (b.includes(2) && !isFieldSet(message, field)) {
      if (field.oneof && (m[field.oneof.localName] as { case?: string }).case !== undefined) continue
      const value = requiredValue(field)
      if (value !== undefined) {
        if (field.oneof) m[field.oneof.localName] = { case: field.localName, value }
        else m[field.localName] = value
      }
    }
  }
  if (depth > 8) return
  for (const field of desc.fields) {
    const value = field.oneof
      ? (m[field.oneof.localName] as { case?: string; value?: unknown }).case === field.localName
        ? (m[field.oneof.localName] as { value: unknown }).value
        : undefined
      : m[field.localName]
    if (field.fieldKind === 'message' && value && typeof value === 'object' && '$typeName' in value)
      makeValid(field.message, value as Message, depth + 1)
    if (field.fieldKind === 'list' && field.listKind === 'message')
      for (const item of value as Message[]) makeValid(field.message, item, depth + 1)
    if (field.fieldKind === 'map' && field.mapKind === 'message')
      for (const item of Object.values(value as Record<string, Message>)) makeValid(field.message, item, depth + 1)
  }
}

const WRAPPED: Record<string, unknown> = {
  'google.protobuf.Int32Value': 1,
  'google.protobuf.UInt32Value': 1,
  'google.protobuf.Int64Value': 1n,
  'google.protobuf.UInt64Value': 1n,
  'google.protobuf.FloatValue': 1,
  'google.protobuf.DoubleValue': 1,
  'google.protobuf.BoolValue': true,
  'google.protobuf.StringValue': 'x',
  'google.protobuf.BytesValue': new Uint8Array([1]),
}

/** A non-default value of a scalar type (bufbuild's representation). */
const scalarValue = (scalar: number): unknown =>
  scalar === 9 ? 'x' : scalar === 8 ? true : scalar === 12 ? new Uint8Array([1]) : [3, 4, 6, 16, 18].includes(scalar) ? 1n : 1

/** A set value for a REQUIRED field that was left unset. */
function requiredValue(field: DescField): unknown {
  switch (field.fieldKind) {
    case 'scalar':
      return scalarValue(field.scalar)
    case 'enum':
      return field.enum.values.find((v) => v.number !== 0)?.number ?? 0
    case 'message': {
      // Singular wrapper fields are unboxed in protobuf-es.
      const wrapped = WRAPPED[field.message.typeName]
      if (wrapped !== undefined) return wrapped
      return field.message.typeName === 'google.protobuf.Value'
        ? create(field.message, { kind: { case: 'stringValue', value: 'x' } } as never)
        : create(field.message)
    }
    case 'list':
      return field.listKind === 'message'
        ? [
            field.message.typeName === 'google.protobuf.Value'
              ? create(field.message, { kind: { case: 'stringValue', value: 'x' } } as never)
              : create(field.message),
          ]
        : field.listKind === 'enum'
          ? [field.enum.values.find((v) => v.number !== 0)?.number ?? 0]
          : [scalarValue(field.scalar)]
    case 'map': {
      const value =
        field.mapKind === 'message'
          ? field.message.typeName === 'google.protobuf.Value'
            ? create(field.message, { kind: { case: 'stringValue', value: 'x' } } as never)
            : create(field.message)
          : field.mapKind === 'enum'
            ? (field.enum.values.find((v) => v.number !== 0)?.number ?? 0)
            : scalarValue(field.scalar)
      return { [field.mapKey === 9 ? 'k' : field.mapKey === 8 ? 'true' : '1']: value }
    }
  }
}

/** `message` made valid, as protobuf JSON. */
export function validJson(registry: FileRegistry, desc: DescMessage, message: Message): JsonValue {
  makeValid(desc, message)
  return toJson(desc, message, { registry })
}
