/**
 * protobufjs reflection (parsed with `keepCase`) + the scanned declarations
 * → the neutral {@link ProtoModel}.
 */
import protobuf from 'protobufjs'
import type {
  EnumModel,
  FieldModel,
  MessageModel,
  MethodModel,
  ProtoModel,
  ScalarType,
  ServiceModel,
  SourceLoc,
  ValueType,
} from './model.ts'
import { extensionName, extensionScope, jsonKeyOf } from '../contract/extension-key.ts'
import { customOptions } from './custom-options.ts'
import { protoError } from './errors.ts'
import { declarationKey } from './scan-declarations.ts'
import type { Declaration, ScannedFile } from './scan-declarations.ts'
import { buildWarning, type BuildWarning } from './warnings.ts'

/** The files a root was loaded from. */
export interface Sources {
  /** Every file read from disk, in load order, with its declarations. */
  scanned: Map<string, ScannedFile>
  /** Files shipped with protobufjs (their comments are not descriptions). */
  bundledFiles: Set<string>
  /** Load order of `scanned` (the root file first). */
  order: string[]
}

/** Every message, enum and service under `ns`, depth first in declaration order. */
export function collectSources(ns: protobuf.NamespaceBase): (protobuf.Type | protobuf.Enum | protobuf.Service)[] {
  const out: (protobuf.Type | protobuf.Enum | protobuf.Service)[] = []
  for (const nested of ns.nestedArray) {
    if (nested instanceof protobuf.Type || nested instanceof protobuf.Enum || nested instanceof protobuf.Service) out.push(nested)
    if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) out.push(...collectSources(nested))
  }
  return out
}

/** Builds the model of `root` (already resolved); `descriptor` is filled in by the caller. */
export function toModel(root: protobuf.Root, rootFile: string, sources: Sources): ProtoModel {
  const found = new Map<string, { file: string; decl: Declaration }>()
  for (const file of sources.order) {
    for (const [key, decl] of sources.scanned.get(file)!.declarations) if (!found.has(key)) found.set(key, { file, decl })
  }
  const lookup = (key: string): { comment: string | null; loc?: SourceLoc } => {
    const hit = found.get(key)
    if (!hit) return { comment: null }
    const loc = { file: hit.file, line: hit.decl.line, column: hit.decl.column }
    // Well-known and other bundled types have no description of their own (docs/mapping.md, "Descriptions from comments").
    return { comment: sources.bundledFiles.has(hit.file) ? null : hit.decl.comment, loc }
  }

  const messages = new Map<string, MessageModel>()
  const enums = new Map<string, EnumModel>()
  for (const obj of collectSources(root)) {
    const fullName = obj.fullName.slice(1)
    if (obj instanceof protobuf.Type) messages.set(fullName, messageModel(obj, fullName, lookup))
    else if (obj instanceof protobuf.Enum) enums.set(fullName, enumModel(obj, fullName, lookup))
  }

  const scannedRoot = sources.scanned.get(rootFile)!
  const services: ServiceModel[] = []
  for (const obj of collectSources(root)) {
    // protobufjs stamps each declaration with the file it was parsed from.
    if (!(obj instanceof protobuf.Service) || obj.filename !== rootFile) continue
    const fullName = obj.fullName.slice(1)
    services.push({
      name: obj.name,
      fullName,
      ...lookup(declarationKey('service', fullName)),
      methods: obj.methodsArray.map((m) => methodModel(m, fullName, lookup)),
      customOptions: customOptions(obj),
    })
  }
  checkNoServiceLost(scannedRoot, services, rootFile)

  return {
    file: rootFile,
    files: [...sources.order].sort(),
    packageName: scannedRoot.packageName,
    services,
    messages,
    enums,
    descriptor: {},
    warnings: services.length === 0 ? [noServiceWarning()] : streamingWarnings(services),
  }
}

/** The warning of a file that declares no service: it builds a server without tools. */
function noServiceWarning(): BuildWarning {
  return buildWarning(
    'NO_SERVICE',
    'declares no service, so it builds no tools',
    'import the .proto that declares the service, or add a service with an rpc',
  )
}

/**
 * Throws when the file declares a service that reflection does not place in
 * it: a protobufjs parser quirk (it once lost every service after an
 * editions `reserved foo;`) must fail the build, never silently give fewer tools.
 */
function checkNoServiceLost(scanned: ScannedFile, services: ServiceModel[], rootFile: string): void {
  const found = new Set(services.map((s) => declarationKey('service', s.fullName)))
  for (const [key, decl] of scanned.declarations) {
    if (!key.startsWith('service:') || found.has(key)) continue
    throw protoError(
      'PROTO_SYNTAX',
      rootFile,
      decl.line,
      decl.column,
      `service "${key.slice('service:'.length)}" was declared but protobufjs did not load it into this file ` +
        '(a parser problem: please report it with the file)',
    )
  }
}

type Lookup = (key: string) => { comment: string | null; loc?: SourceLoc }

function messageModel(type: protobuf.Type, fullName: string, lookup: Lookup): MessageModel {
  return {
    fullName,
    ...lookup(declarationKey('message', fullName)),
    // Custom options (extensions of descriptor.proto's messages) are no data of a message used as data.
    fields: type.fieldsArray
      .filter((f) => f.declaringField === null || !fullName.startsWith('google.protobuf.'))
      .map((f) => fieldModel(f, fullName, lookup)),
    oneofs: type.oneofsArray
      .filter((o) => !o.isProto3Optional)
      .map((o) => {
        const custom = customOptions(o)
        const fields = o.fieldsArray.map((f) => f.protoName ?? f.name)
        return Object.keys(custom).length > 0 ? { name: o.name, fields, customOptions: custom } : { name: o.name, fields }
      }),
    customOptions: customOptions(type),
  }
}

/**
 * An extension field's key in a tool's JSON, its protobuf JSON key
 * (bracketed: the lenient pass takes it as the proto name of other fields),
 * the field its `extend` declares (where its options are) and that field's
 * declaration key (its comment and line); `undefined` for a field of the
 * message itself.
 */
function extensionOf(
  field: protobuf.Field,
): { key: string; protoJson: string; declaring: protobuf.Field; declaration: string } | undefined {
  const declaring = field.declaringField
  if (declaring === null) return undefined
  return {
    key: jsonKeyOf(field),
    protoJson: `[${extensionName(declaring)}]`,
    declaring,
    declaration: declarationKey('field', extensionScope(declaring), declaring.protoName ?? declaring.name),
  }
}

function fieldModel(field: protobuf.Field, parent: string, lookup: Lookup): FieldModel {
  const extension = extensionOf(field)
  // Bundled well-known types come as JSON with lowerCamel names and `protoName`.
  const name = extension?.protoJson ?? field.protoName ?? field.name
  // protobufjs's copy of an extension in the extended message has its options but not their parsed form.
  const declared = extension?.declaring ?? field
  const { proto3_optional: proto3Optional, ...options } = (declared.options ?? {}) as Record<string, unknown>
  const partOf = field.partOf
  const model: FieldModel = {
    name,
    jsonName: extension?.key ?? field.jsonName ?? protobuf.util.jsonName(name),
    number: field.id,
    type: valueType(field),
    repeated: field.repeated && !field.map,
    proto3Optional: proto3Optional === true,
    ...lookup(extension?.declaration ?? declarationKey('field', parent, name)),
    options,
    customOptions: customOptions(declared),
    // protobufjs sets `required` for the proto2 label and for editions' LEGACY_REQUIRED presence.
    legacyRequired: field.required,
  }
  if (field instanceof protobuf.MapField) model.mapKey = field.keyType as ScalarType
  if (partOf && !partOf.isProto3Optional) model.oneof = partOf.name
  return model
}

function valueType(field: protobuf.Field): ValueType {
  const resolved = field.resolvedType
  if (resolved instanceof protobuf.Enum) return { kind: 'enum', typeName: resolved.fullName.slice(1) }
  if (resolved instanceof protobuf.Type) return { kind: 'message', typeName: resolved.fullName.slice(1) }
  return { kind: 'scalar', scalar: field.type as ScalarType }
}

function enumModel(enm: protobuf.Enum, fullName: string, lookup: Lookup): EnumModel {
  return {
    fullName,
    ...lookup(declarationKey('enum', fullName)),
    values: Object.entries(enm.values).map(([name, number]) => ({
      name,
      number,
      comment: lookup(declarationKey('value', fullName, name)).comment,
    })),
  }
}

function methodModel(method: protobuf.Method, service: string, lookup: Lookup): MethodModel {
  return {
    name: method.name,
    ...lookup(declarationKey('method', service, method.name)),
    requestType: method.resolvedRequestType!.fullName.slice(1),
    responseType: method.resolvedResponseType!.fullName.slice(1),
    requestStream: method.requestStream === true,
    responseStream: method.responseStream === true,
    options: { ...(method.options ?? {}) },
    customOptions: customOptions(method),
  }
}

/** One warning naming the client-streaming and bidi RPCs, which get no tool (docs/mapping.md, "Which RPCs become tools"). */
export function streamingWarnings(services: ServiceModel[]): BuildWarning[] {
  const named: string[] = []
  for (const service of services) {
    for (const m of service.methods) {
      if (m.requestStream) named.push(`${service.fullName}.${m.name} (${m.responseStream ? 'bidi' : 'client-streaming'})`)
    }
  }
  return named.length === 0
    ? []
    : [buildWarning('STREAMING_RPC_SKIPPED', `client-streaming and bidi RPCs get no tool: ${named.join(', ')}`)]
}
