/**
 * Serialized `FileDescriptorProto`s (what gRPC server reflection answers) →
 * the neutral {@link ProtoModel}, through the same `toModel` and
 * `buildDescriptor` as a `.proto` file: protobufjs's own descriptor reader
 * builds the roots, `source_code_info` stands in for the scanned text.
 */
import protobuf from 'protobufjs'
import descriptorExt from 'protobufjs/ext/descriptor.js'
import { buildDescriptor } from './descriptor.ts'
import { optionOnlyFiles, WELL_KNOWN_FILES } from './load-proto.ts'
import type { ProtoModel } from './model.ts'
import { declarationKey, type Declaration, type ScannedFile } from './scan-declarations.ts'
import { streamingWarnings, toModel, type Sources } from './to-model.ts'
import { isRecord } from '../contract/is-record.ts'

/** Options of {@link modelFromDescriptors}. */
export interface FromDescriptorsOptions {
  /** Full names of the services that become the model's services, in this order. @default every service of every file */
  services?: readonly string[]
  /** What the model's `file` names (e.g. `grpc://127.0.0.1:50051`): there is no file on disk. @default 'reflection' */
  source?: string
  /**
   * Which files' comments are no descriptions, as those of a bundled or shipped file read from disk are.
   * @default every `google/` file and the shipped option protos (a server's copies of them)
   */
  bundled?: (name: string) => boolean
  /**
   * Serialized files (a descriptor set's) whose `source_code_info` stands in
   * for that of the file of the same name when it has none, as a reflected
   * server's often has not: the comments, and so the descriptions. @default none
   */
  comments?: readonly Uint8Array[]
}

/** The option protos this package ships: their types stay out of the runtime descriptor unless used, as for a file. */
const SHIPPED_FILES = new Set([
  'buf/validate/validate.proto',
  'google/api/field_behavior.proto',
  'google/api/resource.proto',
  'proto_mcp/options.proto',
])

// Field numbers of descriptor.proto, the path segments of `SourceCodeInfo.Location.path`.
const FILE_MESSAGE = 4
const FILE_ENUM = 5
const FILE_SERVICE = 6
const FILE_EXTENSION = 7
const MESSAGE_FIELD = 2
const MESSAGE_NESTED = 3
const MESSAGE_ENUM = 4
const MESSAGE_EXTENSION = 6
const ENUM_VALUE = 2
const SERVICE_METHOD = 2

type Json = Record<string, unknown>
type DecodedFile = descriptorExt.IFileDescriptorProto & { sourceCodeInfo?: { location?: Location[] } }
interface Location {
  path?: number[]
  span?: number[]
  leadingComments?: string
}

/** A file whose comments are no descriptions, as a shipped or protobufjs-bundled file is when loaded from disk. */
const isBundled = (name: string): boolean => name.startsWith('google/') || SHIPPED_FILES.has(name)

/** A well-known type's file (protobufjs bundles it) or a shipped option proto: the files a descriptor set's own comments never describe. */
export const isOptionOrWellKnown = (name: string): boolean => Boolean(protobuf.common.get(name)) || SHIPPED_FILES.has(name)

/**
 * Builds the model of the services declared in `files` (each a serialized
 * `FileDescriptorProto`; every dependency must be among them). Comments come
 * from each file's `source_code_info` (leading comments, as protoc records
 * them, which is what the `.proto` scanner gives too); without it every
 * comment is null. Custom options (`buf.validate`, `proto_mcp.tool`, ...)
 * are read from the options' extension fields when the file declaring the
 * extension is among `files`. Throws on a missing dependency or unknown type.
 */
export function modelFromDescriptors(files: readonly Uint8Array[], options: FromDescriptorsOptions = {}): ProtoModel {
  const decoded = files.map((bytes) => descriptorExt.FileDescriptorProto.decode(bytes) as unknown as DecodedFile)
  if (options.comments) lendComments(decoded, options.comments)
  const byName = new Map<string, { decoded: DecodedFile; bytes: Uint8Array }>()
  for (const [i, file] of decoded.entries())
    if (file.name && !byName.has(file.name)) byName.set(file.name, { decoded: file, bytes: files[i]! })
  for (const { decoded: file } of byName.values()) {
    for (const dep of file.dependency ?? []) {
      if (!byName.has(dep)) throw new Error(`file "${file.name}" imports "${dep}", which the descriptors do not include`)
    }
  }
  // Each file before its imports: the load order of loadProto (the first wins a comment lookup).
  const order: string[] = []
  const visit = (name: string): void => {
    if (order.includes(name)) return
    order.push(name)
    for (const dep of byName.get(name)!.decoded.dependency ?? []) visit(dep)
  }
  for (const name of byName.keys()) visit(name)

  const decodedInOrder = order.map((name) => byName.get(name)!.decoded)
  const model = rootOf(decodedInOrder, true, order)
  const runtime = rootOf(decodedInOrder, false, order)
  // Types from protobufjs's bundled JSON belong to no file, as for a `.proto` importing them.
  for (const name of order) if (!protobuf.common.get(name)) stampFiles(model, runtime, byName.get(name)!.decoded)
  model.resolveAll()
  runtime.resolveAll()
  for (const name of order) applyCustomOptions(model, runtime, byName.get(name)!.bytes)

  const sources: Sources = { scanned: new Map(), bundledFiles: new Set(), order: [] }
  for (const name of order) {
    sources.scanned.set(name, scanDescriptor(byName.get(name)!.decoded))
    sources.order.push(name)
    if ((options.bundled ?? isBundled)(name)) sources.bundledFiles.add(name)
  }

  const wanted =
    options.services ??
    order.flatMap((name) =>
      (byName.get(name)!.decoded.service ?? []).map((s) => qualify(byName.get(name)!.decoded.package ?? '', s.name ?? '')),
    )
  const serviceFiles = order.filter((name) =>
    (byName.get(name)!.decoded.service ?? []).some((s) => wanted.includes(qualify(byName.get(name)!.decoded.package ?? '', s.name ?? ''))),
  )
  const models = serviceFiles.map((name) => toModel(model, name, sources))
  const services = models.flatMap((m) => m.services)
  for (const name of wanted) {
    if (!services.some((s) => s.fullName === name)) throw new Error(`service "${name}" is not declared in the descriptors`)
  }
  services.sort((a, b) => wanted.indexOf(a.fullName) - wanted.indexOf(b.fullName))
  // With no service at all, the model still carries every message (an empty scan stands for the root file).
  if (models.length === 0) sources.scanned.set('', emptyScan())
  const first = models[0] ?? toModel(model, '', sources)
  const kept = services.filter((s) => wanted.includes(s.fullName))
  const importers = new Map<string, Set<string>>()
  for (const name of order) {
    for (const dep of byName.get(name)!.decoded.dependency ?? []) {
      if (!importers.has(dep)) importers.set(dep, new Set())
      importers.get(dep)!.add(name)
    }
  }
  const shipped = new Set(order.filter((name) => SHIPPED_FILES.has(name)))
  const optionOnly = new Set<string>()
  for (const file of serviceFiles.length > 0 ? serviceFiles : ['']) {
    for (const name of optionOnlyFiles(file, importers, shipped)) optionOnly.add(name)
  }
  return {
    file: options.source ?? 'reflection',
    files: [...order].sort(),
    packageName: first.packageName,
    services: kept,
    messages: first.messages,
    enums: first.enums,
    descriptor: buildDescriptor(runtime, optionOnly),
    warnings: streamingWarnings(kept),
  }
}

/** Sets the `source_code_info` of each of `files` that has none from the file of the same name in `from`. */
function lendComments(files: DecodedFile[], from: readonly Uint8Array[]): void {
  const lenders = new Map<string, DecodedFile>()
  for (const bytes of from) {
    const file = descriptorExt.FileDescriptorProto.decode(bytes) as unknown as DecodedFile
    if (file.name && file.sourceCodeInfo?.location?.length) lenders.set(file.name, file)
  }
  for (const file of files) {
    const lender = lenders.get(file.name ?? '')
    if (lender && !file.sourceCodeInfo?.location?.length) file.sourceCodeInfo = lender.sourceCodeInfo!
  }
}

const qualify = (pkg: string, name: string): string => (pkg ? `${pkg}.${name}` : name)

const emptyScan = (): ScannedFile => ({ declarations: new Map(), imports: [], packageName: '' })

/**
 * A root of the files' declarations as the parser builds it from their text:
 * proto names (`keepCase`) for the model, lowerCamel ones for the runtime;
 * an explicit `json_name` as an option; synthetic oneofs named from the
 * field's name as written; the well-known types (and every one of them in
 * the runtime's root) from protobufjs's bundled JSON, as a `.proto`
 * importing them gets them. Not resolved.
 */
function rootOf(files: DecodedFile[], keepCase: boolean, order: string[]): protobuf.Root {
  const copies = files.map(
    (file) =>
      descriptorExt.FileDescriptorProto.fromObject(descriptorExt.FileDescriptorProto.toObject(file as never)) as unknown as DecodedFile,
  )
  const explicit = new Map<string, string>()
  const fields = (m: descriptorExt.IDescriptorProto, scope: string): void => {
    const fullName = qualify(scope, m.name ?? '')
    for (const f of m.field ?? []) {
      const name = f.name ?? ''
      // protoc fills json_name in for every field: only one unlike the default was written.
      if (f.jsonName && f.jsonName !== protocJsonName(name)) explicit.set(`${fullName}#${name}`, f.jsonName)
      // protobufjs's reader names a field by its json_name unless keepCase; the parser by its lowerCamel name.
      if (!keepCase) f.jsonName = protobuf.util.camelCase(name)
    }
    if (!keepCase) {
      for (const [i, o] of (m.oneofDecl ?? []).entries()) {
        // An unset oneof_index reads as 0 from the prototype.
        const members = (m.field ?? []).filter((f) => Object.prototype.hasOwnProperty.call(f, 'oneofIndex') && f.oneofIndex === i)
        if (members.length === 1 && members[0]!.proto3Optional) o.name = `_${protobuf.util.camelCase(members[0]!.name ?? '')}`
      }
    }
    for (const n of m.nestedType ?? []) fields(n, fullName)
  }
  for (const file of copies) for (const m of file.messageType ?? []) fields(m, file.package ?? '')
  let built: protobuf.Root
  try {
    built = protobuf.Root.fromDescriptor({ file: copies }, { keepCase })
  } catch (cause) {
    throw new Error(`cannot read the file descriptors: ${(cause as Error).message}`, { cause })
  }
  const json = built.toJSON({ keepComments: false })
  // The parser leaves jsonName unset but for an explicit json_name (set below).
  dropJsonNames(json)
  const wellKnown = order.filter((name) => Boolean(protobuf.common.get(name)))
  if (!keepCase) for (const name of WELL_KNOWN_FILES) if (!wellKnown.includes(name)) wellKnown.push(name)
  const protobufNs = (json.nested?.google as protobuf.INamespace | undefined)?.nested?.protobuf as protobuf.INamespace | undefined
  for (const name of wellKnown) {
    const bundled = protobuf.common.get(name)?.nested ?? {}
    const declared =
      ((bundled.google as protobuf.INamespace | undefined)?.nested?.protobuf as protobuf.INamespace | undefined)?.nested ?? {}
    for (const type of Object.keys(declared)) delete protobufNs?.nested?.[type]
  }
  // Root.fromJSON would resolve before the well-known types are in.
  const root = new protobuf.Root()
  for (const name of wellKnown) root.addJSON(protobuf.common.get(name)?.nested ?? {})
  root.addJSON(json.nested ?? {})
  for (const [key, jsonName] of explicit) {
    const [type, name] = key.split('#') as [string, string]
    const obj = root.lookup(type)
    const field = obj instanceof protobuf.Type ? Object.values(obj.fields).find((f) => (f.protoName ?? f.name) === name) : undefined
    if (field) {
      ;(field as { jsonName: string }).jsonName = jsonName
      field.setOption('json_name', jsonName)
    }
  }
  return root
}

/** Deletes every field's `jsonName` in a protobufjs JSON namespace, at any depth. */
function dropJsonNames(ns: protobuf.INamespace): void {
  for (const node of Object.values(ns.nested ?? {})) {
    for (const field of Object.values((node as protobuf.IType).fields ?? {})) delete (field as { jsonName?: string }).jsonName
    dropJsonNames(node as protobuf.INamespace)
  }
}

/** The JSON name protoc gives a field without `json_name`: underscores dropped, the letter after each upper-cased. */
function protocJsonName(name: string): string {
  return name.replace(/_+(.?)/g, (_, c: string) => c.toUpperCase())
}

/** Sets `filename` on each declaration of `file`, nested ones too, as the parser does (protobufjs's reader stamps only the package). */
function stampFiles(model: protobuf.Root, runtime: protobuf.Root, file: DecodedFile): void {
  const pkg = file.package ?? ''
  const names = [...(file.messageType ?? []), ...(file.enumType ?? []), ...(file.service ?? []), ...(file.extension ?? [])].map(
    (d) => d.name ?? '',
  )
  const stamp = (obj: protobuf.ReflectionObject): void => {
    obj.filename = file.name ?? null
    if (obj instanceof protobuf.Type) for (const nested of obj.nestedArray) stamp(nested)
  }
  for (const root of [model, runtime]) {
    for (const name of names) {
      const obj = root.lookup(qualify(pkg, name))
      if (obj) stamp(obj)
    }
  }
}

/** The declarations of `file` with their positions and leading comments, from its `source_code_info`. */
function scanDescriptor(file: DecodedFile): ScannedFile {
  const declarations = new Map<string, Declaration>()
  const locations = new Map<string, Location>()
  for (const loc of file.sourceCodeInfo?.location ?? []) {
    const key = (loc.path ?? []).join('.')
    if (!locations.has(key)) locations.set(key, loc)
  }
  const record = (key: string, path: number[]): void => {
    const loc = locations.get(path.join('.'))
    const span = loc?.span ?? []
    // protoc leaves leading_comments unset when there is none; an empty comment line is "\n".
    const comment = loc && Object.prototype.hasOwnProperty.call(loc, 'leadingComments') ? (loc.leadingComments ?? null) : null
    declarations.set(key, { line: (span[0] ?? 0) + 1, column: (span[1] ?? 0) + 1, comment })
  }
  const pkg = file.package ?? ''
  const message = (m: descriptorExt.IDescriptorProto, scope: string, path: number[]): void => {
    const fullName = qualify(scope, m.name ?? '')
    record(declarationKey('message', fullName), path)
    for (const [i, f] of (m.field ?? []).entries()) record(declarationKey('field', fullName, f.name ?? ''), [...path, MESSAGE_FIELD, i])
    // An extension declared in the message is a field of the message's scope (scan-declarations.ts).
    for (const [i, f] of (m.extension ?? []).entries())
      record(declarationKey('field', fullName, f.name ?? ''), [...path, MESSAGE_EXTENSION, i])
    for (const [i, n] of (m.nestedType ?? []).entries()) {
      if (!n.options?.mapEntry) message(n, fullName, [...path, MESSAGE_NESTED, i])
    }
    for (const [i, e] of (m.enumType ?? []).entries()) enumeration(e, fullName, [...path, MESSAGE_ENUM, i])
  }
  const enumeration = (e: descriptorExt.IEnumDescriptorProto, scope: string, path: number[]): void => {
    const fullName = qualify(scope, e.name ?? '')
    record(declarationKey('enum', fullName), path)
    for (const [i, v] of (e.value ?? []).entries()) record(declarationKey('value', fullName, v.name ?? ''), [...path, ENUM_VALUE, i])
  }
  for (const [i, m] of (file.messageType ?? []).entries()) message(m, pkg, [FILE_MESSAGE, i])
  for (const [i, e] of (file.enumType ?? []).entries()) enumeration(e, pkg, [FILE_ENUM, i])
  for (const [i, f] of (file.extension ?? []).entries()) record(declarationKey('field', pkg, f.name ?? ''), [FILE_EXTENSION, i])
  for (const [i, s] of (file.service ?? []).entries()) {
    const fullName = qualify(pkg, s.name ?? '')
    record(declarationKey('service', fullName), [FILE_SERVICE, i])
    for (const [j, m] of (s.method ?? []).entries())
      record(declarationKey('method', fullName, m.name ?? ''), [FILE_SERVICE, i, SERVICE_METHOD, j])
  }
  return { declarations, imports: (file.dependency ?? []).map((path: string) => ({ path, line: 1, column: 1 })), packageName: pkg }
}

/** Calls `set` with each leaf of `value` under its dotted path (a one-item list as its item). */
function flatten(value: unknown, path: string, set: (key: string, value: unknown) => void): void {
  if (Array.isArray(value) && value.length === 1) return flatten(value[0], path, set)
  if (isRecord(value)) {
    for (const [key, v] of Object.entries(value)) flatten(v, path ? `${path}.${key}` : key, set)
    return
  }
  set(path, value)
}

/**
 * Reads the custom options of every declaration of the serialized file
 * `bytes` and sets them as the parser would (`parsedOptions`, one statement
 * per extension), for `customOptions` to merge. protobufjs's descriptor
 * reader drops them: they are extension fields, which only a
 * `google.protobuf.*Options` type extended by the loaded files can decode.
 */
function applyCustomOptions(root: protobuf.Root, runtime: protobuf.Root, bytes: Uint8Array): void {
  let fileType: protobuf.Type
  try {
    fileType = root.lookupType('google.protobuf.FileDescriptorProto')
  } catch {
    return // no descriptor.proto among the files: nothing can declare a custom option
  }
  const file = fileType.toObject(fileType.decode(bytes), { enums: String, longs: Number, bytes: String, defaults: false }) as Json
  const statements = (options: unknown): Json[] => {
    if (options === null || typeof options !== 'object') return []
    return Object.entries(options as Json)
      .filter(([key]) => key.startsWith('.'))
      .map(([key, value]) => ({ [`(${key.slice(1)})`]: value }))
  }
  const apply = (obj: protobuf.ReflectionObject | null, options: unknown): void => {
    const parsed = statements(options)
    if (obj && parsed.length > 0) obj.parsedOptions = parsed
  }
  const list = (value: unknown): Json[] => (Array.isArray(value) ? (value as Json[]) : [])
  const pkg = (file.package as string | undefined) ?? ''
  // An extension's options are on its declaration, in the scope its `extend` is written in.
  const extension = (f: Json, scope: string): void => {
    const name = qualify(scope, f.name as string)
    const declared = root.lookup(name)
    if (declared instanceof protobuf.Field) apply(declared, f.options)
    const twin = runtime.lookup(name)
    if (twin instanceof protobuf.Field)
      for (const statement of statements(f.options)) flatten(statement, '', (key, value) => twin.setOption(key, value))
  }
  const message = (m: Json, scope: string): void => {
    const fullName = qualify(scope, m.name as string)
    const type = root.lookup(fullName)
    if (!(type instanceof protobuf.Type)) return
    apply(type, m.options)
    for (const f of list(m.field)) {
      apply(type.fields[f.name as string] ?? null, f.options)
      // The runtime's descriptor keeps a field's custom options flat, as the parser sets them.
      const twin = runtime.lookup(fullName)
      const field = twin instanceof protobuf.Type ? twin.fieldsArray.find((x) => (x.protoName ?? x.name) === f.name) : undefined
      if (field) for (const statement of statements(f.options)) flatten(statement, '', (key, value) => field.setOption(key, value))
    }
    for (const o of list(m.oneof_decl)) apply(type.oneofs?.[o.name as string] ?? null, o.options)
    for (const f of list(m.extension)) extension(f, fullName)
    for (const n of list(m.nested_type)) message(n, fullName)
    for (const e of list(m.enum_type)) apply(root.lookup(qualify(fullName, e.name as string)), e.options)
  }
  for (const m of list(file.message_type)) message(m, pkg)
  for (const f of list(file.extension)) extension(f, pkg)
  for (const e of list(file.enum_type)) apply(root.lookup(qualify(pkg, e.name as string)), e.options)
  for (const s of list(file.service)) {
    const service = root.lookup(qualify(pkg, s.name as string))
    if (!(service instanceof protobuf.Service)) continue
    apply(service, s.options)
    for (const m of list(s.method)) apply(service.methods[m.name as string] ?? null, m.options)
  }
}
