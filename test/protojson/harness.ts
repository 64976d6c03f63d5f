/**
 * The protobuf JSON differential harness: a codec under test is compared
 * with the @bufbuild/protobuf oracle (oracle.ts) in the directions the call
 * pipeline uses. Any codec plugs in through {@link ProtoJsonCodec}; see
 * `differential.test.ts` for how the suite is run for one.
 */
import { isDeepStrictEqual } from 'node:util'
import type { Type } from 'protobufjs'
import { loadProto } from '../../src/proto/load-proto.ts'
import { preloadProtobuf } from '../../src/runtime/load-protobuf.ts'
import { fromJson, loadRoot, toJson } from '../../src/runtime/protojson.ts'
import type { Oracle } from './oracle.ts'

// The reflection codec's helpers are synchronous once protobufjs is loaded (the call pipeline loads it on its first call).
await preloadProtobuf()

/**
 * A protobuf JSON codec under test, addressed by full message name (no
 * leading dot). Every function throws to reject its input.
 *
 * To check another codec (e.g. build-time generated ones), implement these
 * three functions for the messages of a `.proto` and pass a factory to
 * `defineDifferentialSuite` (differential-suite.ts): it runs the whole
 * corpus (random messages, alternate spellings, rejections) against it.
 */
export interface ProtoJsonCodec {
  readonly name: string
  /** Protobuf JSON in any spelling the decoder accepts → canonical protobuf JSON (the in-process request and response path). */
  normalize(typeName: string, json: unknown): unknown
  /** Protobuf JSON → protobuf binary (the path of a request sent to a gRPC backend). */
  jsonToBinary(typeName: string, json: unknown): Uint8Array
  /** Protobuf binary → canonical protobuf JSON (the path of a gRPC backend's reply). */
  binaryToJson(typeName: string, bytes: Uint8Array): unknown
}

/** A `fromJson`/`toJson` pair over protobufjs reflection, like src/runtime/protojson.ts. */
export interface ReflectionJson {
  fromJson(type: Type, json: unknown): object
  toJson(type: Type, message: object): unknown
}

/**
 * Adapts a reflection-based codec to {@link ProtoJsonCodec}: types come from
 * the runtime descriptor of `file` (as the generated module carries it),
 * binary goes through protobufjs `Type.encode`/`decode`.
 */
export function reflectionCodec(name: string, file: string, json: ReflectionJson): ProtoJsonCodec {
  const root = loadRoot(loadProto(file).descriptor)
  const types = new Map<string, Type>()
  const type = (typeName: string): Type => {
    let t = types.get(typeName)
    if (!t) types.set(typeName, (t = root.lookupType(typeName)))
    return t
  }
  return {
    name,
    normalize: (typeName, value) => json.toJson(type(typeName), json.fromJson(type(typeName), value)),
    jsonToBinary: (typeName, value) =>
      type(typeName)
        .encode(json.fromJson(type(typeName), value))
        .finish(),
    binaryToJson: (typeName, bytes) => json.toJson(type(typeName), type(typeName).decode(bytes)),
  }
}

/** The codec of the call pipeline (src/runtime/protojson.ts) over the descriptor of `file`. */
export function runtimeCodec(file: string): ProtoJsonCodec {
  return reflectionCodec('src/runtime/protojson.ts', file, { fromJson, toJson })
}

/** What one side made of an input: a value, or the reason it was rejected. */
export type Outcome = { ok: true; value: unknown } | { ok: false; error: string }

/** Runs `f`, catching its rejection. */
export function attempt(f: () => unknown): Outcome {
  try {
    return { ok: true, value: f() }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) }
  }
}

/** Compact JSON of a value for a report (bigints and bytes readable). */
export function show(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    typeof v === 'bigint' ? `${v}n` : v instanceof Uint8Array ? `bytes(${Buffer.from(v).toString('hex')})` : v,
  )
}

/** A value as clients receive it: through JSON text (so `-0` is `0`, `undefined` members vanish). */
export function wire(value: unknown): unknown {
  const text = JSON.stringify(value)
  return text === undefined ? undefined : JSON.parse(text)
}

const sameWire = (a: unknown, b: unknown): boolean => isDeepStrictEqual(wire(a), wire(b))

/** The JSON pointer of the first place where `a` and `b` differ, with both values there; `undefined` if equal. */
export function firstDifference(a: unknown, b: unknown, path = ''): string | undefined {
  if (isDeepStrictEqual(a, b)) return undefined
  const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object'
  if (isObject(a) && isObject(b) && Array.isArray(a) === Array.isArray(b)) {
    for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const found = firstDifference(a[key], b[key], `${path}/${key}`)
      if (found !== undefined) return found
    }
  }
  return `${path || '/'}: ${show(a)} vs ${show(b)}`
}

function describeMismatch(what: string, ours: Outcome, theirs: Outcome): string {
  const side = (o: Outcome): string => (o.ok ? `accepts → ${show(o.value)}` : `rejects (${o.error})`)
  const where = ours.ok && theirs.ok ? ` [first difference at ${firstDifference(wire(ours.value), wire(theirs.value))}]` : ''
  return `${what}${where}: ours ${side(ours)}; bufbuild ${side(theirs)}`
}

/**
 * Decode direction: `json` as `typeName` through the codec and the oracle.
 * Both must accept or both reject; when both accept, the codec's canonical
 * JSON must equal bufbuild's and its binary must decode (in bufbuild) to the
 * same message. Returns the deviation, or `undefined` when they agree.
 */
export function compareDecode(codec: ProtoJsonCodec, oracle: Oracle, typeName: string, json: unknown): string | undefined {
  const theirsMessage = attempt(() => oracle.fromJson(typeName, json))
  const theirs: Outcome = theirsMessage.ok ? attempt(() => oracle.toJson(typeName, theirsMessage.value as never)) : theirsMessage
  const ours = attempt(() => codec.normalize(typeName, json))
  if (ours.ok !== theirs.ok) return describeMismatch(`decode ${show(json)}`, ours, theirs)
  if (!ours.ok || !theirs.ok) return undefined
  if (!sameWire(ours.value, theirs.value)) return describeMismatch(`decode ${show(json)}`, ours, theirs)
  // Binary: both sides through bufbuild's binary decoder (floats narrowed alike), compared as canonical JSON.
  const oursBinary = attempt(() => oracle.toJson(typeName, oracle.fromBinary(typeName, codec.jsonToBinary(typeName, json))))
  const message = (theirsMessage as { value: unknown }).value as never
  const theirsBinary = attempt(() => oracle.toJson(typeName, oracle.fromBinary(typeName, oracle.toBinary(typeName, message))))
  if (oursBinary.ok !== theirsBinary.ok || (oursBinary.ok && theirsBinary.ok && !sameWire(oursBinary.value, theirsBinary.value)))
    return describeMismatch(`decode to binary ${show(json)}`, oursBinary, theirsBinary)
  return undefined
}

/**
 * Encode direction: the message in `bytes` (protobuf binary of `typeName`)
 * as canonical JSON by the codec and by the oracle. Both must encode or both
 * refuse (a message with no JSON form), to deep-equal JSON. Returns the
 * deviation, or `undefined` when they agree.
 */
export function compareEncode(codec: ProtoJsonCodec, oracle: Oracle, typeName: string, bytes: Uint8Array): string | undefined {
  const theirs = attempt(() => oracle.toJson(typeName, oracle.fromBinary(typeName, bytes)))
  const ours = attempt(() => codec.binaryToJson(typeName, bytes))
  if (ours.ok !== theirs.ok) return describeMismatch(`encode ${show(bytes)}`, ours, theirs)
  if (ours.ok && theirs.ok && !sameWire(ours.value, theirs.value)) return describeMismatch(`encode ${show(bytes)}`, ours, theirs)
  return undefined
}
