/**
 * `proto-mcp serve api.binpb`: a descriptor set (a buf image or a protoc-style
 * FileDescriptorSet, binary or JSON) served as its `.proto` is, to SDK v1 and
 * v2 clients over stdio and HTTP in both eras, calls forwarded to a grpc-js
 * server on loopback; `--descriptor` giving a reflected server its comments;
 * bad sets refused with one line naming the file.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENTS, connectStdio } from '../bundlers/mcp-clients.ts'
import { bufBuild } from '../helpers/descriptor-set.ts'
import { text } from '../helpers/result.ts'
import { startGrpcServer, vibeService, type GrpcTestServer } from '../grpc/grpc-server.ts'
import { startReflectionServer, type ReflectionTestServer } from '../reflection/reflection-server.ts'
import { builtCli, runCli, serveClient } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'
import { bufSet, httpSession, setDir, sharedServe } from './set-helpers.ts'

const TOPEKA = 'fixtures/topeka/example.proto'
const BUF = join(REPO, 'node_modules', '.bin', 'buf')

let cli: string
let backend: GrpcTestServer
let bare: ReflectionTestServer
const vibe = vibeService()
const dir = setDir()
const image = join(dir, 'example.binpb')
const protocSet = join(dir, 'example.pb')
const jsonImage = join(dir, 'example.json')

beforeAll(async () => {
  cli = builtCli()
  backend = await startGrpcServer([vibe])
  // A reflection server whose descriptors carry no comments, as many do.
  bare = await startReflectionServer([vibeService()], { files: bufBuild('fixtures/topeka', 'example.proto', { sourceInfo: false }) })
  bufSet('fixtures/topeka', ['example.proto'], image)
  bufSet('fixtures/topeka', ['example.proto'], protocSet, 'protoc')
  bufSet('fixtures/topeka', ['example.proto'], jsonImage)
}, 180_000)
afterAll(async () => {
  await backend?.stop()
  await bare?.stop()
  rmSync(dir, { recursive: true, force: true })
})

/** The tools/list of `proto-mcp serve <args>` over stdio, as JSON text. */
async function listed(args: string[]): Promise<string> {
  const { client } = await serveClient(cli, args, 'set-test')
  try {
    return JSON.stringify(await client.listTools())
  } finally {
    await client.close()
  }
}

describe('proto-mcp serve <descriptor set>', () => {
  it('every form lists the tools the .proto lists, byte for byte (comments as descriptions)', async () => {
    const fromText = await listed([TOPEKA, '--grpc', backend.address])
    expect(fromText).toContain('"description"')
    for (const set of [image, protocSet, jsonImage]) expect(await listed([set, '--grpc', backend.address]), set).toBe(fromText)
  })

  it('the flags choose and shape the tools as they do for the .proto', async () => {
    const flags = [
      '--include-method',
      'examples.v1.VibeService.*Vibe',
      '--tool-names',
      'qualified',
      '--profile',
      'strict',
      '--tool-token-budget',
      '200',
    ]
    const fromText = await listed([TOPEKA, '--grpc', backend.address, ...flags])
    expect(JSON.parse(fromText).tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['examples_v1_VibeService_SetVibe', 'examples_v1_VibeService_GetVibe']),
    )
    expect(await listed([image, '--grpc', backend.address, ...flags])).toBe(fromText)
  })

  const http = sharedServe(
    () => cli,
    () => [jsonImage, '--grpc', backend.address],
  )
  afterAll(async () => expect(await http.stop()).toBe(0))

  for (const flavour of CLIENTS) {
    it(`over stdio with ${flavour}: lists and forwards calls`, async () => {
      const session = await connectStdio(flavour, cli, ['serve', image, '--grpc', backend.address])
      try {
        expect((await session.listTools()).tools.map((t) => t.name)).toContain('SetVibe')
        const before = vibe.received.length
        const result = await session.callTool('SetVibe', { vibe: `${flavour} stdio` })
        expect(result.isError).toBe(false)
        expect(vibe.received.slice(before).map((c) => c.request)).toEqual([{ vibe: `${flavour} stdio` }])
        if (flavour === 'sdk-v2-2026') expect(session.protocolVersion()).toBe('2026-07-28')
        expect(session.stderr()).toContain(`tools from ${image}, forwarding to ${backend.address}`)
      } finally {
        await session.close()
      }
    })

    it(`over HTTP with ${flavour}: lists and forwards calls`, async () => {
      const { client, version } = await httpSession(flavour, await http.url())
      try {
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('GetVibe')
        await client.callTool({ name: 'SetVibe', arguments: { vibe: `${flavour} http` } })
        expect(text((await client.callTool({ name: 'GetVibe', arguments: {} })) as never)).toBe(`{"vibe":"${flavour} http"}`)
        if (flavour === 'sdk-v2-2026') expect(version()).toBe('2026-07-28')
      } finally {
        await client.close()
      }
    })
  }
})

describe('proto-mcp serve --reflect --descriptor', () => {
  it("a reflected server without comments gets the set's: the .proto's tools", async () => {
    const fromText = await listed([TOPEKA, '--grpc', bare.address])
    const without = await listed(['--grpc', bare.address, '--reflect'])
    expect(without).not.toBe(fromText)
    expect(await listed(['--grpc', bare.address, '--reflect', '--descriptor', image])).toBe(fromText)
  })

  it('--descriptor without --reflect is a usage error', async () => {
    const run = await runCli(cli, ['serve', TOPEKA, '--grpc', backend.address, '--descriptor', image])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe('proto-mcp: --descriptor needs --reflect (a .proto file says which services there are)\n')
  })
})

describe('proto-mcp serve <bad descriptor set>', () => {
  const refused = async (file: string): Promise<string> => {
    const run = await runCli(cli, ['serve', file, '--grpc', backend.address])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1)
    return run.stderr
  }

  it('a truncated set', async () => {
    const cut = join(dir, 'cut.binpb')
    const bytes = readFileSync(image)
    writeFileSync(cut, bytes.subarray(0, Math.floor(bytes.length / 2)))
    expect(await refused(cut)).toMatch(
      new RegExp(`^proto-mcp: cannot read "${cut}": it is no FileDescriptorSet or buf image \\(truncated\\?\\): `),
    )
  })

  it('a file that is no descriptor set', async () => {
    const other = join(dir, 'notes.binpb')
    writeFileSync(other, 'syntax = "proto3";\nmessage M {}\n')
    expect(await refused(other)).toMatch(new RegExp(`^proto-mcp: cannot read "${other}": it is no FileDescriptorSet or buf image`))
    const json = join(dir, 'other.json')
    writeFileSync(json, '{"name": "not a set"}')
    expect(await refused(json)).toBe(
      `proto-mcp: cannot read "${json}": it is no FileDescriptorSet or buf image (truncated?): it is JSON, but no FileDescriptorSet (no "file" list)\n`,
    )
    // A .json set cut short is read as the JSON it is, and its parse error said (it was read as binary).
    const cutJson = join(dir, 'cut.json')
    writeFileSync(cutJson, '{"file":[{"name":"x.proto"')
    expect(await refused(cutJson)).toMatch(
      new RegExp(
        `^proto-mcp: cannot read "${cutJson}": it is no FileDescriptorSet or buf image \\(truncated\\?\\): its JSON does not parse: `,
      ),
    )
  })

  it('a set missing a dependency', async () => {
    const lonely = join(dir, 'lonely.binpb')
    // As protoc writes a set without --include_imports.
    execFileSync(BUF, ['build', 'fixtures/protos/grpc', '--path', 'fixtures/protos/grpc/shapes.proto', '--exclude-imports', '-o', lonely], {
      cwd: REPO,
    })
    expect(await refused(lonely)).toMatch(
      new RegExp(
        `^proto-mcp: cannot read "${lonely}": file "shapes.proto" imports "google/protobuf/timestamp.proto", which the descriptors do not include \\(build it with its imports: buf build, or protoc --include_imports\\)\\n$`,
      ),
    )
  })
})
