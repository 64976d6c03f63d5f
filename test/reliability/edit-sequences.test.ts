/**
 * Seeded random edit sequences in Vite's dev server with the real plugin
 * (issue 20). Each sequence starts a dev server on a fresh app (a service
 * in `svc.proto`, its reply type in the imported `types.proto`, the
 * implementation in `seq.ts`) with three clients connected: SDK v1 over
 * HTTP (its GET stream), SDK v2 on 2026-07-28 (a `subscriptions/listen`
 * stream) and the `/__mcp/` page in Chromium. Edits are drawn from: add,
 * remove and rename an RPC; add, rename and retype a field; edit the
 * imported `.proto`; edit the implementation; a syntax error in the
 * `.proto`, then its fix; a syntax error in the implementation, then its
 * fix; a `proto_mcp` option changed. After each edit, once it shows:
 * - a `.proto` edit was announced to all three clients;
 * - `tools/list` equals what the plugin builds in process from the same
 *   files (`buildModuleSource`, the module a build would ship, imported);
 * - every implemented tool answers with the current implementation's
 *   reply, every other one answers `Unimplemented`;
 * - a broken file shows in Vite's overlay (in the page too) and the last
 *   good tools keep answering;
 * - no call answers a protocol error (an internal error above all).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { chromium, type Browser } from 'playwright-core'
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client'
import { findChromium } from '../../scripts/find-chromium.mjs'
import { buildModuleSource } from '../../src/codegen/build-proto.ts'
import { startDevApp, type DevApp } from '../dev/dev-app.ts'
import { scaled, SEED } from './scale.ts'
import { REPO } from '../helpers/repo.ts'

const SEQUENCES = scaled(20, 100)
const EDITS = 8
const WAIT = { timeout: 20_000, interval: 25 }

type FieldType = 'string' | 'int32' | 'bool' | 'double'
interface Field {
  name: string
  type: FieldType
  number: number
}
type ToolOption = 'none' | 'title' | 'readOnly' | 'hidden'
interface State {
  rpcs: { name: string; option: ToolOption }[]
  request: Field[]
  item: Field[]
  /** The implementation module: its version (in every reply) and the RPC names it implements. */
  impl: { version: number; names: string[] }
  /** A counter for fresh names. */
  next: number
}
type Edit =
  | 'addRpc'
  | 'removeRpc'
  | 'renameRpc'
  | 'addField'
  | 'renameField'
  | 'retypeField'
  | 'editImport'
  | 'editImpl'
  | 'breakProto'
  | 'breakImpl'
  | 'option'
const EDIT_KINDS: Edit[] = [
  'addRpc',
  'removeRpc',
  'renameRpc',
  'addField',
  'renameField',
  'retypeField',
  'editImport',
  'editImpl',
  'breakProto',
  'breakImpl',
  'option',
]
const TYPES: FieldType[] = ['string', 'int32', 'bool', 'double']
const OPTIONS: ToolOption[] = ['none', 'title', 'readOnly', 'hidden']

/** mulberry32: a small seeded generator, so a failing sequence replays from its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const fieldText = (fields: Field[], indent = '  '): string => fields.map((f) => `${indent}${f.type} ${f.name} = ${f.number};\n`).join('')

const OPTION_TEXT: Record<ToolOption, string> = {
  none: ';',
  title: ' {\n    option (proto_mcp.tool) = { title: "A titled tool" };\n  }',
  readOnly: ' {\n    option (proto_mcp.tool) = { read_only_hint: true };\n  }',
  hidden: ' {\n    option (proto_mcp.tool) = { hidden: true };\n  }',
}

function typesProto(state: State): string {
  return `syntax = "proto3";\npackage seq.v1;\n\n// An item\nmessage Item {\n${fieldText(state.item)}}\n\nmessage Reply {\n  string marker = 1;\n  Item item = 2;\n}\n`
}

function svcProto(state: State): string {
  const rpcs = state.rpcs.map((r) => `  // The ${r.name} call\n  rpc ${r.name}(Req) returns (Reply)${OPTION_TEXT[r.option]}\n`).join('')
  return `syntax = "proto3";\npackage seq.v1;\n\nimport "types.proto";\nimport "proto_mcp/options.proto";\n\nmessage Req {\n${fieldText(state.request)}}\n\nservice SeqService {\n${rpcs}}\n`
}

function implModule(state: State): string {
  const methods = state.impl.names.map((name) => `  ${name}: () => ({ marker: 'v${state.impl.version}:${name}' }),\n`).join('')
  return `import server from './svc.proto?mcp'\n\nserver.implement('SeqService', {\n${methods}})\n\nexport default server\n`
}

/** The tools the plugin builds from `files` in process (the module a build ships, imported), as listed. */
async function builtListing(files: Record<string, string>, tag: string): Promise<unknown[]> {
  const dir = join(REPO, '.tmp', 'edit-sequences', tag)
  mkdirSync(dir, { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const built = buildModuleSource(join(dir, 'svc.proto'), { profile: 'portable', hmr: false })
  const out = join(dir, 'module.mjs')
  writeFileSync(out, built.code)
  const mod = (await import(/* @vite-ignore */ `${pathToFileURL(out).href}?v=${tag}`)) as { default: { listTools(): unknown[] } }
  return mod.default.listTools()
}

/** Applies one edit to `state` (a copy); returns the files it writes and whether they are broken. */
function applyEdit(
  kind: Edit,
  state: State,
  pick: <T>(items: readonly T[]) => T,
): { state: State; file: 'svc.proto' | 'types.proto' | 'seq.ts'; broken?: boolean } {
  const s: State = structuredClone(state)
  const fresh = (prefix: string): string => `${prefix}${s.next++}`
  const nextNumber = (fields: Field[]): number => Math.max(0, ...fields.map((f) => f.number)) + 1
  switch (kind) {
    case 'addRpc':
      s.rpcs.push({ name: fresh('Rpc'), option: 'none' })
      return { state: s, file: 'svc.proto' }
    case 'removeRpc':
      if (s.rpcs.length > 1) s.rpcs.splice(s.rpcs.indexOf(pick(s.rpcs)), 1)
      else s.rpcs.push({ name: fresh('Rpc'), option: 'none' })
      return { state: s, file: 'svc.proto' }
    case 'renameRpc':
      pick(s.rpcs).name = fresh('Rpc')
      return { state: s, file: 'svc.proto' }
    case 'addField':
      s.request.push({ name: fresh('field_'), type: pick(TYPES), number: nextNumber(s.request) })
      return { state: s, file: 'svc.proto' }
    case 'renameField':
      pick(s.request).name = fresh('field_')
      return { state: s, file: 'svc.proto' }
    case 'retypeField': {
      const field = pick(s.request)
      field.type = pick(TYPES.filter((t) => t !== field.type))
      return { state: s, file: 'svc.proto' }
    }
    case 'editImport':
      if (pick([true, false])) s.item.push({ name: fresh('item_'), type: pick(TYPES), number: nextNumber(s.item) })
      else pick(s.item).name = fresh('item_')
      return { state: s, file: 'types.proto' }
    case 'editImpl':
      s.impl = { version: s.impl.version + 1, names: s.rpcs.map((r) => r.name).filter(() => pick([true, true, false])) }
      return { state: s, file: 'seq.ts' }
    case 'breakProto':
      return { state: s, file: 'svc.proto', broken: true }
    case 'breakImpl':
      return { state: s, file: 'seq.ts', broken: true }
    case 'option': {
      const rpc = pick(s.rpcs)
      rpc.option = pick(OPTIONS.filter((o) => o !== rpc.option))
      return { state: s, file: 'svc.proto' }
    }
  }
}

const filesOf = (state: State): Record<string, string> => ({
  'svc.proto': svcProto(state),
  'types.proto': typesProto(state),
  'seq.ts': implModule(state),
})

let browser: Browser
const timings: number[] = []

beforeAll(async () => {
  const { executablePath, args } = await findChromium()
  browser = await chromium.launch({ executablePath, args })
})
afterAll(async () => {
  await browser?.close()
  if (timings.length > 0) {
    const total = timings.reduce((a, b) => a + b, 0)
    process.stdout.write(
      `[edit-sequences] ${timings.length} sequences of ${EDITS} edits in ${(total / 1000).toFixed(1)} s (${Math.round(total / timings.length)} ms a sequence)\n`,
    )
  }
})

type CallOutcome = { content: { type: string; text: string }[]; isError?: boolean }

describe(`${SEQUENCES} seeded sequences of ${EDITS} edits in vite dev`, () => {
  for (let n = 0; n < SEQUENCES; n++) {
    const seed = SEED + n
    it(`sequence ${n} (seed ${seed})`, async () => {
      const started = Date.now()
      const rand = random(seed)
      const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!
      let state: State = {
        rpcs: [
          { name: 'Alpha', option: 'none' },
          { name: 'Beta', option: 'none' },
        ],
        request: [{ name: 'query', type: 'string', number: 1 }],
        item: [{ name: 'label', type: 'string', number: 1 }],
        impl: { version: 1, names: ['Alpha'] },
        next: 1,
      }
      const app: DevApp = await startDevApp('edit-sequences', {
        reuse: true,
        app: `seq-${n}`,
        server: './seq.ts',
        prepare(root) {
          for (const [name, text] of Object.entries(filesOf(state))) writeFileSync(join(root, name), text)
        },
      })
      // What the plugin sends to Vite's overlay channel.
      const overlay: string[] = []
      const hot = app.server.environments.client.hot
      const send = hot.send.bind(hot) as (payload: unknown) => void
      hot.send = ((payload: { type: string; err?: { message: string } }) => {
        if (payload.type === 'error') overlay.push(payload.err!.message)
        send(payload)
      }) as typeof hot.send

      const v1 = new ClientV1({ name: 'seq-v1', version: '1' })
      let heardV1 = 0
      v1.setNotificationHandler(ToolListChangedNotificationSchema, () => {
        heardV1++
      })
      const v2 = new ClientV2({ name: 'seq-v2', version: '1' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      let heardV2 = 0
      v2.setNotificationHandler('notifications/tools/list_changed', () => {
        heardV2++
      })
      const page = await browser.newPage()
      const pageErrors: string[] = []
      page.on('pageerror', (error) => pageErrors.push(error.message))
      try {
        await v1.connect(new HttpV1(new URL(`${app.origin}/mcp`)))
        await v2.connect(new HttpV2(new URL(`${app.origin}/mcp`)))
        expect(v2.getProtocolEra()).toBe('modern')
        await v2.listen({ toolsListChanged: true })
        await page.goto(`${app.origin}/__mcp/`)
        await page.locator('#status[data-status="live"]').waitFor({ timeout: 20_000 })

        const pageTools = (): Promise<string[]> =>
          page.locator('#tools li').evaluateAll((items) => items.map((li) => (li as HTMLElement).dataset.tool!))
        /** The good state serving now (the last one that parsed). */
        let good = state
        let expected = await builtListing(filesOf(state), `${n}-0`)

        /** Every listed tool answers: the implementation's reply, or Unimplemented; never a protocol error. */
        const checkCalls = async (): Promise<void> => {
          const bound = new Set(good.impl.names.filter((name) => good.rpcs.some((r) => r.name === name)))
          const listed = (await v1.listTools()).tools.map((t) => t.name)
          for (const name of listed) {
            const result = (await v1.callTool({ name, arguments: {} })) as CallOutcome
            if (bound.has(name)) {
              expect(result.isError ?? false, `${name}: ${result.content[0]?.text}`).toBe(false)
              expect(JSON.parse(result.content[0]!.text), name).toEqual({ marker: `v${good.impl.version}:${name}` })
            } else {
              expect(result.isError, name).toBe(true)
              expect(result.content[0]!.text, name).toContain('code = Unimplemented')
            }
          }
          // The 2026-07-28 client calls one tool each time.
          if (listed.length > 0) {
            const name = pick(listed)
            const result = (await v2.callTool({ name, arguments: {} })) as CallOutcome
            expect(result.content[0]!.text).toContain(bound.has(name) ? `v${good.impl.version}:${name}` : 'code = Unimplemented')
          }
        }
        await checkCalls()

        const log: string[] = []
        const overlayCleared = () =>
          vi.waitFor(() => expect(page.locator('vite-error-overlay').count(), `${log.join(' ')}: overlay cleared`).resolves.toBe(0), WAIT)
        for (let e = 0; e < EDITS; e++) {
          const kind = pick(EDIT_KINDS)
          log.push(kind)
          const { state: next, file, broken } = applyEdit(kind, state, pick)
          const before = { v1: heardV1, v2: heardV2, overlay: overlay.length }
          if (broken) {
            const text = filesOf(good)[file]!
            // A syntax error, then (as the next edit) its fix.
            await app.write(
              file,
              file === 'seq.ts'
                ? text.replace('export default server', 'export default server +')
                : text.replace('service SeqService {', 'service SeqService {{'),
            )
            await vi.waitFor(() => expect(overlay.length, `${log.join(' ')}: the overlay`).toBeGreaterThan(before.overlay), WAIT)
            expect(overlay.at(-1)).toMatch(file === 'seq.ts' ? /seq\.ts/ : /svc\.proto:\d+:\d+/)
            // The page shows the overlay; the last good tools keep answering.
            await page.locator('vite-error-overlay').waitFor({ state: 'attached', timeout: 20_000 })
            expect((await v1.listTools()).tools).toEqual(expected)
            await checkCalls()
            await app.write(file, text)
            // An implementation naming an RPC a later .proto edit removed was bound leniently (with a
            // warning); evaluated again, its implement() throws: the overlay says so, the last good server stays.
            const stale = good.impl.names.some((name) => !good.rpcs.some((r) => r.name === name))
            if (file === 'seq.ts' && stale) {
              await vi.waitFor(
                () => expect(overlay.at(-1)).toMatch(/unknown method "\w+" in the implementation of "seq\.v1\.SeqService"/),
                WAIT,
              )
              await checkCalls()
            } else await overlayCleared()
            e++
            log.push('fix')
          } else {
            state = next
            await app.write(file, filesOf(state)[file]!)
            good = state
            expected = await builtListing(filesOf(state), `${n}-${e + 1}`)
            const names = (expected as { name: string }[]).map((t) => t.name)
            if (file === 'seq.ts') {
              // No list change to announce: the new replies show, and any error shown before goes.
              await vi.waitFor(async () => checkCalls(), WAIT)
              await overlayCleared()
            } else {
              await vi.waitFor(() => {
                expect(heardV1, `${log.join(' ')}: SDK v1 told`).toBeGreaterThan(before.v1)
                expect(heardV2, `${log.join(' ')}: SDK v2 told`).toBeGreaterThan(before.v2)
              }, WAIT)
              await vi.waitFor(async () => expect((await v1.listTools()).tools).toEqual(expected), WAIT)
              await vi.waitFor(async () => expect(await pageTools()).toEqual(names), WAIT)
              expect((await v2.listTools()).tools.map((t) => t.name)).toEqual(names)
              await checkCalls()
            }
          }
        }
        expect(pageErrors).toEqual([])
        expect(app.errors.filter((line) => /internal error|not loaded/i.test(line))).toEqual([])
      } finally {
        await page.close()
        await v1.close().catch(() => {})
        await v2.close().catch(() => {})
        await app.close()
        timings.push(Date.now() - started)
      }
    })
  }
})
