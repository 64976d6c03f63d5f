/**
 * Prompts from the proto in the gateway (docs/guide/resources.md, Prompts):
 * `proto-mcp serve` of fixtures/apps/prompts/vibes.proto, and of a buf image
 * of it, lists and renders its `(proto_mcp.prompt)` options for SDK v1 and
 * v2 clients (v2 in both eras) over stdio and HTTP, completing an enum
 * argument to its values; a bad prompt is one
 * stderr line with the file and line, and nothing is served.
 */
import { copyFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENTS } from '../bundlers/mcp-clients.ts'
import { builtCli, runCli } from '../helpers/cli.ts'
import { REPO } from '../helpers/repo.ts'
import { SET_VIBE_PROMPT } from '../helpers/vibes-prompts.ts'
import { bufSet, httpSession, setDir, sharedServe, stdioSession } from '../descriptors/set-helpers.ts'

const VIBES = join(REPO, 'fixtures/apps/prompts/vibes.proto')
const BAD = join(REPO, 'fixtures/apps/prompts/bad.proto')
// Nothing listens there: prompts need no backend, and no tool is called.
const GRPC = ['--grpc', '127.0.0.1:9']

let cli = ''
let image = ''
beforeAll(() => {
  cli = builtCli()
  // A buf module of vibes.proto and the shipped protos it imports.
  const root = join(setDir(), 'module')
  for (const file of ['google/api/field_behavior.proto', 'proto_mcp/options.proto']) {
    mkdirSync(join(root, file, '..'), { recursive: true })
    copyFileSync(join(REPO, 'protos', file), join(root, file))
  }
  copyFileSync(VIBES, join(root, 'vibes.proto'))
  image = bufSet(root, ['vibes.proto'], join(root, '..', 'vibes.binpb'))
}, 120_000)

type AnyClient = Awaited<ReturnType<typeof stdioSession>>['client']

async function check(client: AnyClient): Promise<void> {
  const { prompts } = await client.listPrompts()
  expect(prompts.map((p) => p.name)).toEqual(['vibe_report', 'set_vibe', 'explain_vibe'])
  expect(prompts[1]).toEqual(SET_VIBE_PROMPT)
  const got = await client.getPrompt({ name: 'explain_vibe', arguments: { vibe: 'LIVELY' } })
  expect(got.messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Explain the vibe LIVELY in one sentence.' } }])
  // An enum argument completes to its values.
  const completed = await client.complete({ ref: { type: 'ref/prompt', name: 'set_vibe' }, argument: { name: 'vibe', value: 'l' } })
  expect(completed.completion.values).toEqual(['LIVELY'])
  await expect(client.getPrompt({ name: 'vibe_report', arguments: { tone: 'dry' } })).rejects.toMatchObject({
    code: -32602,
    message: expect.stringContaining('Prompt vibe_report: missing required argument "region"'),
  })
}

describe.each([
  { source: 'vibes.proto', args: () => [VIBES, ...GRPC] },
  { source: 'a buf image of it', args: () => [image, ...GRPC] },
])('proto-mcp serve $source', ({ args }) => {
  const http = sharedServe(() => cli, args)
  afterAll(async () => expect(await http.stop()).toBe(0))

  for (const flavour of CLIENTS) {
    it(`over stdio with ${flavour}`, async () => {
      const { client, version } = await stdioSession(flavour, cli, args())
      try {
        await check(client)
        if (flavour === 'sdk-v2-2026') expect(version()).toBe('2026-07-28')
      } finally {
        await client.close()
      }
    })

    it(`over HTTP with ${flavour}`, async () => {
      const { client, version } = await httpSession(flavour, await http.url())
      try {
        await check(client as AnyClient)
        if (flavour === 'sdk-v2-2026') expect(version()).toBe('2026-07-28')
      } finally {
        await client.close()
      }
    })
  }
})

describe('a bad prompt', () => {
  it('is one line with the file and line, exit 1, nothing served', async () => {
    const run = await runCli(cli, ['serve', BAD, ...GRPC])
    expect(run.code).toBe(1)
    expect(run.stdout).toBe('')
    expect(run.stderr).toBe(
      `proto-mcp: ${BAD}:12:18: prompt "ask" ((proto_mcp.prompt) of RPC prompts.bad.BadService.Ask): the text names {{whom}}, which is no argument (its arguments: who)\n`,
    )
  })
})
