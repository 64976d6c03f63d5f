/**
 * What only untouched descriptors carry: custom options (buf.validate rules,
 * field behaviour, the tool option) read back from the options' extension
 * fields, an editions file, and a server that speaks only v1alpha and sends
 * one file per answer.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { basename, join } from 'node:path'
import descriptorExt from 'protobufjs/ext/descriptor.js'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { buildServerSpec } from '../../src/gateway/build-spec.ts'
import { reflectSpec } from '../../src/gateway/reflect-server.ts'
import { fetchDescriptors } from '../../src/grpc/reflection-client.ts'
import { modelFromDescriptors } from '../../src/proto/index.ts'
import { createProtoServer } from '../../src/server/index.ts'
import { bufBuild } from '../helpers/descriptor-set.ts'
import { startRawReflectionServer, type ReflectionTestServer } from './reflection-server.ts'
import { REPO } from '../helpers/repo.ts'

const OPTIONS = 'fixtures/protos/reflection/options.proto'
const EDITIONS = 'fixtures/protos/editions/legacy-required.proto'
const PROFILES = ['portable', 'strict', 'full', 'topeka'] as const

/** `file` built by buf in a module with the option protos the package ships. */
function buildWithOptions(file: string): Uint8Array[] {
  mkdirSync(join(REPO, '.tmp'), { recursive: true })
  const dir = mkdtempSync(join(REPO, '.tmp', 'bufmod-'))
  try {
    for (const shipped of ['buf', 'google', 'proto_mcp']) cpSync(join(REPO, 'protos', shipped), join(dir, shipped), { recursive: true })
    cpSync(join(REPO, file), join(dir, basename(file)))
    return bufBuild(dir, basename(file))
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const listed = (spec: Parameters<typeof createProtoServer>[0]): string => JSON.stringify(createProtoServer(spec).listTools())

let options: ReflectionTestServer
let editions: ReflectionTestServer
beforeAll(async () => {
  options = await startRawReflectionServer(buildWithOptions(OPTIONS))
  editions = await startRawReflectionServer(buildWithOptions(EDITIONS))
}, 120_000)
afterAll(async () => {
  await options?.stop()
  await editions?.stop()
})

it('falls back to v1alpha and follows imports one file at a time', async () => {
  const found = await fetchDescriptors(options.address)
  expect(found.protocol).toBe('v1alpha')
  expect(found.services).toEqual(['reflection.v1.NoteService'])
  // options.proto, its three option protos, descriptor.proto and what validate.proto imports.
  expect(found.files.length).toBeGreaterThanOrEqual(5)
})

for (const profile of PROFILES) {
  it(`custom options and json_name survive reflection (${profile}): tools/list byte for byte`, async () => {
    const reflected = await reflectSpec(options.address, { profile })
    const file = buildServerSpec(OPTIONS, { profile })
    expect(listed(reflected.spec)).toBe(listed(file.spec))
    expect(JSON.stringify(reflected.spec.descriptor)).toBe(JSON.stringify(file.spec.descriptor))
    expect(reflected.notes).toEqual(file.notes)
  })

  it(`an editions file (${profile}): tools/list byte for byte`, async () => {
    const reflected = await reflectSpec(editions.address, { profile })
    const file = buildServerSpec(EDITIONS, { profile })
    expect(listed(reflected.spec)).toBe(listed(file.spec))
    expect(JSON.stringify(reflected.spec.descriptor)).toBe(JSON.stringify(file.spec.descriptor))
  })
}

it('the options shape the reflected tools', async () => {
  const tools = createProtoServer((await reflectSpec(options.address, { profile: 'full' })).spec).listTools()
  expect(tools.map((t) => t.name)).toEqual(['Write', 'Read', 'read_note_again'])
  const write = tools[0]!
  expect(write.title).toBe('Write a note')
  expect(write.inputSchema).toMatchObject({
    required: ['text'],
    properties: { text: { minLength: 1, maxLength: 32 }, prio: { minimum: 0, exclusiveMaximum: 10 } },
  })
  expect(JSON.stringify(write.inputSchema)).not.toContain('"id"')
  expect(tools[1]!.annotations).toMatchObject({ readOnlyHint: true, idempotentHint: true })
})

it('a server that lacks an imported file fails with a one-line reason naming it', async () => {
  const files = buildWithOptions(OPTIONS)
  const names = files.map((f) => descriptorExt.FileDescriptorProto.decode(f).name)
  const partial = await startRawReflectionServer(files.filter((_, i) => names[i] !== 'google/api/field_behavior.proto'))
  try {
    await expect(fetchDescriptors(partial.address)).rejects.toMatchObject({
      name: 'ReflectionError',
      code: 'REFLECTION_FAILED',
      message: `the reflection service of ${partial.address} answered an error asking for "google/api/field_behavior.proto" (imported by "options.proto"): code 5: not found`,
    })
  } finally {
    await partial.stop()
  }
  expect(() => modelFromDescriptors(files.filter((_, i) => names[i] !== 'google/api/field_behavior.proto'))).toThrow(
    'file "options.proto" imports "google/api/field_behavior.proto", which the descriptors do not include',
  )
})

it('a listed service the server has no file for: skipped with a warning, an error when asked for', async () => {
  const ghostly = await startRawReflectionServer(buildWithOptions(OPTIONS), { alsoListed: ['grpc.health.v1.Health'] })
  try {
    const found = await reflectSpec(ghostly.address)
    expect(found.services).toEqual(['reflection.v1.NoteService'])
    expect(found.warnings).toContainEqual({
      code: 'SERVICE_UNDESCRIBED',
      message: `service grpc.health.v1.Health gets no tools: the gRPC server at ${ghostly.address} lists it but sends no file for it (code 5: not found)`,
    })
    await expect(reflectSpec(ghostly.address, { services: ['Health'] })).rejects.toThrow(
      `service "grpc.health.v1.Health" is listed by the gRPC server at ${ghostly.address}, but its reflection service has no file for it (code 5: not found)`,
    )
  } finally {
    await ghostly.stop()
  }
})
