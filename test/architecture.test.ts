import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const src = join(import.meta.dirname, '..', 'src')
const STAGES = ['proto', 'schema', 'codegen', 'plugin', 'runtime', 'server', 'grpc', 'cli'] as const
const BUILD_TIME = new Set(['proto', 'schema', 'codegen', 'plugin'])
const IMPORT_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g

function filesUnder(dir: string): string[] {
  let out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out = out.concat(filesUnder(path))
    else if (/\.[cm]?ts$/.test(name)) out.push(path)
  }
  return out
}

/** Every import specifier of every file of a stage folder. */
function importsOf(stage: string): { file: string; spec: string }[] {
  const dir = join(src, stage)
  let files: string[]
  try {
    files = filesUnder(dir)
  } catch {
    return []
  }
  return files.flatMap((file) => {
    const text = readFileSync(file, 'utf8')
    return [...text.matchAll(IMPORT_RE)].map((m) => ({ file: relative(src, file), spec: (m[1] ?? m[2])! }))
  })
}

/** The stage a relative specifier lands in, from a file inside `stage`. */
function targetStage(fromFile: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined
  const resolved = relative(src, join(src, fromFile, '..', spec))
  return resolved.split('/')[0]
}

describe('stage folders import one way', () => {
  for (const stage of STAGES) {
    it(`${stage}/ imports only earlier stages`, () => {
      const allowed = new Set(STAGES.slice(0, STAGES.indexOf(stage) + 1))
      const bad = importsOf(stage)
        .map(({ file, spec }) => ({ file, spec, to: targetStage(file, spec) }))
        .filter(({ to }) => to !== undefined && (STAGES as readonly string[]).includes(to) && !allowed.has(to as never))
      expect(bad).toEqual([])
    })
  }

  it('run-time folders never reach build-time folders', () => {
    const bad = ['runtime', 'server', 'grpc']
      .flatMap((stage) => importsOf(stage).map(({ file, spec }) => ({ file, spec, to: targetStage(file, spec) })))
      .filter(({ to }) => to !== undefined && BUILD_TIME.has(to))
    expect(bad).toEqual([])
  })

  it('only grpc/ imports @grpc/grpc-js (the /grpc subpath alone loads it)', () => {
    const bad = STAGES.filter((s) => s !== 'grpc')
      .flatMap((stage) => importsOf(stage))
      .filter(({ spec }) => spec.startsWith('@grpc/'))
    expect(bad).toEqual([])
  })

  it('only server/ imports the MCP SDK', () => {
    const bad = STAGES.filter((s) => s !== 'server')
      .flatMap((stage) => importsOf(stage))
      .filter(({ spec }) => spec.startsWith('@modelcontextprotocol/'))
    expect(bad).toEqual([])
  })
})
