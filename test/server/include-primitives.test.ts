/**
 * `include()` merges the resources, resource templates and prompts of the
 * servers it includes (hand-written or from the proto), beside the
 * including server's own, and a name or URI given twice fails `build()`
 * naming both sources (docs/guide/resources.md, Prompts). A `?mcp` module's
 * hot reload (`replaceTools` of the new module's server) swaps the proto's
 * prompts with its tools.
 */
import { join } from 'node:path'
import { Client, InMemoryTransport } from '@modelcontextprotocol/client'
import { describe, expect, it, vi } from 'vitest'
import { buildProtoTools, compileInProcess } from '../../src/codegen/build-proto.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { Server } from '../../src/entries/runtime.ts'
import { REPO } from '../helpers/repo.ts'

const VIBES = join(REPO, 'fixtures/apps/prompts/vibes.proto')
const vibes = () => createProtoServer(compileInProcess(buildProtoTools(VIBES)).spec)
/** The service's prompt alone: its RPC left out, so no tool and none of the RPC's prompts. */
const report = () =>
  createProtoServer(compileInProcess(buildProtoTools(VIBES, { methods: { exclude: ['prompts.v1.VibeService.SetVibe'] } })).spec)

/** A hand-written server with one of each, reading its own state. */
const notes = () =>
  Server.builder('notes')
    .state({ owner: 'notes' })
    .resource({ uri: 'notes://readme', name: 'readme' }, (_uri, ctx) => `read by ${ctx.state.owner}`)
    .resourceTemplate({ uriTemplate: 'notes://n/{id}', name: 'note' }, (uri, vars, ctx) => `${String(vars.id)} of ${ctx.state.owner}`, {
      complete: { id: (value, ctx) => [`${value}1-${ctx.state.owner}`] },
    })
    .prompt({ name: 'summarize', arguments: [{ name: 'id', required: true }] }, ({ id }, ctx) => `Summarize ${id} (${ctx.state.owner}).`)
    .build()

async function connect(server: Server): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await server.connect(serverSide)
  const client = new Client({ name: 'include-test', version: '0.0.0' })
  await client.connect(clientSide)
  return client
}

describe('include() merges resources, templates and prompts', () => {
  it('serves the included ones beside its own; their handlers see their own state', async () => {
    const server = Server.builder('app')
      .state({ owner: 'app' })
      .include(vibes(), notes())
      .prompt({ name: 'own' }, (_args, ctx) => `mine: ${ctx.state.owner}`)
      .build()
    const client = await connect(server)
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['vibe_report', 'set_vibe', 'explain_vibe', 'summarize', 'own'])
    expect((await client.getPrompt({ name: 'summarize', arguments: { id: 'n7' } })).messages[0]!.content).toEqual({
      type: 'text',
      text: 'Summarize n7 (notes).',
    })
    expect((await client.getPrompt({ name: 'own' })).messages[0]!.content).toEqual({ type: 'text', text: 'mine: app' })
    expect((await client.getPrompt({ name: 'explain_vibe', arguments: { vibe: 'CALM' } })).messages[0]!.content).toEqual({
      type: 'text',
      text: 'Explain the vibe CALM in one sentence.',
    })
    await expect(client.getPrompt({ name: 'explain_vibe', arguments: {} })).rejects.toMatchObject({ code: -32602 })
    // Its arguments are held to their fields: an enum's values, names it has, a required one not empty.
    const refused = (args: Record<string, string>) =>
      client.getPrompt({ name: 'set_vibe', arguments: args }).then(
        () => 'answered',
        (error: { code?: number; message?: string }) => `${error.code} ${error.message?.replace(/^MCP error -?\d+: /, '')}`,
      )
    expect(await refused({ region: 'north', vibe: 'ANGRY' })).toBe(
      '-32602 Prompt set_vibe: argument "vibe" must be one of CALM, LIVELY, got "ANGRY"',
    )
    expect(await refused({ region: 'north', vibe: 'CALM', change_reason: 'rain' })).toBe(
      '-32602 Prompt set_vibe: unknown argument "change_reason" (did you mean "changeReason"?); its arguments are region, vibe, changeReason',
    )
    expect(await refused({ region: '', vibe: 'CALM' })).toBe('-32602 Prompt set_vibe: required argument "region" is empty')
    expect(
      (await client.getPrompt({ name: 'set_vibe', arguments: { region: 'north', vibe: 'CALM', changeReason: 'rain' } })).messages[0]!
        .content,
    ).toEqual({
      type: 'text',
      text: 'Set the vibe of north to CALM. Reason: rain.',
    })
    // The proto's enum argument completes through the including server too.
    const vibe = await client.complete({ ref: { type: 'ref/prompt', name: 'set_vibe' }, argument: { name: 'vibe', value: 'C' } })
    expect(vibe.completion.values).toEqual(['CALM'])
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['notes://readme'])
    expect((await client.readResource({ uri: 'notes://readme' })).contents).toEqual([{ uri: 'notes://readme', text: 'read by notes' }])
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['notes://n/{id}'])
    expect((await client.readResource({ uri: 'notes://n/42' })).contents[0]).toMatchObject({ text: '42 of notes' })
    const completed = await client.complete({ ref: { type: 'ref/resource', uri: 'notes://n/{id}' }, argument: { name: 'id', value: 'x' } })
    expect(completed.completion.values).toEqual(['x1-notes'])
    await client.close()
  })

  it("serves the proto's prompts beside its resource templates (one spec carrying both, as the command's)", async () => {
    const { spec } = compileInProcess(buildProtoTools(VIBES))
    const served = createProtoServer({
      ...spec,
      resources: {
        templates: [
          {
            template: { uriTemplate: 'vibes://regions/{region}', name: 'Region', title: 'Region', mimeType: 'application/json' },
            type: 'vibes.example/Region',
            pattern: 'regions/{region}',
            get: { tool: 'SetVibe', field: 'region' },
          },
        ],
      },
    })
    const client = await connect(served)
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['vibes://regions/{region}'])
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['vibe_report', 'set_vibe', 'explain_vibe'])
    await client.close()
  })

  const clashes = [
    {
      what: 'a prompt name of the proto and a hand-written prompt',
      build: () =>
        Server.builder('c')
          .include(vibes())
          .prompt({ name: 'set_vibe' }, () => 'x'),
      error: 'prompt "set_vibe" is defined twice, by include(vibes) and by prompt(): prompt names must be unique',
    },
    {
      what: 'two included servers with one prompt name',
      build: () => Server.builder('c').include(vibes(), report()),
      error: 'prompt "vibe_report" is defined twice, by include(vibes) and by include(vibes): prompt names must be unique',
    },
    {
      what: 'a resource URI',
      build: () =>
        Server.builder('c')
          .resource({ uri: 'notes://readme', name: 'mine' }, () => 'x')
          .include(notes()),
      error: 'resource "notes://readme" is defined twice, by resource() and by include(notes): resource URIs must be unique',
    },
    {
      what: 'a resource template',
      build: () =>
        Server.builder('c')
          .include(notes())
          .resourceTemplate({ uriTemplate: 'notes://n/{id}', name: 'again' }, () => 'x'),
      error:
        'resource template "notes://n/{id}" is defined twice, by include(notes) and by resourceTemplate(): resource template URIs must be unique',
    },
  ]
  for (const c of clashes) {
    it(`fails build() on ${c.what}, naming both`, () => {
      expect(() => c.build().build()).toThrow(c.error)
    })
  }
})

describe('replaceTools(server) swaps the prompts of the proto (hot reload)', () => {
  it("takes the new server's proto prompts, keeps one added by hand, announces the list", async () => {
    const kept = vibes()
    kept.handle().addPrompt({ name: 'by_hand' }, () => 'hand')
    const client = await connect(kept)
    const seen: string[] = []
    client.fallbackNotificationHandler = async (n) => void seen.push(n.method)
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['vibe_report', 'set_vibe', 'explain_vibe', 'by_hand'])
    kept.handle().replaceTools(report())
    await vi.waitFor(() => expect(seen).toContain('notifications/prompts/list_changed'))
    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['by_hand', 'vibe_report'])
    await expect(client.getPrompt({ name: 'set_vibe', arguments: { region: 'r', vibe: 'CALM' } })).rejects.toMatchObject({ code: -32602 })
    await client.close()
  })
})
