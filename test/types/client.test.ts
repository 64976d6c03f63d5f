/**
 * `unplugin-proto-mcp/client`: with it in a tsconfig's `types`, a
 * `./x.proto?mcp` import type-checks as a `Server` (and `tools`,
 * `descriptor`), and misuse of that `Server` fails. `tsc` runs in a child
 * process on `fixture/`, copied into a workspace where the package is
 * installed as a user gets it: `package.json`, `client.d.ts` and
 * `dist/runtime.{mjs,d.mts}` built fresh from `src/entries/runtime.ts`.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { installRuntimePackage } from '../bundlers/harness.ts'
import { REPO } from '../helpers/repo.ts'

const WS = join(REPO, '.tmp', 'types')
const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')

/** Runs `tsc -p <project>` in the workspace; its exit code and output. */
function tsc(project: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSC, '-p', project, '--pretty', 'false'], {
    cwd: WS,
    encoding: 'utf8',
    timeout: 60_000,
    killSignal: 'SIGKILL',
  })
  if (run.error) throw run.error
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

/** Writes `<name>.ts` (line 1 imports the module, `code` follows) and a tsconfig that checks only it. */
function badProject(name: string, code: string): string {
  writeFileSync(join(WS, `${name}.ts`), `import server, { descriptor, tools } from './vibe.proto?mcp'\n${code}\nexport {}\n`)
  writeFileSync(join(WS, `tsconfig.${name}.json`), JSON.stringify({ extends: './tsconfig.json', files: [`${name}.ts`] }))
  return `tsconfig.${name}.json`
}

beforeAll(async () => {
  rmSync(WS, { recursive: true, force: true })
  cpSync(join(import.meta.dirname, 'fixture'), WS, { recursive: true })
  writeFileSync(join(WS, 'package.json'), '{ "name": "types-workspace", "private": true, "type": "module" }\n')
  await installRuntimePackage(WS, { dts: true })
})

afterAll(() => {
  rmSync(WS, { recursive: true, force: true })
})

describe('unplugin-proto-mcp/client', () => {
  it('types a `.proto?mcp` import as a Server with tools and descriptor', () => {
    const { status, output } = tsc('tsconfig.json')
    expect(output).toBe('')
    expect(status).toBe(0)
  })

  it('rejects a method the Server does not have', () => {
    const { status, output } = tsc(badProject('no-method', 'server.nope()'))
    expect(output).toMatch(/no-method\.ts\(2,8\): error TS2339: Property 'nope' does not exist on type 'Server(<.*>)?'\./)
    expect(status).toBe(2)
  })

  it('rejects wrong argument and export types', () => {
    const { status, output } = tsc(
      badProject(
        'wrong-types',
        ['server.serveHttp({ port: "3000" })', 'const n: number = tools[0]!.name', 'const d: string = descriptor'].join('\n'),
      ),
    )
    expect(output).toContain(`wrong-types.ts(2,20): error TS2322: Type 'string' is not assignable to type 'number'.`)
    expect(output).toContain(`wrong-types.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.`)
    expect(output).toMatch(/wrong-types\.ts\(4,7\): error TS2322: Type 'Record<string, unknown>' is not assignable to type 'string'\./)
    expect(status).toBe(2)
  })
})
