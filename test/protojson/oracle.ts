/**
 * The reference protobuf JSON codec: @bufbuild/protobuf v2 (which passes the
 * protobuf conformance suite) fed a FileDescriptorSet built from a `.proto`
 * at test time, with no code generation.
 */
import { basename } from 'node:path'
import protobuf from 'protobufjs'
import {
  create,
  createFileRegistry,
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescFile,
  type DescMessage,
  type FileRegistry,
  type JsonValue,
  type Message,
} from '@bufbuild/protobuf'
import {
  FieldDescriptorProto_Type as FieldType,
  FileDescriptorProtoSchema,
  FileDescriptorSetSchema,
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
  type DescriptorProtoJson,
  type EnumDescriptorProtoJson,
  type FieldDescriptorProtoJson,
  type FileDescriptorProtoJson,
} from '@bufbuild/protobuf/wkt'

/** The well-known files bufbuild ships, by import path; the oracle never takes protobufjs's copies of them. */
const WELL_KNOWN: readonly DescFile[] = [
  file_google_protobuf_any,
  file_google_protobuf_duration,
  file_google_protobuf_empty,
  file_google_protobuf_field_mask,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
]

const SCALAR_TYPES: Record<string, FieldType> = {
  double: FieldType.DOUBLE,
  float: FieldType.FLOAT,
  int64: FieldType.INT64,
  uint64: FieldType.UINT64,
  int32: FieldType.INT32,
  fixed64: FieldType.FIXED64,
  fixed32: FieldType.FIXED32,
  bool: FieldType.BOOL,
  string: FieldType.STRING,
  bytes: FieldType.BYTES,
  uint32: FieldType.UINT32,
  sfixed32: FieldType.SFIXED32,
  sfixed64: FieldType.SFIXED64,
  sint32: FieldType.SINT32,
  sint64: FieldType.SINT64,
}

/** The reference codec of one proto file: its registry and the three directions the harness compares. */
export interface Oracle {
  readonly registry: FileRegistry
  /** The message descriptor of `typeName` (full name, no leading dot). */
  message(typeName: string): DescMessage
  /** Every message of the proto's own file(s), full names without leading dot. */
  readonly messageNames: readonly string[]
  fromJson(typeName: string, json: unknown): Message
  toJson(typeName: string, message: Message): JsonValue
  toBinary(typeName: string, message: Message): Uint8Array
  fromBinary(typeName: string, bytes: Uint8Array): Message
}

/**
 * Builds the oracle of `file`: parses it with protobufjs (proto names kept),
 * writes FileDescriptorProtos by hand (json_name only where the proto sets
 * it, so bufbuild derives JSON names itself) and hands them to bufbuild.
 */
export function createOracle(file: string): Oracle {
  const root = new protobuf.Root()
  root.loadSync(file, { keepCase: true, alternateCommentMode: false })
  // Explicit json_name is lifted onto the field at parse time; defaults appear only on resolve.
  const explicitJson = new Map<protobuf.Field, string>()
  const walk = (ns: protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type) for (const f of nested.fieldsArray) if (f.jsonName !== undefined) explicitJson.set(f, f.jsonName)
      if (nested instanceof protobuf.Namespace) walk(nested)
    }
  }
  walk(root)
  root.resolveAll()

  const files = new Map<string, FileDescriptorProtoJson>()
  const fileOf = (obj: protobuf.ReflectionObject): FileDescriptorProtoJson | undefined => {
    const name = obj.filename ?? ''
    if (name === '' || name.includes('google/protobuf/')) return undefined
    let proto = files.get(name)
    if (!proto) {
      const pkg = obj.fullName.slice(1).split('.').slice(0, -1)
      proto = {
        name: basename(name),
        syntax: 'proto3',
        dependency: WELL_KNOWN.map((f) => f.name + '.proto'),
        messageType: [],
        enumType: [],
      }
      // The package: the namespace path of the first top-level object of the file.
      for (let parent = obj.parent; parent && !(parent instanceof protobuf.Root); parent = parent.parent) {
        if (parent instanceof protobuf.Type) pkg.pop()
      }
      proto.package = pkg.join('.')
      files.set(name, proto)
    }
    return proto
  }
  const topLevel = (ns: protobuf.NamespaceBase): void => {
    for (const nested of ns.nestedArray) {
      if (nested instanceof protobuf.Type) fileOf(nested)?.messageType!.push(messageProto(nested, explicitJson))
      else if (nested instanceof protobuf.Enum) fileOf(nested)?.enumType!.push(enumProto(nested))
      else if (nested instanceof protobuf.Namespace) topLevel(nested)
    }
  }
  topLevel(root)

  // The user's files go through FileDescriptorProto's JSON form, checked by bufbuild's own decoder.
  const set = create(FileDescriptorSetSchema, {
    file: [...WELL_KNOWN.map((f) => f.proto), ...[...files.values()].map((f) => fromJson(FileDescriptorProtoSchema, f as JsonValue))],
  })
  const registry = createFileRegistry(set)

  const messageNames: string[] = []
  for (const f of files.values()) {
    const visit = (prefix: string, messages: DescriptorProtoJson[] | undefined): void => {
      for (const m of messages ?? []) {
        if (m.options?.mapEntry) continue
        messageNames.push(`${prefix}${m.name}`)
        visit(`${prefix}${m.name}.`, m.nestedType)
      }
    }
    visit(f.package ? `${f.package}.` : '', f.messageType)
  }

  const message = (typeName: string): DescMessage => {
    const desc = registry.getMessage(typeName)
    if (!desc) throw new Error(`oracle: no message "${typeName}"`)
    return desc
  }
  return {
    registry,
    message,
    messageNames,
    fromJson: (typeName, value) => fromJson(message(typeName), value as JsonValue, { registry }),
    toJson: (typeName, msg) => toJson(message(typeName), msg as never, { registry }),
    toBinary: (typeName, msg) => toBinary(message(typeName), msg as never),
    fromBinary: (typeName, bytes) => fromBinary(message(typeName), bytes),
  }
}

/** The `type` and `typeName` of a value of protobufjs type `type` (resolved to `resolved`, if a message or enum). */
function valueType(type: string, resolved: protobuf.Type | protobuf.Enum | null): Pick<FieldDescriptorProtoJson, 'type' | 'typeName'> {
  if (resolved instanceof protobuf.Type) return { type: 'TYPE_MESSAGE', typeName: resolved.fullName }
  if (resolved instanceof protobuf.Enum) return { type: 'TYPE_ENUM', typeName: resolved.fullName }
  const scalar = SCALAR_TYPES[type]
  if (scalar === undefined) throw new Error(`oracle: unknown scalar "${type}"`)
  return { type: `TYPE_${FieldType[scalar]}` as FieldDescriptorProtoJson['type'] }
}

function fieldProto(
  field: protobuf.Field,
  explicitJson: Map<protobuf.Field, string>,
  oneofIndex: Map<string, number>,
): FieldDescriptorProtoJson {
  const proto: FieldDescriptorProtoJson = {
    name: field.name,
    number: field.id,
    label: field.repeated ? 'LABEL_REPEATED' : 'LABEL_OPTIONAL',
    ...valueType(field.type, field.resolvedType),
  }
  const json = explicitJson.get(field)
  if (json !== undefined) proto.jsonName = json
  if (field.partOf) proto.oneofIndex = oneofIndex.get(field.partOf.name)!
  if (field.options?.proto3_optional) proto.proto3Optional = true
  if (field.options?.packed === false) proto.options = { packed: false }
  return proto
}

const entryName = (fieldName: string): string =>
  `${fieldName
    .split('_')
    .map((part) => (part ? part[0]!.toUpperCase() + part.slice(1) : ''))
    .join('')}Entry`

function messageProto(type: protobuf.Type, explicitJson: Map<protobuf.Field, string>): DescriptorProtoJson {
  const oneofIndex = new Map<string, number>()
  // Real oneofs first, as protoc orders them: synthetic oneofs of proto3 optional fields come last.
  const oneofs = [...type.oneofsArray].sort((a, b) => Number(isSynthetic(a)) - Number(isSynthetic(b)))
  oneofs.forEach((oneof, i) => oneofIndex.set(oneof.name, i))
  const proto: DescriptorProto = {
    name: type.name,
    field: [],
    nestedType: [],
    enumType: [],
    oneofDecl: oneofs.map((o) => ({ name: o.name })),
  }
  for (const field of type.fieldsArray) {
    if (field.map) {
      const map = field as unknown as protobuf.MapField
      const entry = entryName(field.name)
      const key = valueType(map.keyType, null)
      const value: FieldDescriptorProtoJson = {
        name: 'value',
        number: 2,
        label: 'LABEL_OPTIONAL',
        ...valueType(map.type, map.resolvedType),
      }
      proto.nestedType.push({
        name: entry,
        field: [{ name: 'key', number: 1, label: 'LABEL_OPTIONAL', ...key }, value],
        options: { mapEntry: true },
      })
      const json = explicitJson.get(field)
      proto.field.push({
        name: field.name,
        number: field.id,
        label: 'LABEL_REPEATED',
        type: 'TYPE_MESSAGE',
        typeName: `${type.fullName}.${entry}`,
        ...(json !== undefined ? { jsonName: json } : {}),
      })
      continue
    }
    proto.field.push(fieldProto(field, explicitJson, oneofIndex))
  }
  for (const nested of type.nestedArray) {
    if (nested instanceof protobuf.Type) proto.nestedType.push(messageProto(nested, explicitJson))
    else if (nested instanceof protobuf.Enum) proto.enumType.push(enumProto(nested))
  }
  return proto
}

type DescriptorProto = DescriptorProtoJson & Required<Pick<DescriptorProtoJson, 'field' | 'nestedType' | 'enumType'>>

const isSynthetic = (oneof: protobuf.OneOf): boolean =>
  oneof.fieldsArray.length === 1 && Boolean(oneof.fieldsArray[0]!.options?.proto3_optional)

function enumProto(enm: protobuf.Enum): EnumDescriptorProtoJson {
  const proto: EnumDescriptorProtoJson = {
    name: enm.name,
    value: Object.entries(enm.values).map(([name, number]) => ({ name, number })),
  }
  if (enm.options?.allow_alias) proto.options = { allowAlias: true }
  return proto
}
