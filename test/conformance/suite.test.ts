/**
 * The official conformance suite (`@modelcontextprotocol/conformance`, the
 * default active suite of server scenarios) against the fixture server,
 * served by `serveHttp()` and mounted on Vite's dev server: every check of
 * every scenario passes, with no expected-failures list.
 */
import { copyFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server, type HttpHandle } from '../../src/entries/runtime.ts'
import { createProtoServer } from '../../src/entries/codegen-v1.ts'
import { startDevApp, type DevApp } from '../dev/dev-app.ts'
import { specFromProto } from '../helpers/spec-from-proto.ts'
import { everythingServer, implementCount } from './everything.ts'
import { problems, runSuite, type SuiteRun } from './run-suite.ts'

const here = (file: string): string => fileURLToPath(new URL(file, import.meta.url))

/** The scenarios of the default suite of 0.1.16. */
const ACTIVE = [
  'server-initialize',
  'logging-set-level',
  'ping',
  'completion-complete',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-image',
  'tools-call-audio',
  'tools-call-embedded-resource',
  'tools-call-mixed-content',
  'tools-call-with-logging',
  'tools-call-error',
  'tools-call-with-progress',
  'tools-call-sampling',
  'tools-call-elicitation',
  'elicitation-sep1034-defaults',
  'server-sse-multiple-streams',
  'elicitation-sep1330-enums',
  'resources-list',
  'resources-read-text',
  'resources-read-binary',
  'resources-templates-read',
  'resources-subscribe',
  'resources-unsubscribe',
  'prompts-list',
  'prompts-get-simple',
  'prompts-get-with-args',
  'prompts-get-embedded-resource',
  'prompts-get-with-image',
  'dns-rebinding-protection',
]

function expectAllGreen(run: SuiteRun): void {
  expect([...run.scenarios.keys()].sort(), run.output).toEqual([...ACTIVE].sort())
  expect(problems(run), run.output).toEqual({})
  for (const checks of run.scenarios.values()) expect(checks.length).toBeGreaterThan(0)
}

let handle: HttpHandle
let app: DevApp

beforeAll(async () => {
  const proto = implementCount(createProtoServer(specFromProto(here('./conformance.proto'))))
  handle = await everythingServer(Server, proto).serveHttp({ port: 0 })
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

describe('the conformance suite, default scenarios', () => {
  it('passes against serveHttp()', async () => {
    expectAllGreen(await runSuite(handle.url))
  })

  it('passes against the Vite dev-server mount', async () => {
    expectAllGreen(await runSuite(`${app.origin}/mcp`))
  })
})
