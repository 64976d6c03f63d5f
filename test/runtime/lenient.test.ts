import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { Profile } from '../../src/runtime/types.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { recordingBackend } from '../helpers/recording-backend.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import { buildTools, MAX_INLINED_OBJECTS } from '../../src/schema/build-tools.ts'

const PLAYGROUND = fileURLToPath(new URL('../../playground/vibe.proto', import.meta.url))
const METHODS: Record<string, string[]> = {
  VibeService: ['SetVibe', 'GetVibe', 'UpdateVibe', 'ResetVibe', 'VibeHistory'],
  PlaylistService: ['CreatePlaylist', 'GetPlaylist', 'ListPlaylists', 'AddTrack', 'RemoveTrack', 'RateTrack'],
  JournalService: ['WriteEntry', 'GetEntry', 'AddComment', 'SearchEntries', 'DeleteEntry'],
}

function playground(profile: Profile) {
  const server = createProtoServer(specFromProto(PLAYGROUND, { profile }))
  const calls: Array<{ method: string; request: unknown }> = []
  for (const [service, methods] of Object.entries(METHODS)) {
    const backend = recordingBackend(methods)
    server.implement(service, backend.impl)
    backend.calls.push = (...items) => {
      calls.push(...items)
      return calls.length
    }
  }
  const call = async (tool: string, args: unknown) => {
    const before = calls.length
    const result = await server.call(tool, args)
    return {
      result,
      text: (result.content[0] as { text: string }).text,
      request: calls.length > before ? calls.at(-1)!.request : undefined,
    }
  }
  return { server, call }
}

describe('lenient arguments: every spelling protobuf JSON reads reaches the backend as canonical JSON', () => {
  const profiles = ['portable', 'strict', 'full'] as const
  for (const profile of profiles) {
    it(`${profile}: a numeric string for a float (Codex sends {"intensity":"1.5"}) and an enum number`, async () => {
      const { call } = playground(profile)
      const out = await call('SetVibe', { note: 'calm', intensity: '1.5', mood: 2 })
      expect(out.result.isError).toBe(false)
      expect(out.request).toEqual({ note: 'calm', intensity: 1.5, mood: 'MOOD_HYPED' })
    })

    it(`${profile}: proto field names, a number for an int64, an object for a map, a stringified message`, async () => {
      const { call } = playground(profile)
      const canonical = { vibe: { note: 'x', tags: { a: 'b' }, changeCount: '5' }, updateMask: 'tags,changeCount' }
      for (const args of [
        { vibe: { note: 'x', tags: { a: 'b' }, change_count: 5 }, update_mask: 'tags,changeCount' },
        { vibe: JSON.stringify({ note: 'x', tags: { a: 'b' }, changeCount: '5' }), updateMask: 'tags,changeCount' },
        { vibe: { note: 'x', tags: JSON.stringify({ a: 'b' }), changeCount: 5 }, updateMask: 'tags,changeCount' },
      ]) {
        const out = await call('UpdateVibe', args)
        expect(out.text).not.toMatch(/^invalid|^decoding/)
        expect(out.request).toEqual(canonical)
      }
    })

    it(`${profile}: unknown fields and wrong values stay errors, in the texts of the advertised schema`, async () => {
      const { call } = playground(profile)
      const unknown = await call('SetVibe', { note: 'x', nope: 1 })
      expect(unknown.text).toBe('invalid arguments: /nope: unknown field (did you mean "note"?)')
      expect(unknown.request).toBeUndefined()
      const bad = await call('SetVibe', { note: 5 })
      expect(bad.text).toBe(`invalid arguments: /note: 5 is not of ${profile === 'strict' ? 'types "string", "null"' : 'type "string"'}`)
      expect(bad.request).toBeUndefined()
    })
  }

  it('portable: map entries and JSON text become protobuf JSON; native JSON for JSON text is accepted too', async () => {
    const { call } = playground('portable')
    const entries = await call('UpdateVibe', { vibe: { tags: [{ key: 'a', value: 'b' }], changeCount: '7' } })
    expect(entries.request).toEqual({ vibe: { tags: { a: 'b' }, changeCount: '7' } })
    const canonical = { text: 't', metadata: { a: 1 }, weather: { sky: 'clear' }, checklist: [1, 'two'] }
    const text = await call('WriteEntry', { text: 't', metadata: '{"a":1}', weather: '{"sky":"clear"}', checklist: '[1,"two"]' })
    expect(text.request).toEqual(canonical)
    const native = await call('WriteEntry', { text: 't', metadata: { a: 1 }, weather: { sky: 'clear' }, checklist: [1, 'two'] })
    expect(native.request).toEqual(canonical)
  })

  it('portable: JSON text that does not parse is a decoding error naming the field', async () => {
    const { call } = playground('portable')
    const out = await call('WriteEntry', { text: 't', metadata: '{nope' })
    expect(out.text).toBe('decoding arguments: metadata: not valid JSON text')
    expect(out.request).toBeUndefined()
  })

  it('portable: a 64-bit integer that is not a decimal string is refused by the advertised pattern', async () => {
    const { call } = playground('portable')
    const out = await call('UpdateVibe', { vibe: { changeCount: 'many' } })
    expect(out.text).toBe('invalid arguments: /vibe/changeCount: "many" does not match "^-?[0-9]+$"')
  })

  it('portable: recursion past the inlined depth is JSON text, native objects accepted too', async () => {
    const { call, server } = playground('portable')
    const deep = { text: 'a', replies: [{ text: 'b', replies: [{ text: 'c', replies: [{ text: 'd', replies: [{ text: 'e' }] }] }] }] }
    const listed = server.listTools().find((t) => t.name === 'AddComment')!.inputSchema as any
    const third = listed.properties.comment.properties.replies.items.properties.replies.items.properties.replies
    expect(third.items).toMatchObject({ type: 'string' })
    const native = await call('AddComment', { entryId: 'e1', comment: deep })
    expect(native.text).not.toMatch(/^invalid|^decoding/)
    expect(native.request).toEqual({ entryId: 'e1', comment: deep })
    const asText = structuredClone(deep) as any
    asText.replies[0].replies[0].replies[0] = JSON.stringify(deep.replies[0]!.replies[0]!.replies[0])
    const text = await call('AddComment', { entryId: 'e1', comment: asText })
    expect(text.request).toEqual({ entryId: 'e1', comment: deep })
  })

  it('portable: a message recursing through many fields is inlined less deep, and the lenient pass follows it', async () => {
    // 1 + 24 + 24² objects at depth 3: over the budget; depth 2 keeps 25.
    const fields = 'abcdefghijklmnopqrstuvwx'
      .split('')
      .map((n, i) => `Expr ${n} = ${i + 2};`)
      .join(' ')
    const dir = writeProtos({
      'expr.proto': `syntax = "proto3"; package x;
message Expr { string id = 1; ${fields} }
service S { rpc Eval(Expr) returns (Expr); }`,
    })
    const file = join(dir, 'expr.proto')
    const built = buildTools(loadProto(file), { profile: 'portable' })
    const count = (s: unknown): number =>
      s && typeof s === 'object' ? ('properties' in s ? 1 : 0) + Object.values(s).reduce((n: number, v) => n + count(v), 0) : 0
    expect(count(built.tools[0]!.inputSchema)).toBeLessThanOrEqual(MAX_INLINED_OBJECTS)
    expect(built.warnings).toEqual([
      {
        code: 'RECURSION_SHALLOWER',
        message:
          'tool "Eval": x.Expr recurses through many fields; inlined 2 deep instead of 3 to keep its schema under 500 objects (deeper levels are JSON text)',
      },
    ])
    expect(built.lenient!.depths).toEqual({ 'x.Expr': 2 })
    const server = createProtoServer(specFromProto(file, { profile: 'portable' }))
    let got: unknown
    server.implement('S', {
      Eval: (r: unknown) => {
        got = r
        return {}
      },
    })
    const deep = { id: '1', a: { id: '2', b: { id: '3', c: { id: '4' } } } }
    // The token budget never opens a message inside itself: `a` is a placeholder; the validator still checks it whole.
    expect((server.listTools()[0]!.inputSchema as any).properties.a).toMatchObject({
      type: 'string',
      description: 'JSON text of x.Expr; schema: describe_type',
    })
    expect((await server.call('Eval', deep)).isError).toBe(false)
    expect(got).toEqual(deep)
    expect((await server.call('Eval', { id: '1', a: { id: '2', b: JSON.stringify({ id: '3', c: { id: '4' } }) } })).isError).toBe(false)
    expect(got).toEqual(deep)
  })

  it('strict: every property is advertised required and nullable; missing and null ones mean "not set"', async () => {
    const { call, server } = playground('strict')
    const listed = server.listTools().find((t) => t.name === 'SetVibe')!.inputSchema as any
    expect([...listed.required].sort()).toEqual(Object.keys(listed.properties).sort())
    expect(listed.additionalProperties).toBe(false)
    expect(listed.properties.note.type).toEqual(['string', 'null'])
    const nulls = await call('SetVibe', { note: 'x', intensity: null, mood: null })
    expect(nulls.request).toEqual({ note: 'x' })
    const missing = await call('SetVibe', { note: 'x' })
    expect(missing.request).toEqual({ note: 'x' })
  })

  it('portable: a float that is not a number reads as the advertised {"type":"number"}, not as the validator\'s anyOf', async () => {
    for (const profile of ['portable', 'strict'] as const) {
      const { call } = playground(profile)
      const out = await call('SetVibe', { note: 'x', intensity: 'strong' })
      expect(out.text).toBe('invalid arguments: /intensity: "strong" is not of type "number"')
      const nan = await call('SetVibe', { note: 'x', intensity: 'NaN' })
      expect(nan.request).toEqual({ note: 'x', intensity: 'NaN' })
    }
    const { call } = playground('full')
    const full = await call('SetVibe', { note: 'x', intensity: 'strong' })
    expect(full.text).toBe('invalid arguments: /intensity: "strong" is not valid under any of the schemas listed in the \'anyOf\' keyword')
  })

  it('topeka validates as Topeka does: no other spellings', async () => {
    const { call } = playground('topeka')
    const out = await call('SetVibe', { note: 'x', intensity: '1.5' })
    expect(out.text).toMatch(/^invalid arguments: \/intensity/)
    expect(out.request).toBeUndefined()
  })
})
