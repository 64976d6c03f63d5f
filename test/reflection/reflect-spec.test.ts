/**
 * The reflection gateway in process: a real grpc-js server answering server
 * reflection with @grpc/reflection; the reflected tools against the tools the
 * same `.proto` file gives, in every profile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as grpcJs from '@grpc/grpc-js'
import { createServer, type AddressInfo } from 'node:net'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { reflectServer, reflectSpec, watchReflection } from '../../src/gateway/reflect-server.ts'
import { isReflectionError } from '../../src/grpc/reflection-client.ts'
import { createProtoServer } from '../../src/server/index.ts'
import { bufBuild } from '../helpers/descriptor-set.ts'
import { serviceDefinition, vibeService } from '../grpc/grpc-server.ts'
import { startReflectionServer, type ReflectionTestServer } from './reflection-server.ts'

describe('watchReflection', () => {
  it('defaults the fingerprint to the one reflectServer built the server from; needs one for any other server', async () => {
    const backend = { bind: () => ({}) }
    const unchanged = await reflectServer(withInfo.address, { backend })
    const stale = await reflectServer(withInfo.address, { backend })
    let quiet = 0
    let swapped!: () => void
    const swap = new Promise<void>((resolve) => {
      swapped = resolve
    })
    const stops = [
      watchReflection(unchanged, withInfo.address, {
        intervalSeconds: 0.02,
        backend,
        onChange: () => {
          quiet++
        },
      }),
      watchReflection(stale, withInfo.address, { intervalSeconds: 0.02, backend, fingerprint: 'stale', onChange: () => swapped() }),
    ]
    try {
      await swap
      // A few more rounds: the unchanged server is never swapped.
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(quiet).toBe(0)
    } finally {
      for (const stop of stops) stop()
    }
    const { spec } = await reflectSpec(withInfo.address)
    expect(() => watchReflection(createProtoServer(spec), withInfo.address, { intervalSeconds: 1, backend })).toThrow(
      'watchReflection(): the server must come from reflectServer() (it knows what the server was built from)',
    )
  })
})

describe('reflectServer failures', () => {
  it('a target that is down rejects with an error isReflectionError() recognises, its code saying which failure', async () => {
    const probe = createServer()
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
    const port = (probe.address() as AddressInfo).port
    await new Promise((resolve) => probe.close(resolve))
    const failure = await reflectServer(`127.0.0.1:${port}`, { backend: { bind: () => ({}) } }).then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(isReflectionError(failure) ? failure.code : failure).toBe('REFLECTION_UNREACHABLE')
    expect(isReflectionError(new Error('cannot reach'))).toBe(false)
  })
})

const PROFILES = ['portable', 'strict', 'full', 'topeka'] as const
const PLAYGROUND = 'playground/vibe.proto'
const TOPEKA = 'fixtures/topeka/example.proto'

/** The playground's VibeService on grpc-js: SetVibe and GetVibe keep a mood. */
function playgroundVibe() {
  let vibe: Record<string, unknown> = { mood: 'MOOD_CHILL', note: '' }
  return {
    definition: serviceDefinition(PLAYGROUND, 'playground.v1.VibeService'),
    impl: {
      SetVibe: (call: grpcJs.ServerUnaryCall<any, any>, done: grpcJs.sendUnaryData<any>) => {
        const previous = vibe
        vibe = { ...vibe, mood: call.request.mood, ...(call.request.note === undefined ? {} : { note: call.request.note }) }
        done(null, { previous, current: vibe })
      },
      GetVibe: (_call: grpcJs.ServerUnaryCall<any, any>, done: grpcJs.sendUnaryData<any>) => done(null, vibe),
    },
  }
}

/** What `tools/list` gives for a spec, as JSON text. */
const listed = (spec: Parameters<typeof createProtoServer>[0]): string => JSON.stringify(createProtoServer(spec).listTools())

/** `value` without any `description` key, at any depth. */
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'description')
      .map(([k, v]) => [k, withoutDescriptions(v)]),
  )
}

let withInfo: ReflectionTestServer
let withoutInfo: ReflectionTestServer
let loader: ReflectionTestServer
let topeka: ReflectionTestServer

beforeAll(async () => {
  withInfo = await startReflectionServer([playgroundVibe()], { files: bufBuild('playground', 'vibe.proto') })
  withoutInfo = await startReflectionServer([playgroundVibe()], { files: bufBuild('playground', 'vibe.proto', { sourceInfo: false }) })
  loader = await startReflectionServer([playgroundVibe()], { protoLoader: PLAYGROUND })
  topeka = await startReflectionServer([vibeService()], { files: bufBuild('fixtures/topeka', 'example.proto') })
}, 120_000)
afterAll(async () => {
  for (const s of [withInfo, withoutInfo, loader, topeka]) await s?.stop()
})

describe('reflected tools equal the file-based tools', () => {
  for (const profile of PROFILES) {
    it(`playground, source info, ${profile}: tools/list and the codec's descriptor byte for byte`, async () => {
      const reflected = await reflectSpec(withInfo.address, { profile })
      const file = buildServerSpec(PLAYGROUND, { profile })
      expect(reflected.services).toEqual(['playground.v1.VibeService', 'playground.v1.PlaylistService', 'playground.v1.JournalService'])
      expect(listed(reflected.spec)).toBe(listed(file.spec))
      expect(JSON.stringify(reflected.spec.descriptor)).toBe(JSON.stringify(file.spec.descriptor))
      expect(reflected.spec.name).toBe(file.spec.name)
      expect(reflected.spec.lenient).toEqual(file.spec.lenient)
    })

    it(`Topeka fixture, source info, ${profile}: tools/list byte for byte`, async () => {
      const reflected = await reflectSpec(topeka.address, { profile })
      const file = buildServerSpec(TOPEKA, { profile })
      expect(listed(reflected.spec)).toBe(listed(file.spec))
      expect(JSON.stringify(reflected.spec.descriptor)).toBe(JSON.stringify(file.spec.descriptor))
    })

    it(`playground, no source info, ${profile}: only descriptions differ, and they are the fallbacks`, async () => {
      const reflected = JSON.parse(listed((await reflectSpec(withoutInfo.address, { profile })).spec)) as {
        name: string
        description: string
      }[]
      const file = JSON.parse(listed(buildServerSpec(PLAYGROUND, { profile }).spec)) as { name: string; description: string }[]
      expect(withoutDescriptions(reflected)).toEqual(withoutDescriptions(file))
      expect(JSON.stringify(reflected)).not.toBe(JSON.stringify(file))
      const setVibe = reflected.find((t) => t.name === 'SetVibe')!
      expect(setVibe.description).toBe('Set Vibe')
      expect(file.find((t) => t.name === 'SetVibe')!.description).toBe('Sets the mood of the room and returns the vibe before and after.')
      // Field comments are gone from the schemas too.
      expect(JSON.stringify(setVibe)).not.toContain('The new mood')
    })
  }

  it('a grpc-node server (proto-loader descriptors): descriptions differ, and json_name is lost on the server side', async () => {
    for (const profile of PROFILES) {
      const reflected = await reflectSpec(loader.address, { profile })
      const file = buildServerSpec(PLAYGROUND, { profile })
      // protobufjs 7's toDescriptor, which proto-loader uses, sends no source
      // info and drops `json_name` (AudioProfile.key is "musicalKey" in the file).
      const fileText = listed(file.spec).replaceAll('"musicalKey"', '"key"')
      expect(withoutDescriptions(JSON.parse(listed(reflected.spec)))).toEqual(withoutDescriptions(JSON.parse(fileText)))
      expect(listed(reflected.spec)).not.toContain('musicalKey')
    }
  })

  it('comments reach the descriptions when the server sends source info', async () => {
    const { spec } = await reflectSpec(withInfo.address)
    const tools = createProtoServer(spec).listTools()
    const update = tools.find((t) => t.name === 'UpdateVibe')!
    // A block comment, as protoc records it.
    expect(update.description).toBe('Changes the fields of the vibe named in the update mask and leaves the others as they are.')
    expect(JSON.stringify(tools.find((t) => t.name === 'SetVibe')!.inputSchema)).toContain('The new mood.')
    expect(tools.find((t) => t.name === 'ResetVibe')!.description).toBe('Reset Vibe')
  })
})

describe('services of several files and packages', () => {
  it('gives the tools of both, each named from its own package', async () => {
    const both = await startReflectionServer([playgroundVibe(), vibeService()], {
      files: [...bufBuild('playground', 'vibe.proto'), ...bufBuild('fixtures/topeka', 'example.proto')],
    })
    try {
      const { spec, services, warnings } = await reflectSpec(both.address, {
        toolNames: 'qualified',
        services: ['playground.v1.VibeService', 'examples.v1.VibeService'],
      })
      expect(services).toEqual(['playground.v1.VibeService', 'examples.v1.VibeService'])
      const names = createProtoServer(spec)
        .listTools()
        .map((t) => t.name)
      expect(names).toContain('playground_v1_VibeService_SetVibe')
      expect(names).toContain('examples_v1_VibeService_SetVibeArray')
      expect(names).toHaveLength(10)
      expect(warnings).toEqual([])
      // By method name, the two SetVibe collide: the last one wins, with the file path's warning.
      const plain = await reflectSpec(both.address, { services: ['playground.v1.VibeService', 'examples.v1.VibeService'] })
      expect(plain.warnings).toContainEqual(
        expect.objectContaining({
          code: 'TOOL_NAME_CLASH',
          message: expect.toSatisfy((m: string) =>
            m.startsWith('tool "SetVibe" is declared by both playground.v1.VibeService and examples.v1.VibeService'),
          ),
        }),
      )
      const server = await reflectServer(both.address, {
        toolNames: 'service',
        services: ['examples.v1.VibeService', 'playground.v1.VibeService'],
      })
      expect(await server.call('VibeService_GetVibe', {})).toMatchObject({ isError: false })
    } finally {
      await both.stop()
    }
  })
})

describe('reflectServer', () => {
  it('forwards calls to the reflected server', async () => {
    const server = await reflectServer(withInfo.address, { services: ['VibeService'] })
    expect(server.listTools().map((t) => t.name)).toEqual(['SetVibe', 'GetVibe', 'UpdateVibe', 'ResetVibe', 'VibeHistory'])
    const set = await server.call('SetVibe', { mood: 'MOOD_HYPED', note: 'loud' })
    expect(set).toMatchObject({ isError: false, structuredContent: { current: { mood: 'MOOD_HYPED', note: 'loud' } } })
    expect(await server.call('GetVibe', {})).toMatchObject({ structuredContent: { mood: 'MOOD_HYPED', note: 'loud' } })
    expect(await server.call('SetVibe', { mood: 'MOOD_NOPE' })).toMatchObject({ isError: true })
  })

  it('picks services by short or full name and refuses an unknown one', async () => {
    const { services } = await reflectSpec(withInfo.address, { services: ['playground.v1.JournalService', 'VibeService'] })
    expect(services).toEqual(['playground.v1.VibeService', 'playground.v1.JournalService'])
    await expect(reflectSpec(withInfo.address, { services: ['Nope'] })).rejects.toThrow(
      `service "Nope" is not offered by the gRPC server at ${withInfo.address} (it offers playground.v1.VibeService, playground.v1.PlaylistService, playground.v1.JournalService)`,
    )
  })
})

describe('the reflected server is named after the descriptor file the server gives', () => {
  it("buf's keeps the source file's name; @grpc/proto-loader's is named after the package", async () => {
    expect((await reflectSpec(withInfo.address)).spec.name).toBe('vibe')
    expect((await reflectSpec(loader.address)).spec.name).toBe('playground_v1')
    expect((await reflectSpec(loader.address, { name: 'mine' })).spec.name).toBe('mine')
  })
})
