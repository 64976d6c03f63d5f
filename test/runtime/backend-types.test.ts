/**
 * A backend's reflected types (docs/guide/grpc.md): protobufjs loads
 * with the server's first call, so `requestType` read in `bind()` before
 * then is a clear `NOT_LOADED` error, and the same read in a handler works.
 */
import { describe, expect, it } from 'vitest'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { protobufReady } from '../../src/runtime/load-protobuf.ts'
import type { Backend } from '../../src/runtime/backend.ts'
import { EXAMPLE_PROTO, specFromProto } from '../helpers/spec-from-proto.ts'

/** A backend that reads the request type of every method `when` it is told to. */
function typedBackend(when: 'bind' | 'call'): Backend & { seen: string[] } {
  const seen: string[] = []
  return {
    seen,
    bind(service) {
      if (when === 'bind') for (const method of service.methods) seen.push(method.requestType.name)
      return Object.fromEntries(
        service.methods.map((method) => [
          method.name,
          () => {
            seen.push(method.requestType.name)
            return {}
          },
        ]),
      )
    },
  }
}

describe("a backend's reflected types", () => {
  it('read in bind() before the first call: NOT_LOADED, saying where they can be read', () => {
    expect(protobufReady()).toBe(false)
    const server = createProtoServer(specFromProto(EXAMPLE_PROTO))
    expect(() => server.forward('VibeService', typedBackend('bind'))).toThrow(
      expect.objectContaining({ code: 'NOT_LOADED', message: expect.stringMatching(/inside tool calls/) }),
    )
  })

  it('read in a handler: there, and in bind() once a call has loaded protobufjs', async () => {
    const server = createProtoServer(specFromProto(EXAMPLE_PROTO))
    const inCall = typedBackend('call')
    server.forward('VibeService', inCall)
    const result = await server.call('SetVibe', { vibe: 'chill' })
    expect(result.isError).toBeFalsy()
    expect(inCall.seen).toEqual(['SetVibeRequest'])
    const again = createProtoServer(specFromProto(EXAMPLE_PROTO))
    const inBind = typedBackend('bind')
    again.forward('VibeService', inBind)
    expect(inBind.seen.length).toBeGreaterThan(0)
  })
})
