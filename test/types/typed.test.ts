/**
 * Typed implementations: a real Vite build with `dts: true` writes the
 * declaration file of `fixtures/apps/typed/`, and the real `tsc` command
 * accepts `main.ts` and rejects each case of `rejected.ts` (whose
 * `@ts-expect-error` lines tsc reports when nothing errs there). The other
 * projects are checked by the same compiler in process, one program each
 * on one compiler host, so the standard library and `@types/node` are
 * parsed once, not once a `tsc` process. The committed
 * `fixtures/apps/typed/proto-mcp.d.ts` is the golden copy:
 *   npx vitest run test/types/typed.test.ts -u
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseDtsFile, DTS_HEADER } from '../../src/codegen/index.ts'
import { BUNDLERS, bundle, createWorkspace, installRuntimePackage } from '../bundlers/harness.ts'
import { REPO } from '../helpers/repo.ts'

const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
const GOLDEN = join(REPO, 'fixtures', 'apps', 'typed', 'proto-mcp.d.ts')

let ws = ''
let app = ''

/** Runs `tsc -p <project>` in the app folder; its exit code and output. */
function tsc(project: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [TSC, '-p', project, '--pretty', 'false'], {
    cwd: app,
    encoding: 'utf8',
    timeout: 120_000,
    killSignal: 'SIGKILL',
  })
  if (run.error) throw run.error
  return { status: run.status, output: `${run.stdout}${run.stderr}` }
}

/**
 * What `tsc -p <project> --noEmit --pretty false` reports, from the compiler in process: the
 * project's options and the program's diagnostics, in tsc's own one-line format. Files under a
 * `node_modules` are parsed once for every project (the app's own files are read afresh).
 */
const shared = new Map<string, ts.SourceFile>()
function check(project: string): { errors: number; output: string } {
  const config = ts.getParsedCommandLineOfConfigFile(join(app, project), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!
  const host = ts.createCompilerHost(config.options)
  const parse = host.getSourceFile.bind(host)
  host.getSourceFile = (name, version, ...rest) => {
    if (!name.includes('/node_modules/')) return parse(name, version, ...rest)
    const key = `${name}\0${JSON.stringify(typeof version === 'object' ? [version.languageVersion, version.impliedNodeFormat] : version)}`
    let file = shared.get(key)
    if (!file) shared.set(key, (file = parse(name, version, ...rest)!))
    return file
  }
  const program = ts.createProgram({
    rootNames: config.fileNames,
    options: config.options,
    host,
    configFileParsingDiagnostics: config.errors,
  })
  const diagnostics = [...config.errors, ...ts.getPreEmitDiagnostics(program)]
  const output = ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: () => app,
    getNewLine: () => '\n',
  })
  return { errors: diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error).length, output }
}

/** A tsconfig extending the app's, checking only `files`. */
function project(name: string, files: string[]): string {
  writeFileSync(join(app, `tsconfig.${name}.json`), JSON.stringify({ extends: './tsconfig.json', files }))
  return `tsconfig.${name}.json`
}

beforeAll(async () => {
  ws = createWorkspace('typed')
  app = join(ws, 'fixtures', 'apps', 'typed')
  // The committed golden copy came along; the build must write its own.
  rmSync(join(app, 'proto-mcp.d.ts'), { force: true })
  await installRuntimePackage(ws, { dts: true })
  await bundle('vite', join(app, 'main.ts'), join(ws, 'out', 'vite'), { dts: true })
}, 180_000)

afterAll(() => {
  rmSync(ws, { recursive: true, force: true })
})

describe('dts: the declaration file', () => {
  it('is written by the build, in the project root, and matches the golden copy', async () => {
    const text = readFileSync(join(app, 'proto-mcp.d.ts'), 'utf8')
    expect(text.startsWith(DTS_HEADER)).toBe(true)
    expect(text).toContain('declare module ".*/typed-vibe.proto?mcp" {')
    await expect(text).toMatchFileSnapshot(GOLDEN)
  })

  it('is not rewritten by a build that changes nothing', async () => {
    const file = join(app, 'proto-mcp.d.ts')
    const before = statSync(file).mtimeMs
    const text = readFileSync(file, 'utf8')
    await bundle('vite', join(app, 'main.ts'), join(ws, 'out', 'vite-again'), { dts: true })
    expect(readFileSync(file, 'utf8')).toBe(text)
    expect(statSync(file).mtimeMs).toBe(before)
  }, 120_000)

  it('is written the same by every bundler', async () => {
    const expected = parseDtsFile(readFileSync(join(app, 'proto-mcp.d.ts'), 'utf8')).map((e) => e.body)
    for (const bundler of BUNDLERS) {
      const out = join(ws, 'out', `${bundler}-dts`)
      const dts = join(out, 'types', 'proto-mcp.d.ts')
      const { warnings } = await bundle(bundler, join(app, 'entry.mjs'), join(out, 'build'), { dts })
      expect(existsSync(dts), `${bundler}: ${warnings.join('; ')}`).toBe(true)
      const entries = parseDtsFile(readFileSync(dts, 'utf8'))
      expect(
        entries.map((e) => e.proto),
        bundler,
      ).toEqual(['../../../fixtures/apps/typed/typed-vibe.proto'])
      expect(
        entries.map((e) => e.body),
        bundler,
      ).toEqual(expected)
    }
  }, 300_000)
})

describe('typed implementations under tsc', () => {
  it('accepts the correct handlers and rejects every case of rejected.ts', () => {
    const { status, output } = tsc('tsconfig.json')
    expect(output).toBe('')
    expect(status).toBe(0)
  }, 120_000)

  it('reports an error on the line after each @ts-expect-error, and only there', () => {
    const source = readFileSync(join(app, 'rejected.ts'), 'utf8').split('\n')
    // Blank out the directives (keeping line numbers), so tsc reports what they hid.
    const expected: number[] = []
    const bare = source.map((line, i) => {
      if (!line.trim().startsWith('// @ts-expect-error')) return line
      expected.push(i + 2)
      return ''
    })
    writeFileSync(join(app, 'rejected-bare.ts'), bare.join('\n'))
    const { errors, output } = check(project('bare', ['rejected-bare.ts', 'proto-mcp.d.ts']))
    expect(errors).toBeGreaterThan(0)
    const lines = [...output.matchAll(/^rejected-bare\.ts\((\d+),\d+\): error/gm)].map((m) => Number(m[1]))
    expect([...new Set(lines)].sort((a, b) => a - b)).toEqual(expected)
    expect(expected.length).toBe(12)
    expect(output).toMatch(/'vibez' is not assignable|vibez: never/)
    expect(output).toContain(`Property 'nope' does not exist on type 'SetVibeRequestJson'`)
    expect(output).toContain(`Type '() => {}' is not assignable to type '"SetVibes is not an RPC of this service"'`)
    expect(output).toContain(
      `Argument of type '"NoSuchService"' is not assignable to parameter of type '"VibeService" | "typed.v1.VibeService"'`,
    )
  }, 120_000)

  it('accepts undefined for "not set" in replies, at any depth, under exactOptionalPropertyTypes', () => {
    writeFileSync(
      join(app, 'tsconfig.exact.json'),
      JSON.stringify({
        extends: './tsconfig.json',
        compilerOptions: { exactOptionalPropertyTypes: true },
        files: ['undefined-replies.ts', 'proto-mcp.d.ts'],
      }),
    )
    const { errors, output } = check('tsconfig.exact.json')
    expect(output).toBe('')
    expect(errors).toBe(0)
  }, 120_000)

  it('without the declaration file the same cases type-check (the generic Server accepts them)', () => {
    const { errors, output } = check(project('generic', ['rejected.ts']))
    expect(errors).toBe(12)
    // Each directive now meets no error, and a handler's request is typed (`any`), not implicitly any (TS7006).
    expect(output.match(/error TS2578: Unused '@ts-expect-error' directive/g)?.length).toBe(12)
    expect(output.replace(/^.*error TS2578: .*$/gm, '').trim()).toBe('')
  }, 120_000)

  it('picks the generated declaration over the generic one whichever file comes first', () => {
    // The generic `*.proto?mcp` as a root file, before and after the generated one.
    cpSync(join(ws, 'node_modules', 'unplugin-proto-mcp', 'client.d.ts'), join(app, 'generic.d.ts'))
    for (const files of [
      ['generic.d.ts', 'proto-mcp.d.ts', 'rejected.ts'],
      ['rejected.ts', 'proto-mcp.d.ts', 'generic.d.ts'],
    ]) {
      const { errors, output } = check(project('order', files))
      expect(output, files.join(' ')).toBe('')
      expect(errors).toBe(0)
    }
  }, 180_000)
})

/** The language services' parsed files, shared as an editor shares them between its projects. */
const registry = ts.createDocumentRegistry()
let completions = 0

/** The completions the TypeScript language service offers at `marker` in `source` (a file of the app). */
function completionsAt(source: string, marker: string): string[] {
  const file = join(app, 'complete.ts')
  const text = source.replace(marker, '')
  writeFileSync(file, text)
  const config = ts.getParsedCommandLineOfConfigFile(
    join(app, 'tsconfig.json'),
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} },
  )!
  const files = [file, join(app, 'proto-mcp.d.ts')]
  const version = String(++completions)
  const service = ts.createLanguageService(
    {
      getScriptFileNames: () => files,
      // complete.ts is new text on every call: a new version, or the registry would hand back the last one.
      getScriptVersion: (name) => (name === file ? version : '1'),
      getScriptSnapshot: (name) => (ts.sys.fileExists(name) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(name)!) : undefined),
      getCurrentDirectory: () => app,
      getCompilationSettings: () => config.options,
      getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
      fileExists: (name) => ts.sys.fileExists(name),
      readFile: (name) => ts.sys.readFile(name),
      readDirectory: (...args) => ts.sys.readDirectory(...args),
      directoryExists: (name) => ts.sys.directoryExists(name),
      getDirectories: (name) => ts.sys.getDirectories(name),
    },
    registry,
  )
  const entries = service.getCompletionsAtPosition(file, source.indexOf(marker), {})?.entries ?? []
  service.dispose()
  return entries.map((entry) => entry.name).sort()
}

describe('editor completions', () => {
  it('offers the service names and each RPC under both spellings', () => {
    const head = "import vibe from './typed-vibe.proto?mcp'\n"
    expect(completionsAt(`${head}vibe.implement('|', {})\n`, '|')).toEqual(['VibeService', 'typed.v1.VibeService'])
    expect(completionsAt(`${head}vibe.implement('VibeService', { | })\n`, '|')).toEqual([
      'GetVibe',
      'Reset',
      'SetVibe',
      'Watch',
      'getVibe',
      'reset',
      'setVibe',
      'watch',
    ])
  }, 120_000)
})
