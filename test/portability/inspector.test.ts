/**
 * Portability: the MCP Inspector's `--strict` schema check finds nothing in
 * the default (portable) profile's tools (docs/mapping.md, "Input schema: types"), and finds Topeka's ten
 * 64-bit `type` arrays in the `topeka` profile, which proves the check runs.
 * The servers are real generated modules, built with rolldown and the
 * plugin, served over stdio.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bundle, installRuntimePackage, topekaDir } from '../bundlers/harness.ts'
import { inspectorVersion, inspectTools } from './run-inspector.ts'
import { REPO } from '../helpers/repo.ts'

const WS = join(REPO, '.tmp', 'portability')
const EXAMPLE_TOOLS = ['SetVibe', 'GetVibe', 'SetVibeDetails', 'SetVibeArray', 'SetVibeObjects']
const PLAYGROUND_TOOLS = [
  'SetVibe',
  'GetVibe',
  'UpdateVibe',
  'ResetVibe',
  'VibeHistory',
  'CreatePlaylist',
  'GetPlaylist',
  'ListPlaylists',
  'AddTrack',
  'RemoveTrack',
  'RateTrack',
  'WriteEntry',
  'GetEntry',
  'AddComment',
  'SearchEntries',
  'DeleteEntry',
  // The type tool: AddComment's replies past the inlining depth are a placeholder naming it.
  'describe_type',
]
const SIXTY_FOUR = ['Fixed64', 'Int64', 'Sfixed64', 'Sint64', 'Uint64']

const servers: Record<'exampleDefault' | 'exampleTopeka' | 'playground', string> = { exampleDefault: '', exampleTopeka: '', playground: '' }

beforeAll(async () => {
  rmSync(WS, { recursive: true, force: true })
  mkdirSync(WS, { recursive: true })
  // Its own package scope: otherwise Node resolves `unplugin-proto-mcp/runtime`
  // by self-reference to the repository's dist/, not the copy installed here.
  writeFileSync(join(WS, 'package.json'), '{ "name": "portability-workspace", "private": true, "type": "module" }\n')
  await installRuntimePackage(WS)
  const entry = join(WS, 'example.mjs')
  const proto = join(topekaDir(), 'example.proto')
  writeFileSync(entry, `import server from ${JSON.stringify(`${proto}?mcp`)}\nawait server.serveStdio()\n`)
  servers.exampleDefault = (await bundle('rolldown', entry, join(WS, 'out', 'example-default'))).file
  servers.exampleTopeka = (await bundle('rolldown', entry, join(WS, 'out', 'example-topeka'), { profile: 'topeka' })).file
  servers.playground = (await bundle('rolldown', join(REPO, 'playground', 'server.ts'), join(WS, 'out', 'playground'))).file
})

afterAll(() => {
  rmSync(WS, { recursive: true, force: true })
})

describe(`MCP Inspector ${inspectorVersion()} --strict`, () => {
  it('finds no errors and no warnings in example.proto, default (portable) profile', async () => {
    const report = await inspectTools(servers.exampleDefault)
    expect(report.exitCode).toBe(0)
    expect(report.tools).toEqual(EXAMPLE_TOOLS)
    expect(report.findings).toEqual([])
  })

  it('finds no errors and no warnings in the playground proto, default (portable) profile', async () => {
    const report = await inspectTools(servers.playground, ['--stdio'])
    expect(report.exitCode).toBe(0)
    expect(report.tools).toEqual(PLAYGROUND_TOOLS)
    expect(report.findings).toEqual([])
  })

  it("finds Topeka's ten 64-bit type arrays in example.proto, topeka profile", async () => {
    const report = await inspectTools(servers.exampleTopeka)
    expect(report.exitCode).toBe(0)
    expect(report.tools).toEqual(EXAMPLE_TOOLS)
    const found = report.findings.map((f) => `${f.severity} ${f.rule} ${f.tool} ${f.schema}.${f.path}`).sort()
    expect(found).toEqual([
      ...SIXTY_FOUR.map((kind) => `warning type-union SetVibeArray inputSchema.properties.vibeArray.properties.vibe${kind}s.items`),
      ...SIXTY_FOUR.map((kind) => `warning type-union SetVibeDetails inputSchema.properties.vibeScalar.properties.vibe${kind}`),
    ])
    expect(report.stderr).toContain('0 errors, 10 warnings across 2 tools.')
  })
})
