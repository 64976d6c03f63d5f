/**
 * `undefined` in a reply means "not set", at any depth (as protobufjs's
 * `fromObject` and protobuf-es's `create` read it): `{ vibe: req.vibe }` for a
 * request without `vibe` answers `{}`, not `encoding response: vibe: expected
 * string: undefined`. Checked through the generated codecs of the real module
 * and through the reflection path alone (a spec without codecs).
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { Server } from '../../src/server/index.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { loadMcpModule } from '../helpers/load-module.ts'

const PROTO = fileURLToPath(new URL('../../fixtures/protos/hardening/not-set.proto', import.meta.url))

const REPLIES: [string, unknown, unknown][] = [
  ['a top-level field', { vibe: undefined }, {}],
  ['next to set fields', { vibe: 'x', note: undefined, count: undefined }, { vibe: 'x' }],
  ['inside a message', { inner: { vibe: undefined, children: undefined } }, { inner: {} }],
  ['inside a repeated message', { items: [{ vibe: 'a', children: [{ vibe: undefined }] }] }, { items: [{ vibe: 'a', children: [{}] }] }],
  ['as a map value', { tags: { a: 'x', b: undefined } }, { tags: { a: 'x' } }],
  ['with a fix-up elsewhere (a bigint)', { count: 5n, note: undefined }, { count: '5' }],
]

const servers: [string, () => Promise<Server>][] = [
  ['generated codecs', async () => (await loadMcpModule(PROTO)).server],
  ['reflection only', async () => createProtoServer(specFromProto(PROTO)) as unknown as Server],
]

describe.each(servers)('undefined means not set (%s)', (_title, make) => {
  it.each(REPLIES)('%s', async (_case, reply, expected) => {
    const server = await make()
    server.implement('NotSetService', { Echo: () => reply, Watch: () => [reply] })
    const result = await server.call('Echo', {})
    expect(result.isError, result.content[0].text).toBe(false)
    expect(JSON.parse(result.content[0].text)).toEqual(expected)
    const streamed = await server.call('Watch', {})
    expect(streamed.isError, streamed.content[0].text).toBe(false)
    expect(JSON.parse(streamed.content[0].text)).toEqual({ messages: [expected] })
  })

  it('answers { vibe: req.vibe } for a request without vibe', async () => {
    const server = await make()
    server.implement('NotSetService', { Echo: (req: { vibe?: string }) => ({ vibe: req.vibe }) })
    const result = await server.call('Echo', {})
    expect(result.content[0].text).toBe('{}')
  })

  it('still rejects an unknown key, and undefined as a list item', async () => {
    const server = await make()
    server.implement('NotSetService', { Echo: () => ({ vibe: 'x', vibez: 'y' }) })
    expect((await server.call('Echo', {})).content[0].text).toMatch(/^encoding response: vibez: /)
    server.implement('NotSetService', { Echo: () => ({ items: [undefined] }) })
    expect((await server.call('Echo', {})).isError).toBe(true)
  })
})
