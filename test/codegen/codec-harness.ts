/**
 * Loads the generated protobuf JSON codecs of a `.proto` (src/codegen/emit-codec.ts)
 * with the runtime's helpers in scope, beside the reflection codec they must equal.
 */
import type { Type } from 'protobufjs'
import { emitCodecs } from '../../src/codegen/emit-codec.ts'
import { loadProto } from '../../src/proto/index.ts'
import { fromJson, loadRoot, toJson } from '../../src/runtime/protojson.ts'
import * as runtime from '../../src/runtime/codec.ts'
import { buildTools } from '../../src/schema/index.ts'
import type { JsonCodec } from '../../src/runtime/types.ts'

/** The codecs of one proto, by message full name (no leading dot), and the reflection types. */
export interface LoadedCodecs {
  /** Every message that has a codec. */
  codecs: Map<string, JsonCodec>
  /** Each tool's request and response type names. */
  tools: { name: string; requestType: string; responseType: string }[]
  type(name: string): Type
}

const IMPORT_RE = /^(\w+) as (\$\w*)$/

/** Emits and evaluates the codecs of `file`. */
export function loadCodecs(file: string): LoadedCodecs {
  const model = loadProto(file)
  const { tools } = buildTools(model, { profile: 'default' })
  const emitted = emitCodecs(model.descriptor, tools)
  const locals = emitted.imports.map((spec) => IMPORT_RE.exec(spec)!)
  const values = locals.map((m) => (runtime as Record<string, unknown>)[m[1]!])
  const names = [...emitted.code.matchAll(/^\/\/ (\S+)\nfunction (codec\d+)\(/gm)]
  // eslint-disable-next-line no-new-func -- the point is to run generated code
  const table = new Function(...locals.map((m) => m[2]!), `${emitted.code}\nreturn { ${names.map((m) => m[2]).join(', ')} }`)(
    ...values,
  ) as Record<string, JsonCodec>
  const root = loadRoot(model.descriptor)
  return {
    codecs: new Map(names.map((m) => [m[1]!, table[m[2]!]!])),
    tools: tools.map((t) => ({ name: t.name, requestType: t.requestType, responseType: t.responseType })),
    type: (name) => root.lookupType(name),
  }
}

/** The reflection path's result for `json` as `type`: canonical JSON, or the error it throws. */
export function reflect(type: Type, json: unknown): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: toJson(type, fromJson(type, json)) }
  } catch (error) {
    return { ok: false, error: String(error) }
  }
}
