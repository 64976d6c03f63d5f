/**
 * A descriptor set on disk as input: a `FileDescriptorSet` (`protoc
 * --descriptor_set_out --include_imports`) or a buf image (`buf build -o
 * api.binpb`), binary or protobuf JSON (`buf build -o api.json`), read into
 * the serialized `FileDescriptorProto`s {@link modelFromDescriptors} takes:
 * the reflection gateway's model path, with a file in place of a server.
 */
import { readFileSync } from 'node:fs'
import protobuf from 'protobufjs'
import descriptorExt from 'protobufjs/ext/descriptor.js'
import { isOptionOrWellKnown, modelFromDescriptors } from './from-descriptors.ts'
import type { ProtoModel } from './model.ts'
import { buildWarning } from './warnings.ts'

/** How the name of a descriptor set ends (the `?mcp` import and `proto-mcp serve` take these, `.proto` aside). */
export const DESCRIPTOR_SET_EXTENSIONS = ['.binpb', '.pb', '.desc', '.json'] as const

/** Whether `file` names a descriptor set rather than a `.proto` (by its extension). */
export function isDescriptorSetFile(file: string): boolean {
  return DESCRIPTOR_SET_EXTENSIONS.some((ext) => file.endsWith(ext))
}

// Field numbers: FileDescriptorSet.file; a buf image's ImageFile.buf_extension and its is_import.
const SET_FILE = 1
const BUF_EXTENSION = 8042
const BUF_IS_IMPORT = 1

/** One file of a set: its serialized `FileDescriptorProto` and, in a buf image, whether it is only there as an import. */
export interface SetFile {
  bytes: Uint8Array
  /** `true`/`false` from a buf image's `buf_extension.is_import`; absent in a plain `FileDescriptorSet`. */
  isImport?: boolean
}

/** An error about a descriptor set: `cannot read "<file>": <reason>`. */
function setError(file: string, reason: string, cause?: unknown): Error {
  return new Error(`cannot read "${file}": ${reason}`, cause === undefined ? undefined : { cause })
}

/** The length-delimited fields numbered `field` of a message, byte for byte (throws on a truncated or malformed message). */
function fieldsOf(bytes: Uint8Array, field: number): Uint8Array[] {
  const reader = protobuf.Reader.create(bytes)
  const out: Uint8Array[] = []
  while (reader.pos < reader.len) {
    const tag = reader.uint32()
    if (tag >>> 3 === 0) throw new Error(`invalid field number 0 at byte ${reader.pos}`)
    if (tag >>> 3 === field && (tag & 7) === 2) out.push(reader.bytes())
    else reader.skipType(tag & 7)
  }
  return out
}

/** The `is_import` of an `ImageFile`'s `buf_extension`, when it has one. */
function bufIsImport(bytes: Uint8Array): boolean | undefined {
  const ext = fieldsOf(bytes, BUF_EXTENSION).at(-1)
  if (ext === undefined) return undefined
  const reader = protobuf.Reader.create(ext)
  let isImport = false
  while (reader.pos < reader.len) {
    const tag = reader.uint32()
    if (tag >>> 3 === BUF_IS_IMPORT && (tag & 7) === 0) isImport = reader.bool()
    else reader.skipType(tag & 7)
  }
  return isImport
}

/** A file's `name` if `bytes` decodes as a `FileDescriptorProto` naming a `.proto`; throws otherwise. */
function checkFile(bytes: Uint8Array, index: number): string {
  let name: string | null | undefined
  try {
    name = descriptorExt.FileDescriptorProto.decode(bytes).name
  } catch (cause) {
    throw new Error(`file ${index + 1} of the set is no FileDescriptorProto (${(cause as Error).message})`, { cause })
  }
  if (!name || !name.endsWith('.proto')) throw new Error(`file ${index + 1} of the set is no FileDescriptorProto (it names no .proto file)`)
  return name
}

/** The serialized files of a binary set, with buf's import marks. */
function binaryFiles(bytes: Uint8Array): SetFile[] {
  return fieldsOf(bytes, SET_FILE).map((file) => {
    const isImport = bufIsImport(file)
    return isImport === undefined ? { bytes: file } : { bytes: file, isImport }
  })
}

/**
 * Renames protobuf JSON's extension keys (`"[google.api.field_behavior]"`) to the names protobufjs gives
 * extension fields (`".google.api.fieldBehavior"`), at any depth.
 */
function extensionKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(extensionKeys)
  if (value === null || typeof value !== 'object') return value
  const rename = (key: string): string => {
    if (!/^\[.+\]$/.test(key)) return key
    const name = key.slice(1, -1)
    const dot = name.lastIndexOf('.')
    return `.${name.slice(0, dot + 1)}${protobuf.util.camelCase(name.slice(dot + 1))}`
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [rename(k), extensionKeys(v)]))
}

/**
 * The serialized files of a set in protobuf JSON. Each file is written with
 * the set's own `descriptor.proto` types when it has them (so that custom
 * options, extension keys in JSON, are kept as the binary form keeps them),
 * else with protobufjs's (custom options then dropped: nothing declares them).
 */
function jsonFiles(text: string): SetFile[] {
  let json: { file?: unknown }
  try {
    json = JSON.parse(text) as { file?: unknown }
  } catch (cause) {
    throw new Error(`its JSON does not parse: ${(cause as Error).message}`, { cause })
  }
  if (json === null || typeof json !== 'object' || !Array.isArray(json.file))
    throw new Error('it is JSON, but no FileDescriptorSet (no "file" list)')
  const plain = json.file.map((file: unknown) => descriptorExt.FileDescriptorProto.fromObject(file as never))
  let fileType: protobuf.Type = descriptorExt.FileDescriptorProto as unknown as protobuf.Type
  if (plain.some((f) => f.name === 'google/protobuf/descriptor.proto')) {
    try {
      const root = protobuf.Root.fromDescriptor({ file: plain } as never)
      root.resolveAll()
      fileType = root.lookupType('google.protobuf.FileDescriptorProto')
    } catch {
      // A set protobufjs cannot resolve is refused below, by the model.
    }
  }
  return (json.file as unknown[]).map((file) => {
    const { bufExtension, ...rest } = file as { bufExtension?: { isImport?: boolean } }
    const bytes = fileType.encode(fileType.fromObject(extensionKeys(rest) as Record<string, unknown>)).finish()
    return bufExtension === undefined ? { bytes } : { bytes, isImport: bufExtension.isImport === true }
  })
}

/**
 * The files of the descriptor set at `file` (binary or JSON, a plain set or
 * a buf image), each checked to be a `FileDescriptorProto`. Throws one
 * error naming `file`: unreadable, truncated, not a descriptor set, empty.
 */
export function readDescriptorSet(file: string): SetFile[] {
  let bytes: Uint8Array
  try {
    bytes = readFileSync(file)
  } catch (cause) {
    throw setError(file, (cause as Error).message, cause)
  }
  let files: SetFile[]
  try {
    const text = bytes[0] === 0x7b ? Buffer.from(bytes).toString('utf8').trim() : ''
    // A `.json` file that stops short is JSON all the same: its parse error says where.
    files = text.startsWith('{') && (text.endsWith('}') || /\.json$/i.test(file)) ? jsonFiles(text) : binaryFiles(bytes)
    files.forEach((f, i) => checkFile(f.bytes, i))
  } catch (cause) {
    throw setError(file, `it is no FileDescriptorSet or buf image (truncated?): ${(cause as Error).message}`, cause)
  }
  if (files.length === 0) throw setError(file, 'it is no FileDescriptorSet or buf image: it holds no file')
  return files
}

/** Options of {@link loadDescriptorSet}. */
export interface LoadDescriptorSetOptions {
  /** Full names of the services that become tools. @default every service of the set's own files (see {@link loadDescriptorSet}) */
  services?: readonly string[]
}

/**
 * The services of the set's own files, in file order: in a buf image the
 * files not marked as imports; in a plain set the files no other file of
 * it imports (what `protoc` was asked to compile, its imports following).
 */
export function targetServices(files: readonly SetFile[]): string[] {
  const decoded = files.map((f) => ({ ...f, proto: descriptorExt.FileDescriptorProto.decode(f.bytes) }))
  const marked = decoded.some((f) => f.isImport !== undefined)
  const imported = new Set(decoded.flatMap((f) => f.proto.dependency ?? []))
  const targets = decoded.filter((f) => (marked ? f.isImport === false : !imported.has(f.proto.name ?? '')))
  return targets.flatMap((f) =>
    (f.proto.service ?? []).map((s: descriptorExt.IServiceDescriptorProto) =>
      f.proto.package ? `${f.proto.package}.${s.name}` : (s.name ?? ''),
    ),
  )
}

/**
 * The model of the descriptor set at `file`, as `loadProto` gives it for the
 * `.proto` the set was built from (comments from `source_code_info`). The
 * model's `files` is `[file]`: the one file to watch. Throws one error
 * naming `file` (a bad set, a missing dependency, an unknown service).
 */
export function loadDescriptorSet(file: string, options: LoadDescriptorSetOptions = {}): ProtoModel {
  const files = readDescriptorSet(file)
  try {
    const model = modelFromDescriptors(
      files.map((f) => f.bytes),
      { services: options.services ?? targetServices(files), source: file, bundled: isOptionOrWellKnown },
    )
    const noService =
      model.services.length === 0
        ? [
            buildWarning(
              'NO_SERVICE',
              'declares no service, so it builds no tools',
              'build the set from the .proto that declares the service',
            ),
          ]
        : []
    return { ...model, files: [file], warnings: [...noService, ...model.warnings] }
  } catch (cause) {
    const reason = (cause as Error).message
    const hint = /do not include/.test(reason) ? ' (build it with its imports: buf build, or protoc --include_imports)' : ''
    throw setError(file, `${reason}${hint}`, cause)
  }
}
