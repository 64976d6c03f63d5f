/**
 * Pins each known deviation of the runtime codec from @bufbuild/protobuf
 * (docs/guide/protobuf-json.md): what we do, what bufbuild
 * does, and, where it decides, what Go's protojson does. Also pins the
 * deviations this suite found and fixed, so they stay fixed.
 */
import { readFileSync } from 'node:fs'
import { create, createFileRegistry, fromBinary, fromJson as bufFromJson, toJson as bufToJson, type FileRegistry } from '@bufbuild/protobuf'
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt'
import { join } from 'node:path'
import protobuf from 'protobufjs'
import descriptor from 'protobufjs/ext/descriptor.js'
import { writeProtos } from '../helpers/inline-proto.ts'
import { describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/server/index.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { CORPUS_PROTO } from './differential-suite.ts'
import { DEVIATIONS } from './edge-cases.ts'
import { attempt, runtimeCodec, wire } from './harness.ts'
import { createOracle } from './oracle.ts'

/** A request message with an extension (the oracle's hand-written descriptors have none). */
const EXTENSION_PROTO =
  'syntax = "proto2";\npackage dev.v1;\nmessage Note { optional string title = 1; extensions 100 to 199; }\nextend Note { optional string author = 100; }\n'

/** bufbuild's registry of `file`, from protobufjs's FileDescriptorSet of it (its copies of extensions in the extended message left out). */
function bufbuildRegistry(file: string): FileRegistry {
  const root = new protobuf.Root()
  root.loadSync(file, { keepCase: true })
  root.resolveAll()
  const set = fromBinary(FileDescriptorSetSchema, descriptor.FileDescriptorSet.encode(root.toDescriptor('proto2')).finish())
  for (const proto of set.file)
    for (const message of proto.messageType) message.field = message.field.filter((f) => !f.name.startsWith('.'))
  return createFileRegistry(set)
}

const oracle = createOracle(CORPUS_PROTO)
const codec = runtimeCodec(CORPUS_PROTO)
const S = 'protojson.v1.Scalars'
const C = 'protojson.v1.Corpus'
const W = 'protojson.v1.WellKnown'
const M = 'protojson.v1.Maps'

const ours = (type: string, json: unknown): unknown => {
  const outcome = attempt(() => wire(codec.normalize(type, json)))
  return outcome.ok ? outcome.value : 'rejected'
}
const theirs = (type: string, json: unknown): unknown => {
  const outcome = attempt(() => wire(oracle.toJson(type, oracle.fromJson(type, json))))
  return outcome.ok ? outcome.value : 'rejected'
}

describe('known deviations from @bufbuild/protobuf', () => {
  it(DEVIATIONS.negativeZero, () => {
    expect(ours(S, { fDouble: -0, fFloat: -0 })).toEqual({})
    expect(theirs(S, { fDouble: -0, fFloat: -0 })).toEqual({ fDouble: 0, fFloat: 0 })
    const bytes = oracle.toBinary(S, create(oracle.message(S), { fDouble: -0 } as never))
    expect(bytes.length).toBeGreaterThan(0)
    expect(wire(codec.binaryToJson(S, bytes))).toEqual({})
    // Fields with explicit presence keep it.
    expect(ours('protojson.v1.OptionalScalars', { oDouble: -0 })).toEqual({ oDouble: 0 })
  })

  it(DEVIATIONS.nullOneofMember, () => {
    // As Go's protojson: null is "not set", whatever the member's type.
    expect(ours(C, { cString: 'x', cColor: null })).toEqual({ cString: 'x' })
    expect(ours(C, { cLeaf: null, cString: 'x' })).toEqual({ cString: 'x' })
    expect(theirs(C, { cLeaf: null, cString: 'x' })).toBe('rejected')
    // bufbuild skips null scalar members, as we do.
    expect(theirs(C, { cBytes: null, cString: 'x' })).toEqual({ cString: 'x' })
    // A null Value is a value: two members.
    expect(ours(C, { cValue: null, cString: 'x' })).toBe('rejected')
  })

  it(DEVIATIONS.hexStrings, () => {
    expect(ours(S, { fInt32: '0x10' })).toBe('rejected')
    expect(ours(S, { fDouble: '0x1' })).toBe('rejected')
    expect(theirs(S, { fInt32: '0x10' })).toEqual({ fInt32: 16 })
  })

  it(DEVIATIONS.exponentStrings64, () => {
    // As Go's protojson, which reads a quoted integer as a JSON number.
    expect(ours(S, { fInt64: '1e18', fUint64: '1.5e3' })).toEqual({ fInt64: '1000000000000000000', fUint64: '1500' })
    expect(theirs(S, { fInt64: '1e18' })).toBe('rejected')
    expect(ours(S, { fInt64: '1.5' })).toBe('rejected')
  })

  it(DEVIATIONS.spacedStrings64, () => {
    expect(ours(S, { fInt64: ' 5' })).toBe('rejected')
    expect(ours(S, { fSint64: '5 ' })).toBe('rejected')
    expect(theirs(S, { fInt64: ' 5' })).toEqual({ fInt64: '5' })
  })

  it(DEVIATIONS.strictBase64, () => {
    for (const text of ['AQ=', 'A===', 'AQID\n', ' AQID', 'AQ==AQ==', '====', 'QUJD=']) expect(ours(S, { fBytes: text })).toBe('rejected')
    expect(theirs(S, { fBytes: 'AQ==AQ==' })).toEqual({ fBytes: 'AQE=' })
    // Standard and URL-safe alphabets, padded or not, are all read.
    expect(ours(S, { fBytes: '-_8' })).toEqual({ fBytes: '+/8=' })
    expect(ours(S, { fBytes: '+/8=' })).toEqual({ fBytes: '+/8=' })
  })

  it(DEVIATIONS.numberSyntaxMapKeys, () => {
    for (const key of ['+1', '1.0', '1e2']) expect(ours(M, { kInt32: { [key]: 'a' } })).toBe('rejected')
    expect(theirs(M, { kInt32: { '1e2': 'a' } })).toEqual({ kInt32: { 100: 'a' } })
    expect(ours(M, { kInt32: { '01': 'a', '-2': 'b' } })).toEqual({ kInt32: { 1: 'a', '-2': 'b' } })
  })

  it(DEVIATIONS.impossibleDates, () => {
    expect(ours(W, { timestamp: '2019-02-29T00:00:00Z' })).toBe('rejected')
    expect(ours(W, { timestamp: '2020-01-01T24:00:00Z' })).toBe('rejected')
    expect(theirs(W, { timestamp: '2019-02-29T00:00:00Z' })).toEqual({ timestamp: '2019-03-01T00:00:00Z' })
    expect(ours(W, { timestamp: '2020-02-29T00:00:00Z' })).toEqual({ timestamp: '2020-02-29T00:00:00Z' })
  })

  it(DEVIATIONS.anyTypeUrl, () => {
    const custom = { any: { '@type': 'example.com/a/protojson.v1.Leaf', name: 'x' } }
    expect(ours(W, custom)).toEqual(custom)
    expect(theirs(W, custom)).toEqual({ any: { '@type': 'type.googleapis.com/protojson.v1.Leaf', name: 'x' } })
    // A URL without a slash is not a type URL; protobufjs prefixes one.
    expect(ours(W, { any: { '@type': 'protojson.v1.Leaf', name: 'x' } })).toEqual({ any: { '@type': '/protojson.v1.Leaf', name: 'x' } })
  })

  it(DEVIATIONS.extensionKeys, () => {
    const file = join(writeProtos({ 'ext.proto': EXTENSION_PROTO }), 'ext.proto')
    const note = (json: unknown): unknown => wire(runtimeCodec(file).normalize('dev.v1.Note', json))
    expect(note({ 'dev.v1.author': 'ada' })).toEqual({ 'dev.v1.author': 'ada' })
    // The bracketed key is read too; the answer is dotted.
    expect(note({ '[dev.v1.author]': 'ada' })).toEqual({ 'dev.v1.author': 'ada' })
    const registry = bufbuildRegistry(file)
    const schema = registry.getMessage('dev.v1.Note')!
    const message = bufFromJson(schema, { '[dev.v1.author]': 'ada' }, { registry })
    expect(bufToJson(schema, message, { registry })).toEqual({ '[dev.v1.author]': 'ada' })
    expect(attempt(() => bufFromJson(schema, { 'dev.v1.author': 'ada' }, { registry })).ok).toBe(false)
  })

  it(DEVIATIONS.valueWithoutKind, () => {
    const bytes = oracle.toBinary(W, create(oracle.message(W), { value: create(oracle.message('google.protobuf.Value')) } as never))
    expect(wire(codec.binaryToJson(W, bytes))).toEqual({ value: null })
    expect(attempt(() => oracle.toJson(W, oracle.fromBinary(W, bytes))).ok).toBe(false)
  })
})

describe('the guide lists the known deviations', () => {
  it('names every one of them in the table of docs/guide/protobuf-json.md, and no other', () => {
    const section = readFileSync(new URL('../../docs/guide/protobuf-json.md', import.meta.url), 'utf8')
    const rows = [...section.matchAll(/^\| ([^|]+?) \|/gm)]
      .map((m) => m[1])
      .filter((name) => name !== 'deviation' && !name!.startsWith('-'))
    expect(rows.sort()).toEqual(Object.values(DEVIATIONS).sort())
  })
})

describe('deviations found by the differential tests and fixed', () => {
  it('a tool call with malformed base64 is a decoding error naming the field', async () => {
    const server = createProtoServer(specFromProto(CORPUS_PROTO))
    const result = await server.call('Echo', { scalars: { fBytes: 'AQ=D' } })
    expect(result).toEqual({
      content: [{ type: 'text', text: 'decoding arguments: scalars.fBytes: invalid base64: "AQ=D"' }],
      isError: true,
    })
  })

  it('malformed base64 decoded to garbage bytes: now rejected, naming the field', () => {
    expect(() => codec.normalize(S, { fBytes: 'AQ=D' })).toThrow('.protojson.v1.Scalars.fBytes: invalid base64: "AQ=D"')
    expect(ours(W, { bytesValue: 'AQ.D' })).toBe('rejected')
    expect(ours(C, { maps: { kSint64: { 1: 'A=B=' } } })).toBe('rejected')
    expect(ours(W, { any: { '@type': 'type.googleapis.com/google.protobuf.BytesValue', value: '!!' } })).toBe('rejected')
    expect(ours(W, { any: { '@type': 'type.googleapis.com/protojson.v1.Scalars', fBytes: 'A=B=' } })).toBe('rejected')
  })

  it('an Any with fields but no @type decoded to an empty Any: now rejected', () => {
    expect(ours(W, { any: { name: 'x' } })).toBe('rejected')
    expect(theirs(W, { any: { name: 'x' } })).toBe('rejected')
    expect(ours(W, { any: {} })).toEqual({ any: {} })
  })

  it('the lowerCamel proto name of a field with its own json_name was a third accepted key: now rejected', () => {
    expect(ours(C, { customJson: 'a' })).toBe('rejected')
    expect(ours(C, { fieldWith_2Digits: 1 })).toBe('rejected')
    expect(ours(C, { renamed: 'a', field_with_2_digits: 1, _leading_underscore: 'b' })).toEqual({
      renamed: 'a',
      fieldWith2Digits: 1,
      LeadingUnderscore: 'b',
    })
  })
})
