/**
 * Loads the generated protobuf JSON codecs of a `.proto` (src/codegen/emit-codec.ts)
 * with the runtime's helpers in scope, beside the reflection codec they must equal.
 */
import fc from 'fast-check'
import protobuf from 'protobufjs/light.js'
import type { Enum, Field, Type } from 'protobufjs'
import { emitCodecs } from '../../src/codegen/emit-codec.ts'
import { loadProto } from '../../src/proto/index.ts'
import { fromJson, loadRoot, toJson } from '../../src/runtime/protojson.ts'
import * as runtime from '../../src/runtime/codec.ts'
import { buildTools } from '../../src/schema/index.ts'
import type { JsonCodec } from '../../src/runtime/types.ts'
import { preloadProtobuf } from '../../src/runtime/load-protobuf.ts'

// The reflection codec's helpers are synchronous once protobufjs is loaded (the call pipeline loads it on its first call).
await preloadProtobuf()

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
  const { tools } = buildTools(model, { profile: 'full' })
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

const base64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64')

function scalarArb(type: string): fc.Arbitrary<unknown> {
  const junk = fc.constantFrom<unknown>(true, 'abc', '', [], {}, 1.5, '1.0', ' 1')
  switch (type) {
    case 'string':
      return fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '\uD800', 'a\uDC00b', '😀'), junk)
    case 'bool':
      return fc.oneof(fc.boolean(), fc.constantFrom<unknown>('true', 0, 1), junk)
    case 'bytes':
      return fc.oneof(
        fc.uint8Array({ maxLength: 8 }).map(base64),
        fc.uint8Array({ maxLength: 8 }).map((b) => base64(b).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_')),
        fc.constantFrom<unknown>('QR==', 'QQ', '!!!!', 'QQ==', 'QUI=', 'QUJ=', '', 'AAAA'),
        junk,
      )
    case 'double':
    case 'float':
      return fc.oneof(
        fc.double(),
        fc.integer(),
        fc.constantFrom<unknown>('NaN', 'Infinity', '-Infinity', '1.5', '1e3', -0, 3.5e38, -3.5e38, 3.4e38, Infinity, NaN, 'nan'),
        junk,
      )
    case 'int32':
    case 'sint32':
    case 'sfixed32':
    case 'uint32':
    case 'fixed32':
      return fc.oneof(
        fc.integer(),
        fc.integer({ min: 0, max: 4294967295 }),
        fc.integer().map(String),
        fc.constantFrom<unknown>(-0, '007', '+5', '1e3', '-0', 2147483648, -1, 4294967296, '4294967295', 1e3, 2.5),
        junk,
      )
    default: // 64-bit
      return fc.oneof(
        fc.maxSafeInteger(),
        fc.bigInt({ min: -(2n ** 63n), max: 2n ** 64n - 1n }).map(String),
        fc.integer({ min: -99999, max: 99999 }).map(String),
        fc.constantFrom<unknown>(
          -0,
          '0',
          '-0',
          '00',
          '007',
          '+5',
          '1e3',
          1e20,
          -1,
          '-1',
          '18446744073709551615',
          // eslint-disable-next-line no-loss-of-precision -- a number past 2^53, as JSON.parse gives it, is the point
          9007199254740993,
          '123456789012345',
        ),
        junk,
      )
  }
}

function enumArb(enm: Enum): fc.Arbitrary<unknown> {
  const names = Object.keys(enm.values)
  return fc.oneof(
    fc.constantFrom<unknown>(...names),
    fc.constantFrom<unknown>(...Object.values(enm.values)),
    fc.constantFrom<unknown>(99, -1, 1.5, 'NOPE', 'constructor', -0, null, true),
  )
}

const isMessage = (field: Field): boolean => field.resolvedType instanceof protobuf.Type
const isEnum = (field: Field): boolean => field.resolvedType instanceof protobuf.Enum

/** Random values for `type` (fixed seeds make them reproducible): mostly messages keyed by JSON name, sometimes other spellings, unknown keys, nulls or junk. */
export function messageArb(type: Type, depth: number): fc.Arbitrary<unknown> {
  if (type.fullName.startsWith('.google.protobuf.')) {
    return fc.constantFrom<unknown>(null, {}, '2024-01-02T03:04:05Z', '1.5s', 'a,b', 5, 'x', [1], { a: 1 })
  }
  const single = (field: Field): fc.Arbitrary<unknown> => {
    if (isMessage(field)) return depth > 2 ? fc.constant({}) : messageArb(field.resolvedType as Type, depth + 1)
    if (isEnum(field)) return enumArb(field.resolvedType as Enum)
    return scalarArb(field.type)
  }
  const parts = type.fieldsArray.map((f) => {
    const field = f.resolve()
    let value: fc.Arbitrary<unknown>
    if (field.map) {
      const keyType = (field as Field & { keyType: string }).keyType
      const key =
        keyType === 'string'
          ? fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', '\uD800'))
          : keyType === 'bool'
            ? fc.constantFrom('true', 'false', 'yes')
            : fc.oneof(fc.integer().map(String), fc.constantFrom('-0', '007', 'x', '4294967296', '18446744073709551615'))
      value = fc.oneof(fc.dictionary(key, single(field), { maxKeys: 3 }), fc.constantFrom<unknown>(null, [], 'x'))
    } else if (field.repeated) {
      value = fc.oneof({ weight: 4, arbitrary: fc.array(single(field), { maxLength: 4 }) }, fc.constantFrom<unknown>(null, [null], 'x', {}))
    } else {
      value = fc.oneof({ weight: 6, arbitrary: single(field) }, fc.constant(null))
    }
    const spelling =
      field.name === field.jsonName
        ? fc.constant(field.jsonName)
        : fc.oneof({ weight: 8, arbitrary: fc.constant(field.jsonName) }, fc.constant(field.name))
    return fc.option(fc.tuple(spelling, value), { nil: undefined, freq: 2 })
  })
  const message = fc
    .tuple(fc.tuple(...parts), fc.option(fc.constantFrom('unknownKey', '__proto__'), { freq: 10, nil: undefined }))
    .map(([entries, extra]) => {
      const out: Record<string, unknown> = {}
      for (const entry of entries)
        if (entry) Object.defineProperty(out, entry[0], { value: entry[1], enumerable: true, writable: true, configurable: true })
      if (extra) Object.defineProperty(out, extra, { value: 1, enumerable: true, writable: true, configurable: true })
      return out
    })
  return fc.oneof({ weight: 12, arbitrary: message }, fc.constantFrom<unknown>(null, [], 'x', 5, Object.create(null)))
}
