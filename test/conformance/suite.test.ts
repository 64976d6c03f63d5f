/**
 * The official conformance suite (`@modelcontextprotocol/conformance`,
 * pinned), run by its frozen requirement sets (`--requirements 2026-07-28`
 * and `--requirements 2025-11-25`) against the fixture server, served by
 * `serveHttp()` and mounted on Vite's dev server: every check of every
 * scenario a set runs passes, scored or not (the Tasks extension and the
 * pending scenarios included), with no expected-failures list.
 */
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HttpHandle } from '../../src/entries/runtime.ts'
import { startDevApp, type DevApp } from '../dev/dev-app.ts'
import { problems, requirementSet, runSuite, type Revision, type SuiteRun } from './run-suite.ts'
import { serveConformance } from './serve.ts'

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url))

/**
 * Every scenario the set runs ran, and none has a failing check; none has a
 * warning either, but for a scenario the suite itself marks pending (its own
 * reference fixture cannot pass it).
 */
function expectAllGreen(revision: Revision, run: SuiteRun): void {
  const set = requirementSet(revision)
  const expected = [...set.scored, ...set.notScored.map((e) => e.scenario)]
  expect([...run.scenarios.keys()].sort(), run.output).toEqual([...expected].sort())
  const pending = new Set(set.notScored.filter((e) => e.reason === 'pending').map((e) => e.scenario))
  const judged = Object.entries(problems(run))
    .map(([name, found]) => [name, pending.has(name) ? found.filter((line) => !line.includes(' WARNING: ')) : found] as const)
    .filter(([, found]) => found.length > 0)
  expect(Object.fromEntries(judged), run.output).toEqual({})
  for (const checks of run.scenarios.values()) expect(checks.length).toBeGreaterThan(0)
}

let handle: HttpHandle
let app: DevApp

beforeAll(async () => {
  handle = await serveConformance()
  // Started here, not in the test: it builds the runtime package first (hook timeout).
  app = await startDevApp('conformance', {
    server: './conformance-mcp.ts',
    prepare: (root) => {
      copyFileSync(here('./everything.ts'), join(root, 'everything.ts'))
      copyFileSync(here('./conformance.proto'), join(root, 'conformance.proto'))
      writeFileSync(
        join(root, 'conformance-mcp.ts'),
        [
          `import { Server } from 'unplugin-proto-mcp/runtime'`,
          `import proto from './conformance.proto?mcp'`,
          `import { everythingServer, implementCount } from './everything.ts'`,
          `export default everythingServer(Server, implementCount(proto))`,
          '',
        ].join('\n'),
      )
    },
  })
})

afterAll(async () => {
  await handle?.close()
  await app?.close()
})

describe('the requirement sets of the pinned suite', () => {
  it('2026-07-28: 37 scored scenarios, and the Tasks extension and pending ones it runs unscored', () => {
    const set = requirementSet('2026-07-28')
    expect(set.scored).toHaveLength(37)
    expect(set.notScored.filter((e) => e.reason === 'extension').map((e) => e.scenario)).toHaveLength(10)
  })

  it('2025-11-25: 30 scored scenarios', () => {
    expect(requirementSet('2025-11-25').scored).toHaveLength(30)
  })
})

describe.each(['2026-07-28', '2025-11-25'] as const)('the conformance suite, --requirements %s', (revision) => {
  it('passes against serveHttp()', async () => {
    expectAllGreen(revision, await runSuite(handle.url, { requirements: revision }))
  })

  it('passes against the Vite dev-server mount', async () => {
    expectAllGreen(revision, await runSuite(`${app.origin}/mcp`, { requirements: revision }))
  })
})
