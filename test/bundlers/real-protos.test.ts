/**
 * Protos that broke on real inputs, built with the plugin (Rolldown, the
 * default profile and `topeka`) into fixtures/apps/real-protos and driven
 * over stdio by the SDK v1 and v2 clients: an editions file with
 * `reserved foo, bar;` before its services (they were lost), replies
 * missing a proto2 `required` field (they were answered as success), and
 * RPC names that are not Go names (`topeka` names them as the Go generator).
 */
import { cpSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundle, createWorkspace, installRuntimePackage } from './harness.ts'
import { CLIENTS, connectStdio, type ClientName, type McpSession } from './mcp-clients.ts'
import { REPO } from '../helpers/repo.ts'

const builds: Record<'default' | 'topeka', string> = { default: '', topeka: '' }

beforeAll(async () => {
  const ws = createWorkspace('real-protos')
  cpSync(join(REPO, 'fixtures', 'protos'), join(ws, 'fixtures', 'protos'), { recursive: true })
  await installRuntimePackage(ws)
  const entry = join(ws, 'fixtures', 'apps', 'real-protos', 'main.mjs')
  // One after another: this machine has two cores and vitest runs files in parallel.
  builds.default = (await bundle('rolldown', entry, join(ws, 'out', 'default'))).file
  builds.topeka = (await bundle('rolldown', entry, join(ws, 'out', 'topeka'), { profile: 'topeka' })).file
}, 180_000)

/** Runs `drive` against `node <build> <app>` with the `flavour` client, with the server's stderr on failure. */
async function withSession(flavour: ClientName, build: string, app: string, drive: (session: McpSession) => Promise<void>): Promise<void> {
  const session = await connectStdio(flavour, build, [app])
  try {
    await drive(session)
  } catch (error) {
    throw new Error(`${(error as Error).message}\nserver stderr:\n${session.stderr()}`, { cause: error })
  } finally {
    await session.close()
  }
}

describe.each(CLIENTS)('the %s client', (flavour) => {
  it('editions `reserved foo, bar;` before the services: every tool is there and answers', async () => {
    await withSession(flavour, builds.default, 'reserved', async (session) => {
      const { tools } = await session.listTools()
      expect(tools.map((t) => t.name)).toEqual(['SaveNote', 'GetNote', 'DropNote'])
      const saved = await session.callTool('SaveNote', { text: 'hi', mood: 'MOOD_GOOD', tags: [{ label: 'a' }] })
      expect(saved).toMatchObject({
        isError: false,
        content: [{ type: 'text', text: '{"text":"hi","mood":"MOOD_GOOD","tags":[{"label":"a"}]}' }],
      })
      const got = await session.callTool('GetNote', { id: '7' })
      expect(got).toMatchObject({ isError: false, content: [{ type: 'text', text: '{"text":"note 7"}' }] })
      // A reserved name is no field.
      const bad = await session.callTool('SaveNote', { foo: 'x' })
      expect(bad.isError).toBe(true)
    })
  })

  it('a reply missing a proto2 required field is an encoding error; a complete one a success', async () => {
    await withSession(flavour, builds.default, 'required', async (session) => {
      expect(await session.callTool('GetReport', {})).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'encoding response: title: required field not set' }],
      })
      expect(await session.callTool('GetReport', { title: 'complete' })).toMatchObject({
        isError: false,
        content: [{ type: 'text', text: '{"count":0,"title":"complete"}' }],
      })
      expect(await session.callTool('WatchReports', {})).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'encoding response: message 2 of the stream: parts[0].done: required field not set' }],
      })
    })
  })

  it('topeka: monitorHealth and get_vibe are the tools MonitorHealth and GetVibe, implemented by the names as written', async () => {
    await withSession(flavour, builds.topeka, 'go-names', async (session) => {
      const { tools } = await session.listTools()
      expect(tools.map((t) => [t.name, t.description])).toEqual([
        ['MonitorHealth', 'Monitor Health'],
        ['GetVibe', 'Tells the vibe of a target.'],
      ])
      expect(await session.callTool('GetVibe', { target: 'prod' })).toMatchObject({
        isError: false,
        content: [{ type: 'text', text: '{"status":"prod is chill"}' }],
      })
      expect(await session.callTool('MonitorHealth', { target: 'prod' })).toMatchObject({
        isError: false,
        content: [{ type: 'text', text: '{"status":"prod is up"}' }],
      })
    })
  })

  it('the default profile keeps the RPC names as written', async () => {
    await withSession(flavour, builds.default, 'go-names', async (session) => {
      const { tools } = await session.listTools()
      expect(tools.map((t) => t.name)).toEqual(['monitorHealth', 'get_vibe'])
      expect(await session.callTool('get_vibe', { target: 'dev' })).toMatchObject({
        isError: false,
        content: [{ type: 'text', text: '{"status":"dev is chill"}' }],
      })
    })
  })

  it('lenient arguments: Codex\'s "1.5" for a float, a stringified message, an object for a map, and a result\'s null fed back', async () => {
    await withSession(flavour, builds.default, 'lenient', async (session) => {
      const json = (result: { content: unknown[] }) => JSON.parse((result.content[0] as { text: string }).text) as Record<string, unknown>
      const codex = await session.callTool('Draw', { radius: '1.5' })
      expect(codex.isError).toBe(false)
      expect(json(codex)).toEqual({ radius: 1.5 })
      const stringified = await session.callTool('Draw', { center: JSON.stringify({ x: '1', y: 2 }), counts: { a: 5 } })
      expect(json(stringified)).toEqual({ center: { x: '1', y: '2' }, counts: { a: '5' } })
      // A oneof's NullValue member comes out as null (as a Firestore Value does) and must go back in.
      const drawn = await session.callTool('Draw', { none: null, counts: [{ key: 'b', value: '2' }] })
      expect(drawn.isError).toBe(false)
      expect(json(drawn)).toEqual({ counts: { b: '2' }, none: null })
      const again = await session.callTool('Draw', json(drawn))
      expect(again.isError, JSON.stringify(again.content)).toBe(false)
      expect(json(again)).toEqual(json(drawn))
      const bad = await session.callTool('Draw', { radius: 'wide' })
      expect(bad).toMatchObject({
        isError: true,
        content: [{ type: 'text', text: 'invalid arguments: /radius: "wide" is not of type "number"' }],
      })
    })
  })
})
