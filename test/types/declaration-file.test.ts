/**
 * The declaration file: module patterns, reading it back, updates that
 * keep other protos' blocks and skip unchanged text, and the bundler-free
 * `writeProtoDeclarations` checked by tsc on protos sharing a file name.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { DTS_HEADER, emitDtsFile, modulePatterns, parseDtsFile } from '../../src/codegen/index.ts'
import { writeProtoDeclarations } from '../../src/entries/index.ts'
import { DeclarationFile, resolveDtsFile } from '../../src/plugin/write-dts.ts'
import { writeProtos } from '../helpers/inline-proto.ts'
import { REPO } from '../helpers/repo.ts'

const TSC = join(REPO, 'node_modules', 'typescript', 'bin', 'tsc')
const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const pattern = (protos: string[]): Record<string, string> =>
  Object.fromEntries([...modulePatterns(protos)].map(([proto, p]) => [proto, p.pattern]))

describe('modulePatterns', () => {
  it('uses the file name alone when no other proto has it', () => {
    expect(pattern(['protos/vibe.proto', 'other.proto'])).toEqual({
      'protos/vibe.proto': '.*/vibe.proto?mcp',
      'other.proto': '.*/other.proto?mcp',
    })
  })

  it('adds parent folders until the suffix is unique', () => {
    expect(pattern(['x/a/vibe.proto', 'x/b/vibe.proto', 'y/b/vibe.proto'])).toEqual({
      'x/a/vibe.proto': '.*/a/vibe.proto?mcp',
      'x/b/vibe.proto': '.*/x/b/vibe.proto?mcp',
      'y/b/vibe.proto': '.*/y/b/vibe.proto?mcp',
    })
  })

  it('never climbs past `..`', () => {
    expect(pattern(['../vibe.proto', '../a/vibe.proto'])).toEqual({
      '../vibe.proto': '.*/vibe.proto?mcp',
      '../a/vibe.proto': '.*/a/vibe.proto?mcp',
    })
  })
})

describe('emitDtsFile / parseDtsFile', () => {
  const entries = [
    { proto: 'vibe.proto', body: 'export const a: 1' },
    { proto: 'a/vibe.proto', body: 'export interface X {\n  y?: string\n}\n\nexport const b: 2' },
  ]

  it('writes a script of ambient blocks, most specific first, whatever the input order', () => {
    const text = emitDtsFile(entries)
    expect(text).toBe(emitDtsFile([...entries].reverse()))
    expect(text.slice(0, DTS_HEADER.length + 1)).toBe(`${DTS_HEADER}\n`)
    expect(text).not.toMatch(/^(import|export) /m)
    expect(text.indexOf('declare module ".*/a/vibe.proto?mcp" {')).toBeLessThan(text.indexOf('declare module ".*/vibe.proto?mcp" {'))
  })

  it('reads back what it wrote', () => {
    expect(parseDtsFile(emitDtsFile(entries)).sort((x, y) => x.proto.localeCompare(y.proto))).toEqual(
      [...entries].sort((x, y) => x.proto.localeCompare(y.proto)),
    )
  })

  it('reads nothing from a file it did not write', () => {
    expect(parseDtsFile('declare module "*.proto?mcp" {\n}\n')).toEqual([])
  })
})

describe('DeclarationFile', () => {
  it('resolves the dts option against the project root', () => {
    expect(resolveDtsFile(false, '/p')).toBeUndefined()
    expect(resolveDtsFile(undefined, '/p')).toBeUndefined()
    expect(resolveDtsFile(true, '/p')).toBe('/p/proto-mcp.d.ts')
    expect(resolveDtsFile('types/mcp.d.ts', '/p')).toBe('/p/types/mcp.d.ts')
  })

  it('writes only when the text changes, and keeps the blocks of protos that still exist', () => {
    const dir = writeProtos({ 'a.proto': '', 'b.proto': '' })
    dirs.push(dir)
    const file = join(dir, 'types', 'proto-mcp.d.ts')
    const first = new DeclarationFile(file)
    expect(first.update(join(dir, 'a.proto'), 'export const a: 1')).toBe(true)
    expect(first.update(join(dir, 'b.proto'), 'export const b: 1')).toBe(true)
    const mtime = statSync(file).mtimeMs
    expect(first.update(join(dir, 'a.proto'), 'export const a: 1')).toBe(false)
    expect(statSync(file).mtimeMs).toBe(mtime)

    // A later run that builds only `a.proto` keeps `b.proto`'s block; a gone proto's block goes.
    writeFileSync(file, emitDtsFile([...parseDtsFile(readFileSync(file, 'utf8')), { proto: '../gone.proto', body: 'export const g: 1' }]))
    const second = new DeclarationFile(file)
    expect(second.update(join(dir, 'a.proto'), 'export const a: 2')).toBe(true)
    expect(parseDtsFile(readFileSync(file, 'utf8')).sort((x, y) => x.proto.localeCompare(y.proto))).toEqual([
      { proto: '../a.proto', body: 'export const a: 2' },
      { proto: '../b.proto', body: 'export const b: 1' },
    ])
  })
})

describe('writeProtoDeclarations', () => {
  it('types protos that share a file name apart, for imports that show their folder', () => {
    const service = (name: string): string =>
      `syntax = "proto3";\npackage ${name.toLowerCase()};\nmessage R { string ${name.toLowerCase()} = 1; }\nservice ${name} { rpc Get(R) returns (R); }\n`
    const dir = writeProtos({ 'a/vibe.proto': service('A'), 'b/vibe.proto': service('B') })
    dirs.push(dir)
    const file = writeProtoDeclarations(['a/vibe.proto', 'b/vibe.proto'], { root: dir })
    expect(file).toBe(join(dir, 'proto-mcp.d.ts'))
    const text = readFileSync(file, 'utf8')
    expect(text).toContain('declare module ".*/a/vibe.proto?mcp" {')
    expect(text).toContain('declare module ".*/b/vibe.proto?mcp" {')

    mkdirSync(join(dir, 'src'))
    writeFileSync(
      join(dir, 'src', 'main.ts'),
      [
        "import a from '../a/vibe.proto?mcp'",
        "import b from '../b/vibe.proto?mcp'",
        "a.implement('A', { get: (request) => ({ a: request.a }) })",
        "b.implement('B', { Get: async (request) => ({ b: request.b }) })",
        '// @ts-expect-error B is not a service of a/vibe.proto',
        "a.implement('B', {})",
        "// @ts-expect-error a/vibe.proto's R has no field b",
        "a.implement('A', { get: (request) => ({ b: request.a }) })",
        '',
      ].join('\n'),
    )
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          allowImportingTsExtensions: true,
          typeRoots: [join(REPO, 'node_modules', '@types')],
          types: ['node'],
          paths: {
            'unplugin-proto-mcp/runtime': [join(REPO, 'src', 'entries', 'runtime.ts')],
            'unplugin-proto-mcp/codegen-v1': [join(REPO, 'src', 'entries', 'codegen-v1.ts')],
          },
        },
        files: ['src/main.ts', 'proto-mcp.d.ts'],
      }),
    )
    const run = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], {
      cwd: dir,
      encoding: 'utf8',
      timeout: 120_000,
      killSignal: 'SIGKILL',
    })
    // Errors inside the runtime's own sources (checked through `paths`) are not this test's subject.
    const ours = `${run.stdout}${run.stderr}`
      .split('\n')
      .filter((line) => line.startsWith('src/main.ts') || line.startsWith('proto-mcp.d.ts'))
    expect(ours).toEqual([])
  }, 120_000)
})
