/**
 * A descriptor set gives the tools its `.proto` gives, byte for byte: each
 * corpus proto (Google's APIs, test/corpus) built by buf as a buf image and
 * as a protoc-style FileDescriptorSet, read by `buildProtoTools` as the
 * command reads a set, against the same proto read from its text.
 */
import { rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { buildProtoTools } from '../../src/codegen/build-proto.ts'
import { buildCorpusProto, CORPUS, GOOGLE_PROTOS } from '../corpus/corpus.ts'
import { bufSet, setDir, type SetForm } from './set-helpers.ts'

const dir = setDir()
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const listed = (tools: readonly unknown[]): string => JSON.stringify(tools)

/** Each proto built from its text once, for every form it is compared with. */
const texts = new Map<string, ReturnType<typeof buildCorpusProto>['built']>()
const fromTextOf = (proto: string): ReturnType<typeof buildCorpusProto>['built'] => {
  if (!texts.has(proto)) texts.set(proto, buildCorpusProto(proto).built)
  return texts.get(proto)!
}

const JSON_FORM = ['google/firestore/v1/firestore.proto', 'google/pubsub/v1/pubsub.proto', 'google/cloud/kms/v1/service.proto']

describe.each<[SetForm, readonly string[]]>([
  ['image', CORPUS],
  ['protoc', CORPUS],
  ['image-json', JSON_FORM],
])('the corpus as a %s set', (form, protos) => {
  it.each(protos.map((proto) => [proto]))(
    '%s',
    (proto) => {
      const out = join(dir, form, `${basename(proto, '.proto')}.${form === 'image-json' ? 'json' : 'binpb'}`)
      bufSet(GOOGLE_PROTOS, [proto], out, form)
      const fromSet = buildProtoTools(out)
      const fromText = fromTextOf(proto)
      expect(fromSet.tools.length).toBeGreaterThan(0)
      expect(listed(fromSet.tools)).toBe(listed(fromText.tools))
      expect(listed(fromSet.types ? [fromSet.types] : [])).toBe(listed(fromText.types ? [fromText.types] : []))
      expect(fromSet.warnings).toEqual(fromText.warnings)
    },
    60_000,
  )
})
