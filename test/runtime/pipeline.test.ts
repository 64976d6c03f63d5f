import { describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { ECHO_PROTO, EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'
import { recordingBackend } from '../helpers/recording-backend.ts'
import { text } from '../helpers/result.ts'

const VIBE_METHODS = ['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects']

function vibeServer(profile: 'full' | 'topeka' = 'full', answers: Record<string, (r: any) => unknown> = {}) {
  const server = createProtoServer(specFromProto(EXAMPLE_PROTO, { profile }))
  const backend = recordingBackend(VIBE_METHODS, answers)
  server.implement('VibeService', backend.impl)
  return { server, calls: backend.calls }
}

describe('validation texts (docs/calls.md, "Validation texts" exact cases)', () => {
  for (const profile of ['full', 'topeka'] as const) {
    it(`${profile}: SetVibe {"vibe":5}`, async () => {
      const { server, calls } = vibeServer(profile)
      const result = await server.call('SetVibe', { vibe: 5 })
      expect(result).toEqual({ content: [{ type: 'text', text: 'invalid arguments: /vibe: 5 is not of type "string"' }], isError: true })
      expect(calls).toHaveLength(0)
    })

    it(`${profile}: SetVibe {"previous_vibe":"x"}`, async () => {
      const { server, calls } = vibeServer(profile)
      const result = await server.call('SetVibe', { previous_vibe: 'x' })
      expect(text(result)).toBe('invalid arguments: /previous_vibe: unknown field')
      expect(result.isError).toBe(true)
      expect(calls).toHaveLength(0)
    })
  }

  it('topeka: SetVibeDetails with a numeric enum is refused, as Topeka does', async () => {
    const { server, calls } = vibeServer('topeka')
    const result = await server.call('SetVibeDetails', { vibe: 'details', vibeScalar: { vibeEnum: [1] } })
    expect(text(result)).toBe(
      'invalid arguments: /vibeScalar/vibeEnum/0: 1 is not of type "string"; /vibeScalar/vibeEnum/0: 1 is not one of "VIBE_UNSET" or "VIBE_GOOD"',
    )
    expect(calls).toHaveLength(0)
  })

  it('full: a numeric enum is another spelling protobuf JSON reads: accepted, and the backend gets the name', async () => {
    const { server, calls } = vibeServer('full')
    const result = await server.call('SetVibeDetails', { vibe: 'details', vibeScalar: { vibeEnum: [1] } })
    expect(result.isError).toBe(false)
    expect(calls[0]!.request).toMatchObject({ vibeScalar: { vibeEnum: ['VIBE_GOOD'] } })
    const unknown = await server.call('SetVibeDetails', { vibe: 'details', vibeScalar: { vibeEnum: [7] } })
    expect(text(unknown)).toBe(
      'invalid arguments: /vibeScalar/vibeEnum/0: 7 is not of type "string"; /vibeScalar/vibeEnum/0: 7 is not one of "VIBE_UNSET" or "VIBE_GOOD"',
    )
  })

  it('each unknown field is named at its own path, with the nearest field when one is close', async () => {
    const { server, calls } = vibeServer()
    const result = await server.call('SetVibe', { a: 1, b: 2, vibes: 'x' })
    expect(text(result)).toBe('invalid arguments: /a: unknown field; /b: unknown field; /vibes: unknown field (did you mean "vibe"?)')
    expect(calls).toHaveLength(0)
  })

  it('a float branch failure is one anyOf message; a type array names both types', async () => {
    const { server, calls } = vibeServer('topeka')
    const result = await server.call('SetVibeDetails', { vibeScalar: { vibeDouble: 'x', vibeInt64: true } })
    expect(text(result)).toBe(
      'invalid arguments: /vibeScalar/vibeDouble: "x" is not valid under any of the schemas listed in the \'anyOf\' keyword; ' +
        '/vibeScalar/vibeInt64: true is not of types "integer", "string"',
    )
    expect(calls).toHaveLength(0)
  })

  it('default profile: a 64-bit value in neither form is one anyOf message', async () => {
    const { server } = vibeServer('full')
    const result = await server.call('SetVibeDetails', { vibeScalar: { vibeUint64: 'abc' } })
    expect(text(result)).toBe(
      'invalid arguments: /vibeScalar/vibeUint64: "abc" is not valid under any of the schemas listed in the \'anyOf\' keyword',
    )
  })

  it('minimum', async () => {
    const { server } = vibeServer('topeka')
    const result = await server.call('SetVibeDetails', { vibeScalar: { vibeFixed32: -1 } })
    expect(text(result)).toBe('invalid arguments: /vibeScalar/vibeFixed32: -1 is less than the minimum of 0')
  })
})

describe('the pipeline', () => {
  it('SetVibe: the response is compact protobuf JSON with defaults omitted, plus structuredContent', async () => {
    const { server, calls } = vibeServer('full', { SetVibe: (r) => ({ previousVibe: '', vibe: r.vibe }) })
    const result = await server.call('SetVibe', { vibe: 'chill' })
    expect(result).toEqual({
      content: [{ type: 'text', text: '{"vibe":"chill"}' }],
      isError: false,
      structuredContent: { vibe: 'chill' },
    })
    expect(calls).toEqual([expect.objectContaining({ method: 'SetVibe', request: { vibe: 'chill' } })])
  })

  it('topeka profile: text only, no structuredContent', async () => {
    const { server } = vibeServer('topeka', { SetVibe: (r) => ({ previousVibe: 'x', vibe: r.vibe }) })
    const result = await server.call('SetVibe', { vibe: 'chill' })
    expect(result).toEqual({ content: [{ type: 'text', text: '{"previousVibe":"x","vibe":"chill"}' }], isError: false })
  })

  it('absent or null arguments are {}', async () => {
    const { server, calls } = vibeServer()
    expect(text(await server.call('GetVibe'))).toBe('{}')
    expect(text(await server.call('GetVibe', null))).toBe('{}')
    expect(text(await server.call('SetVibe', undefined))).toBe('{}')
    expect(calls.map((c) => c.request)).toEqual([{}, {}, {}])
  })

  it('a status error from the backend becomes grpc-go status text', async () => {
    const { server } = vibeServer('full', {
      SetVibe: () => {
        throw Object.assign(new Error('vibe not found'), { code: 'NotFound' })
      },
      GetVibe: () => Promise.reject(Object.assign(new Error('slow down'), { code: 8 })),
    })
    expect(await server.call('SetVibe', { vibe: 'x' })).toEqual({
      content: [{ type: 'text', text: 'rpc error: code = NotFound desc = vibe not found' }],
      isError: true,
    })
    expect(text(await server.call('GetVibe', {}))).toBe('rpc error: code = ResourceExhausted desc = slow down')
  })

  it('a plain thrown Error is Unknown, and the server keeps serving', async () => {
    let fail = true
    const { server } = vibeServer('full', {
      SetVibe: (r) => {
        if (fail) throw new Error('boom')
        return { vibe: r.vibe }
      },
    })
    expect(text(await server.call('SetVibe', { vibe: 'x' }))).toBe('rpc error: code = Unknown desc = boom')
    fail = false
    expect(text(await server.call('SetVibe', { vibe: 'x' }))).toBe('{"vibe":"x"}')
  })

  it('64-bit integers arrive as decimal strings whatever the spelling', async () => {
    for (const profile of ['full', 'topeka'] as const) {
      const { server, calls } = vibeServer(profile)
      await server.call('SetVibeDetails', { vibeScalar: { vibeInt64: 42 } })
      await server.call('SetVibeDetails', { vibeScalar: { vibeInt64: '42' } })
      expect(calls.map((c) => c.request)).toEqual([{ vibeScalar: { vibeInt64: '42' } }, { vibeScalar: { vibeInt64: '42' } }])
    }
  })

  it('decoder rejections: int32 out of range, "-5" for a uint64 (backend not called)', async () => {
    const { server, calls } = vibeServer('topeka')
    const int32 = await server.call('SetVibeDetails', { vibeScalar: { vibeInt32: 2147483648 } })
    expect(int32).toEqual({
      content: [{ type: 'text', text: 'decoding arguments: vibeScalar.vibeInt32: out of range for int32: 2147483648' }],
      isError: true,
    })
    const uint64 = await server.call('SetVibeDetails', { vibeScalar: { vibeUint64: '-5' } })
    expect(text(uint64)).toBe('decoding arguments: vibeScalar.vibeUint64: out of range for uint64: "-5"')
    expect(calls).toHaveLength(0)
  })

  it('decoder rejections in arrays and bad base64 name the element', async () => {
    const { server, calls } = vibeServer('topeka')
    const result = await server.call('SetVibeArray', { vibeArray: { vibeInt32s: [1, 2, 4294967296] } })
    expect(text(result)).toBe('decoding arguments: vibeArray.vibeInt32s[2]: out of range for int32: 4294967296')
    const bytes = await server.call('SetVibeDetails', { vibeScalar: { vibeBytes: '!!' } })
    expect(text(bytes)).toMatch(/^decoding arguments: vibeScalar\.vibeBytes: /)
    expect(calls).toHaveLength(0)
  })

  it('nothing bound: Unimplemented', async () => {
    const server = createProtoServer(specFromProto(EXAMPLE_PROTO))
    expect(await server.call('SetVibe', { vibe: 'x' })).toEqual({
      content: [{ type: 'text', text: 'rpc error: code = Unimplemented desc = no backend for examples.v1.VibeService' }],
      isError: true,
    })
  })

  it('a response of the wrong type: encoding response', async () => {
    const { server } = vibeServer('full', { SetVibe: () => ({ vibe: 5 }), GetVibe: () => ({ nope: 1 }) })
    expect(text(await server.call('SetVibe', { vibe: 'x' }))).toBe('encoding response: vibe: expected string: 5')
    expect(text(await server.call('GetVibe', {}))).toBe('encoding response: nope: unknown field: "nope"')
  })

  it('responses may use proto field names and Promise returns', async () => {
    const { server } = vibeServer('full', { SetVibe: async () => ({ previous_vibe: 'old', vibe: 'new' }) })
    expect(text(await server.call('SetVibe', { vibe: 'new' }))).toBe('{"previousVibe":"old","vibe":"new"}')
  })
})

describe('echo fixture: values through decoder and encoder', () => {
  function echoServer(profile: 'full' | 'topeka' = 'full') {
    const server = createProtoServer(specFromProto(ECHO_PROTO, { profile }))
    const backend = recordingBackend(['Echo'], { Echo: (r) => r })
    server.implement('runtime.v1.EchoService', backend.impl)
    return { server, calls: backend.calls }
  }

  it('non-finite floats are accepted and echoed as strings', async () => {
    const { server, calls } = echoServer()
    const result = await server.call('Echo', { scalars: { aDouble: 'NaN', aFloat: '-Infinity' }, more: [{ aDouble: 'Infinity' }] })
    expect(calls[0]!.request).toEqual({ scalars: { aDouble: 'NaN', aFloat: '-Infinity' }, more: [{ aDouble: 'Infinity' }] })
    expect(text(result)).toBe('{"scalars":{"aDouble":"NaN","aFloat":"-Infinity"},"more":[{"aDouble":"Infinity"}]}')
    expect(result.structuredContent).toEqual({ scalars: { aDouble: 'NaN', aFloat: '-Infinity' }, more: [{ aDouble: 'Infinity' }] })
  })

  it('canonical form: declaration order, 64-bit strings, enums as names, optional zero kept, bytes padded', async () => {
    const { server } = echoServer()
    const result = await server.call('Echo', {
      scalars: { moods: ['MOOD_GOOD'], someBytes: '_-8', anUint32: 0, anInt64: -7, aBool: false, aDouble: 1.5, int64s: [1, '2'] },
      number: 0,
    })
    expect(text(result)).toBe(
      '{"scalars":{"aDouble":1.5,"anInt64":"-7","anUint32":0,"someBytes":"/+8=","moods":["MOOD_GOOD"],"int64s":["1","2"]},"number":0}',
    )
  })

  it('JS values in a response (NaN, bigint, Uint8Array) are taken and encoded canonically', async () => {
    const server = createProtoServer(specFromProto(ECHO_PROTO))
    server.implement('EchoService', {
      Echo: () => ({
        scalars: {
          aDouble: Number.NaN,
          aFloat: Number.NEGATIVE_INFINITY,
          anInt64: 2n ** 62n,
          someBytes: new Uint8Array([255, 254]),
          int64s: [1n],
        },
        more: [{ aDouble: Number.POSITIVE_INFINITY }],
      }),
    })
    const result = await server.call('Echo', {})
    expect(text(result)).toBe(
      '{"scalars":{"aDouble":"NaN","aFloat":"-Infinity","anInt64":"4611686018427387904","someBytes":"//4=","int64s":["1"]},"more":[{"aDouble":"Infinity"}]}',
    )
  })

  it('a response still wrong after the JS fix-ups names the field', async () => {
    const server = createProtoServer(specFromProto(ECHO_PROTO))
    server.implement('EchoService', { Echo: () => ({ scalars: { aDouble: Number.NaN, anInt32: 'x' } }) })
    expect(text(await server.call('Echo', {}))).toBe('encoding response: scalars.anInt32: invalid integer: "x"')
  })

  it('two members of a oneof: decoding arguments (backend not called)', async () => {
    const { server, calls } = echoServer()
    const result = await server.call('Echo', { name: 'a', number: 1 })
    expect(text(result)).toBe('decoding arguments: number: multiple values for oneof "choice"')
    expect(calls).toHaveLength(0)
  })

  it('map values are located by key', async () => {
    const { server, calls } = echoServer()
    const result = await server.call('Echo', { scalars: { counts: { a: 1, b: 3000000000 } } })
    expect(text(result)).toBe('decoding arguments: scalars.counts["b"]: out of range for int32: 3000000000')
    expect(calls).toHaveLength(0)
  })
})
