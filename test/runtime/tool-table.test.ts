/**
 * `implement()`: service and method resolution with the spec's `services`
 * (RPCs without a tool are accepted), and method lookup that never binds
 * Object.prototype's members.
 */
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { loadProto } from '../../src/proto/load-proto.ts'
import type { ProtoServerSpec } from '../../src/runtime/types.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { text } from '../helpers/result.ts'

const MIXED_PROTO = `syntax = "proto3";
package mixed.v1;
message Msg { string s = 1; }
service First {
  rpc Unary(Msg) returns (Msg);
  rpc Down(Msg) returns (stream Msg);
  rpc Shared(Msg) returns (Msg);
  rpc Up(stream Msg) returns (Msg);
  rpc Chat(stream Msg) returns (stream Msg);
}
service Second {
  rpc Shared(Msg) returns (Msg);
}
service OnlyStreams {
  rpc Watch(Msg) returns (stream Msg);
  rpc Upload(stream Msg) returns (Msg);
}
`

const BUILTINS_PROTO = `syntax = "proto3";
package names.v1;
message Msg { string s = 1; }
service Names {
  rpc ToString(Msg) returns (Msg);
  rpc ValueOf(Msg) returns (Msg);
  rpc Constructor(Msg) returns (Msg);
  rpc HasOwnProperty(Msg) returns (Msg);
  rpc Echo(Msg) returns (Msg);
}
`

/** The spec of `source` with `services` built here (every service and all its RPC names). */
function specWithServices(file: string, source: string): ProtoServerSpec {
  const path = join(writeProtos({ [file]: source }), file)
  const { services: _fromHelper, ...spec } = specFromProto(path)
  const model = loadProto(path)
  return { ...spec, services: Object.fromEntries(model.services.map((s) => [s.fullName, s.methods.map((m) => m.name)])) }
}

describe("implement() with the spec's services", () => {
  it('accepts client-streaming and bidi RPCs (never tools), and never calls them', async () => {
    const spec = specWithServices('mixed.proto', MIXED_PROTO)
    expect(spec.tools.map((t) => t.name)).not.toContain('Up')
    expect(spec.tools.map((t) => t.name)).not.toContain('Chat')
    const server = createProtoServer(spec)
    let called = 0
    const never = () => {
      called++
      throw new Error('never called')
    }
    expect(() => server.implement('First', { Unary: (r: unknown) => r, Up: never, chat: never })).not.toThrow()
    expect(text(await server.call('Unary', { s: 'x' }))).toBe('{"s":"x"}')
    await expect(server.call('Up', { s: 'x' })).rejects.toMatchObject({ code: -32602 })
    expect(called).toBe(0)
  })

  it('a server-streaming RPC is a tool in the default profile: its handler streams, the tool collects', async () => {
    const spec = specWithServices('mixed.proto', MIXED_PROTO)
    expect(spec.tools.find((t) => t.name === 'Down')?.serverStreaming).toBe(true)
    const server = createProtoServer(spec)
    server.implement('First', {
      Down: function* (r: { s: string }) {
        yield { s: `${r.s}1` }
        yield { s: `${r.s}2` }
      },
    })
    expect(text(await server.call('Down', { s: 'd' }))).toBe('{"messages":[{"s":"d1"},{"s":"d2"}]}')
  })

  it('in the topeka profile a server-streaming RPC has no tool and is accepted like the others', async () => {
    const path = join(writeProtos({ 'mixed.proto': MIXED_PROTO }), 'mixed.proto')
    const spec = specFromProto(path, { profile: 'topeka' })
    expect(spec.tools.map((t) => t.name)).not.toContain('Down')
    const server = createProtoServer(spec)
    expect(() => server.implement('First', { Unary: (r: unknown) => r, Down: () => ({}) })).not.toThrow()
    await expect(server.call('Down', { s: 'x' })).rejects.toMatchObject({ code: -32602 })
  })

  it('accepts an RPC whose tool name another service took', async () => {
    const spec = specWithServices('mixed.proto', MIXED_PROTO)
    const shared = spec.tools.find((t) => t.name === 'Shared')!
    const owner = shared.service.endsWith('.First') ? 'First' : 'Second'
    const other = owner === 'First' ? 'Second' : 'First'
    const server = createProtoServer(spec)
    server.implement(other, { Shared: () => ({ s: 'other' }) })
    server.implement(owner, { Shared: () => ({ s: 'owner' }) })
    expect(text(await server.call('Shared', {}))).toBe('{"s":"owner"}')
  })

  it('accepts a service with only streaming RPCs', () => {
    const server = createProtoServer(specWithServices('mixed.proto', MIXED_PROTO))
    expect(() => server.implement('OnlyStreams', { Watch: () => ({}), upload: () => ({}) })).not.toThrow()
    expect(() => server.implement('mixed.v1.OnlyStreams', {})).not.toThrow()
  })

  it('still rejects names the proto lacks', () => {
    const server = createProtoServer(specWithServices('mixed.proto', MIXED_PROTO))
    expect(() => server.implement('Nope', {})).toThrow(
      'unknown service "Nope": known services: "mixed.v1.First", "mixed.v1.Second", "mixed.v1.OnlyStreams"',
    )
    expect(() => server.implement('OnlyStreams', { Nope: () => ({}) })).toThrow(
      'unknown method "Nope" in the implementation of "mixed.v1.OnlyStreams": its RPCs are "Watch", "Upload"',
    )
  })

  it('through specFromProto (services as the code generator emits them): streaming and only-streaming services are accepted', async () => {
    const spec = specFromProto(join(writeProtos({ 'mixed.proto': MIXED_PROTO }), 'mixed.proto'))
    expect(spec.services).toEqual({
      'mixed.v1.First': ['Unary', 'Down', 'Shared', 'Up', 'Chat'],
      'mixed.v1.Second': ['Shared'],
      'mixed.v1.OnlyStreams': ['Watch', 'Upload'],
    })
    const server = createProtoServer(spec)
    server.implement('OnlyStreams', { watch: () => ({}) })
    server.implement('First', { Unary: (r: unknown) => r, Down: () => ({}), Shared: () => ({}) })
    server.implement('Second', { Shared: () => ({}) })
    expect(text(await server.call('Unary', { s: 'z' }))).toBe('{"s":"z"}')
    expect(() => server.implement('Third', {})).toThrow(/^unknown service "Third"/)
  })

  it('an empty services record has no services', () => {
    const spec = { ...specWithServices('mixed.proto', MIXED_PROTO), services: {} }
    expect(() => createProtoServer(spec).implement('First', {})).toThrow('unknown service "First": this server has no services')
  })
})

describe('implementation methods are never bound from Object.prototype', () => {
  for (const rpc of ['ToString', 'ValueOf', 'Constructor', 'HasOwnProperty']) {
    it(`${rpc} left out answers Unimplemented`, async () => {
      const server = createProtoServer(specWithServices('names.proto', BUILTINS_PROTO))
      server.implement('Names', { Echo: (r: unknown) => r })
      const result = await server.call(rpc, {})
      expect(result).toEqual({
        content: [{ type: 'text', text: `rpc error: code = Unimplemented desc = method ${rpc} not implemented` }],
        isError: true,
      })
    })
  }

  it('class instances keep their inherited methods; a function implementation binds its own members only', async () => {
    class Impl {
      prefix = 'c:'
      Echo(req: { s?: string }) {
        return { s: this.prefix + (req.s ?? '') }
      }
    }
    const server = createProtoServer(specWithServices('names.proto', BUILTINS_PROTO))
    server.implement('Names', new Impl())
    expect(text(await server.call('Echo', { s: 'x' }))).toBe('{"s":"c:x"}')
    expect(text(await server.call('ToString', { s: 'x' }))).toBe('rpc error: code = Unimplemented desc = method ToString not implemented')
    expect(text(await server.call('ValueOf', {}))).toBe('rpc error: code = Unimplemented desc = method ValueOf not implemented')
    const functionImpl = Object.assign(() => {}, { valueOf: () => ({ s: 'v' }) })
    server.implement('Names', functionImpl)
    expect(text(await server.call('ValueOf', {}))).toBe('{"s":"v"}')
    expect(text(await server.call('Constructor', {}))).toBe('rpc error: code = Unimplemented desc = method Constructor not implemented')
  })
})

describe("topeka profile: tools named by the RPC's Go name are implemented by the RPC name as written", () => {
  const GO_NAMES_PROTO = `syntax = "proto3";
package health.v1;
message Msg { string s = 1; }
service Health {
  rpc monitorHealth(Msg) returns (Msg);
  rpc get_vibe(Msg) returns (Msg);
}
`
  const spec = (): ProtoServerSpec =>
    specFromProto(join(writeProtos({ 'health.proto': GO_NAMES_PROTO }), 'health.proto'), { profile: 'topeka' })

  it('binds get_vibe and monitorHealth to the tools GetVibe and MonitorHealth', async () => {
    const server = createProtoServer(spec()).implement('Health', {
      get_vibe: (req: { s?: string }) => ({ s: `vibe ${req.s}` }),
      monitorHealth: () => ({ s: 'ok' }),
    })
    expect(server.listTools().map((t) => [t.name, t.description])).toEqual([
      ['MonitorHealth', 'Monitor Health'],
      ['GetVibe', 'Get Vibe'],
    ])
    expect(text(await server.call('GetVibe', { s: 'x' }))).toBe('{"s":"vibe x"}')
    expect(text(await server.call('MonitorHealth', {}))).toBe('{"s":"ok"}')
  })

  it('an RPC left out answers Unimplemented by its name as written', async () => {
    const server = createProtoServer(spec()).implement('Health', { get_vibe: () => ({}) })
    expect(text(await server.call('MonitorHealth', {}))).toBe('rpc error: code = Unimplemented desc = method monitorHealth not implemented')
  })
})
