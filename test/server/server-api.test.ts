import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { isRuntimeError, statusError } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { text } from '../helpers/result.ts'

const spec = specFromProto(EXAMPLE_PROTO)
const topekaSpec = specFromProto(EXAMPLE_PROTO, { profile: 'topeka' })

describe('Server', () => {
  it('implement accepts short and full service names, RPC and lowerCamel keys, and returns this', async () => {
    const server = createProtoServer(spec)
    expect(server.implement('VibeService', { SetVibe: () => ({ vibe: 'a' }) })).toBe(server)
    expect(text(await server.call('SetVibe', {}))).toBe('{"vibe":"a"}')
    server.implement('examples.v1.VibeService', { setVibe: () => ({ vibe: 'b' }) })
    expect(text(await server.call('SetVibe', {}))).toBe('{"vibe":"b"}')
  })

  it('implement takes class instances (methods on the prototype, this bound)', async () => {
    class Impl {
      vibe = 'from-class'
      GetVibe() {
        return { vibe: this.vibe }
      }
    }
    const server = createProtoServer(spec).implement('VibeService', new Impl())
    expect(text(await server.call('GetVibe'))).toBe('{"vibe":"from-class"}')
  })

  it('an RPC left out of the implementation answers Unimplemented', async () => {
    const server = createProtoServer(spec).implement('VibeService', { GetVibe: () => ({}) })
    expect(text(await server.call('SetVibe', {}))).toBe('rpc error: code = Unimplemented desc = method SetVibe not implemented')
  })

  it('unknown service or method names throw clear errors', () => {
    const server = createProtoServer(spec)
    expect(() => server.implement('NopeService', {})).toThrow('unknown service "NopeService": known services: "examples.v1.VibeService"')
    let error: unknown
    try {
      server.implement('VibeService', { SetVibes: () => ({}) })
    } catch (e) {
      error = e
    }
    expect(isRuntimeError(error, 'UNKNOWN_METHOD')).toBe(true)
    expect((error as Error).message).toMatch(
      /^unknown method "SetVibes" in the implementation of "examples\.v1\.VibeService": its RPCs are "SetVibe", .*; did you mean "SetVibe"\?$/,
    )
  })

  it('calling an unknown tool rejects with a -32602 protocol error, not a tool result', async () => {
    const server = createProtoServer(spec)
    await expect(server.call('Nope', {})).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Nope') })
  })

  it('statusError builds errors the pipeline maps to their status', async () => {
    const server = createProtoServer(spec).implement('VibeService', {
      SetVibe: () => {
        throw statusError('PermissionDenied', 'no vibes for you')
      },
      GetVibe: () => {
        throw Object.assign(new Error('x'), { code: 'FAILED_PRECONDITION' })
      },
    })
    expect(text(await server.call('SetVibe', {}))).toBe('rpc error: code = PermissionDenied desc = no vibes for you')
    expect(text(await server.call('GetVibe', {}))).toBe('rpc error: code = FailedPrecondition desc = x')
  })

  it('the backend receives a context naming the tool', async () => {
    let seen: unknown
    const server = createProtoServer(spec).implement('VibeService', {
      GetVibe: (_req: unknown, ctx: unknown) => {
        seen = ctx
        return {}
      },
    })
    await server.call('GetVibe', {}, { meta: { k: 1 } })
    expect(seen).toMatchObject({ tool: 'GetVibe', meta: { k: 1 } })
  })

  it('listTools: name, description, inputSchema, and outputSchema in the default profile only', () => {
    const tools = createProtoServer(spec).listTools()
    expect(tools.map((t) => t.name)).toEqual(['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects'])
    expect(tools[1]).toEqual({
      name: 'GetVibe',
      description: 'Get Vibe of the server',
      inputSchema: {
        additionalProperties: false,
        description: 'The request to get the vibe of the server',
        properties: {},
        type: 'object',
      },
      outputSchema: expect.objectContaining({ type: 'object' }),
    })
    for (const tool of createProtoServer(topekaSpec).listTools()) expect(tool).not.toHaveProperty('outputSchema')
  })

  it('typed servers check service names and implementations at compile time', async () => {
    interface VibeImpl {
      SetVibe(request: { vibe?: string }): { vibe?: string }
    }
    const server = createProtoServer<{ VibeService: VibeImpl }>(spec)
    server.implement('VibeService', { SetVibe: (request) => ({ vibe: (request.vibe ?? '').toUpperCase() }) })
    // @ts-expect-error: not a service of this server's type
    expect(() => server.implement('Nope', {})).toThrow(/unknown service/)
    expect(text(await server.call('SetVibe', { vibe: 'up' }))).toBe('{"vibe":"UP"}')
  })

  it('prints as name, version and tool count only', () => {
    const server = createProtoServer(spec)
    expect(String(server)).toBe('Server(example@0.0.0, 5 tools)')
    expect(inspect(server)).toBe('Server(example@0.0.0, 5 tools)')
    expect(`${createProtoServer({ ...spec, tools: [] })}`).toBe('Server(example@0.0.0, 0 tools)')
  })
})
