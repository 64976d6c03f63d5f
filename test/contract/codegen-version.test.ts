/**
 * The versioned codegen subpath (docs/internals.md, "Entries"): a generated
 * module names the generated-code API it was built for
 * (`unplugin-proto-mcp/codegen-v1`), and a package that does not serve
 * that version refuses the module at load with a message naming both
 * versions (package.json's `./codegen-v*` pattern and
 * src/entries/codegen-unserved.ts). Uses dist/ (`npm run build`).
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CODEGEN_MODULE, CODEGEN_VERSION } from '../../src/contract/index.ts'
import { buildModuleSource } from '../../src/codegen/index.ts'
import { EXAMPLE_PROTO } from '../helpers/spec-from-proto.ts'
import { REPO } from '../helpers/repo.ts'

const OUT = join(REPO, '.tmp', 'codegen-version')

/**
 * Writes `code` as a module inside the package (so `unplugin-proto-mcp/...`
 * resolves to this package's dist/ as it would from node_modules) and
 * imports it in a plain Node process: what it prints, or the error it fails with.
 */
function load(name: string, code: string): { stdout: string; error: string } {
  mkdirSync(OUT, { recursive: true })
  const file = join(OUT, `${name}-${process.pid}.mjs`)
  writeFileSync(file, code)
  const run = spawnSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(pathToFileURL(file).href)}); console.log(m.default.constructor.name.replace(/\\$\\d+$/, ''))`,
    ],
    { encoding: 'utf8' },
  )
  return { stdout: run.stdout.trim(), error: /^Error: (.*)$/m.exec(run.stderr)?.[1] ?? '' }
}

describe('the codegen subpath is versioned', () => {
  const { code } = buildModuleSource(EXAMPLE_PROTO)

  it('a generated module says the version it was built for, and imports that subpath only', () => {
    expect(CODEGEN_MODULE).toBe(`unplugin-proto-mcp/codegen-v${CODEGEN_VERSION}`)
    expect(code.split('\n').slice(1, 3)).toEqual([
      '// Built for unplugin-proto-mcp/codegen-v1: a runtime that does not serve it refuses the module at load.',
      'import * as $codegen from "unplugin-proto-mcp/codegen-v1"',
    ])
    const exports = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).exports as Record<string, unknown>
    expect(Object.keys(exports).filter((key) => key.startsWith('./codegen'))).toEqual(['./codegen-v1', './codegen-v*'])
  })

  it('loads against the runtime that serves its version', () => {
    expect(load('served', code)).toEqual({ stdout: 'Server', error: '' })
  })

  it('a module built for a version this runtime does not serve fails at load, naming both versions', () => {
    // What a later generator would write: the same module against codegen-v2 (and a name v1 lacks).
    const later = code
      .replaceAll('unplugin-proto-mcp/codegen-v1', 'unplugin-proto-mcp/codegen-v2')
      .replace('const { ', 'const { createProtoServerV2, ')
    expect(later).not.toBe(code)
    expect(load('later', later)).toEqual({
      stdout: '',
      error:
        'unplugin-proto-mcp: this ?mcp module was generated for unplugin-proto-mcp/codegen-v2, but the unplugin-proto-mcp loaded here ' +
        'serves unplugin-proto-mcp/codegen-v1 only: build the module again with this version of the plugin, or install the version that generated it',
    })
    expect(load('older', code.replaceAll('codegen-v1', 'codegen-v0')).error).toMatch(
      /generated for unplugin-proto-mcp\/codegen-v0, .* serves unplugin-proto-mcp\/codegen-v1 only/,
    )
  })
})
