/**
 * A reply missing a proto2 `required` field (editions `LEGACY_REQUIRED`) is
 * the tool error `encoding response: <path>: required field not set`, as
 * protobuf JSON encoders refuse such a message (regression: it was answered
 * as success). Directly, nested, in list items and map values, streamed; the
 * same with the generated codecs as with reflection alone; and through a
 * real MCP client.
 */
import { fileURLToPath } from 'node:url'
import { Client, InMemoryTransport } from '@modelcontextprotocol/client'
import { describe, expect, it } from 'vitest'
import { CODEC_BAIL } from '../../src/runtime/codec.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import type { ProtoServerSpec } from '../../src/runtime/types.ts'
import { loadCodecs } from '../codegen/codec-harness.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { text } from '../helpers/result.ts'

const REQUIRED_PROTO = fileURLToPath(new URL('../../fixtures/protos/runtime/required.proto', import.meta.url))
const LEGACY_REQUIRED_PROTO = fileURLToPath(new URL('../../fixtures/protos/editions/legacy-required.proto', import.meta.url))

/** The spec of `file`, with the generated codecs attached when `codecs` (as the generated module has them). */
function spec(file: string, codecs: boolean): ProtoServerSpec {
  const base = specFromProto(file)
  if (!codecs) return base
  const loaded = loadCodecs(file)
  return {
    ...base,
    tools: base.tools.map((tool) => ({
      ...tool,
      decode: loaded.codecs.get(tool.requestType),
      encode: loaded.codecs.get(tool.responseType),
    })),
  }
}

/** A ReportService server answering `reply` to GetReport and streaming `stream` from WatchReports. */
function reportServer(codecs: boolean, reply: unknown, stream: unknown[] = []) {
  return createProtoServer(spec(REQUIRED_PROTO, codecs)).implement('ReportService', {
    GetReport: () => reply,
    WatchReports: () => stream,
    GetStamped: () => reply,
  })
}

const PART = { done: false }
const COMPLETE = { count: 0, title: '', main: PART, parts: [PART], byName: { a: PART }, child: { count: 1, title: 'c' } }

describe.each([
  ['reflection', false],
  ['generated codecs', true],
])('with %s', (_title, codecs) => {
  it('a complete reply, zero values included, is a success and keeps them', async () => {
    const result = await reportServer(codecs, COMPLETE).call('GetReport', {})
    expect(result.isError).toBe(false)
    expect(JSON.parse(text(result))).toEqual({
      count: 0,
      title: '',
      main: { done: false },
      parts: [{ done: false }],
      byName: { a: { done: false } },
      child: { count: 1, title: 'c' },
    })
  })

  it.each([
    ['a top-level field', { title: 't' }, 'count'],
    ['a field set to null', { count: 1, title: null }, 'title'],
    ['a field of a nested message', { ...COMPLETE, main: { note: 'x' } }, 'main.done'],
    ['a field of a list item', { ...COMPLETE, parts: [PART, {}] }, 'parts[1].done'],
    ['a field of a map value', { ...COMPLETE, byName: { a: PART, 'b"c': {} } }, 'byName["b\\"c"].done'],
    ['a field of a recursive message', { ...COMPLETE, child: { count: 1, child: { title: 'x' } } }, 'child.title'],
    ['a field given by its proto name elsewhere in the reply', { count: 1, title: 't', by_name: { k: { note: 'n' } } }, 'byName["k"].done'],
  ])('missing %s: encoding response', async (_case, reply, path) => {
    expect(await reportServer(codecs, reply).call('GetReport', {})).toEqual({
      content: [{ type: 'text', text: `encoding response: ${path}: required field not set` }],
      isError: true,
    })
  })

  it('an empty reply (the handler returned nothing) lacks the first required field', async () => {
    expect(text(await reportServer(codecs, undefined).call('GetReport', {}))).toBe('encoding response: count: required field not set')
  })

  it('a required well-known field', async () => {
    const server = reportServer(codecs, {})
    expect(text(await server.call('GetStamped', {}))).toBe('encoding response: at: required field not set')
    const ok = createProtoServer(spec(REQUIRED_PROTO, codecs)).implement('ReportService', {
      GetStamped: () => ({ at: '1970-01-01T00:00:01Z' }),
    })
    expect(text(await ok.call('GetStamped', {}))).toBe('{"at":"1970-01-01T00:00:01Z"}')
  })

  it('a streamed message missing one names its position in the stream', async () => {
    const result = await reportServer(codecs, {}, [COMPLETE, { count: 2 }]).call('WatchReports', {})
    expect(text(result)).toBe('encoding response: message 2 of the stream: title: required field not set')
    expect(result.isError).toBe(true)
  })

  it('a reply that is wrong in another way keeps its own error', async () => {
    expect(text(await reportServer(codecs, { count: 'many' }).call('GetReport', {}))).toBe(
      'encoding response: count: invalid integer: "many"',
    )
  })

  it('editions LEGACY_REQUIRED: the same', async () => {
    const server = createProtoServer(spec(LEGACY_REQUIRED_PROTO, codecs)).implement('TicketService', { GetTicket: () => ({ owner: 'me' }) })
    expect(text(await server.call('GetTicket', { id: 't-1' }))).toBe('encoding response: id: required field not set')
    const ok = createProtoServer(spec(LEGACY_REQUIRED_PROTO, codecs)).implement('TicketService', { GetTicket: () => ({ id: '' }) })
    expect(text(await ok.call('GetTicket', { id: 't-1' }))).toBe('{"id":""}')
  })
})

describe('the generated codecs', () => {
  const loaded = loadCodecs(REQUIRED_PROTO)
  const report = loaded.codecs.get('required.v1.Report')!

  it('leave a message without a required field to reflection, and convert a complete one', () => {
    expect(report({ title: 't' }, 0)).toBe(CODEC_BAIL)
    expect(report({ count: 1, title: null }, 0)).toBe(CODEC_BAIL)
    expect(report({ ...COMPLETE, parts: [{}] }, 0)).toBe(CODEC_BAIL)
    expect(report({ count: 3, title: 'x', parts: [{ done: true }] }, 0)).toEqual({ count: 3, title: 'x', parts: [{ done: true }] })
  })

  it('leave a message with a required well-known field to reflection, set or not', () => {
    const stamped = loaded.codecs.get('required.v1.Stamped')!
    expect(stamped({}, 0)).toBe(CODEC_BAIL)
    expect(stamped({ at: '1970-01-01T00:00:01Z' }, 0)).toBe(CODEC_BAIL)
  })
})

describe('through a real MCP client', () => {
  it('GetReport without a required field is a tool error; a complete reply is a success', async () => {
    let reply: unknown = { count: 1 }
    const server = createProtoServer(spec(REQUIRED_PROTO, true)).implement('ReportService', { GetReport: () => reply })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    const connection = await server.connect(serverSide)
    const client = new Client({ name: 'required-replies-test', version: '0.0.0' })
    await client.connect(clientSide)
    try {
      expect(await client.callTool({ name: 'GetReport', arguments: {} })).toEqual({
        content: [{ type: 'text', text: 'encoding response: title: required field not set' }],
        isError: true,
      })
      reply = { count: 1, title: 'ok' }
      const ok = await client.callTool({ name: 'GetReport', arguments: {} })
      expect(ok.isError).toBe(false)
      expect(ok.structuredContent).toEqual({ count: 1, title: 'ok' })
    } finally {
      await client.close()
      await connection.close()
    }
  })
})
