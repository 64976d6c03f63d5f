/**
 * The test tiers of vitest.config.ts (docs/developing.md, "Test tiers"): every
 * test file runs in exactly one project, so `npm test` runs them all; and no
 * test file builds the package, which the global setup does once per run
 * (test/helpers/setup-build.ts).
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join, matchesGlob, relative, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import config from '../vitest.config.ts'
import { REPO } from './helpers/repo.ts'

const TEST = join(REPO, 'test')

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

/** Repository-relative, with forward slashes, as the config's globs are. */
const FILES = filesUnder(TEST).map((file) => relative(REPO, file).split(sep).join('/'))

interface Project {
  test: { name: string; include: string[]; exclude?: string[] }
}
const PROJECTS = (config as { test: { projects: Project[] } }).test.projects

/** The names of the projects that run `file`. */
function projectsOf(file: string): string[] {
  return PROJECTS.filter(
    ({ test }) => test.include.some((glob) => matchesGlob(file, glob)) && !(test.exclude ?? []).some((glob) => matchesGlob(file, glob)),
  ).map(({ test }) => test.name)
}

/** The lines of a test source that build the package with tsdown (its API, its command, or `npm run build`). */
export function buildsThePackage(source: string): string[] {
  return source
    .split('\n')
    .filter((line) =>
      /from ['"]tsdown['"]|import\(['"]tsdown['"]\)|tsdown[\\/]dist[\\/]run|['"]tsdown['"]|['"]npm run build['"]|['"]run['"],\s*['"]build['"]/.test(
        line,
      ),
    )
}

describe('the test tiers', () => {
  it('every test file runs in exactly one project', () => {
    const tests = FILES.filter((file) => file.endsWith('.test.ts'))
    expect(tests.length).toBeGreaterThan(150)
    expect(tests.map((file) => ({ file, projects: projectsOf(file) })).filter(({ projects }) => projects.length !== 1)).toEqual([])
  })

  it('the check can fail: a test file in a folder no project names runs nowhere', () => {
    expect(projectsOf('test/somewhere-new/a.test.ts')).toEqual([])
    expect(projectsOf('test/proto/nesting.test.ts')).toEqual(['system-shared'])
  })

  it('no test file builds the package: the global setup does, once per run', () => {
    const sources = FILES.filter(
      (file) => /\.(?:ts|mjs|js)$/.test(file) && file !== 'test/helpers/setup-build.ts' && file !== 'test/tiers.test.ts',
    )
    const found = sources.flatMap((file) =>
      buildsThePackage(readFileSync(join(REPO, file), 'utf8')).map((line) => `${file}: ${line.trim()}`),
    )
    expect(found).toEqual([])
  })

  it('the check can fail: the tsdown API, its command and npm run build are found', () => {
    expect(buildsThePackage("import { build } from 'tsdown'\nconst x = 1")).toEqual(["import { build } from 'tsdown'"])
    expect(buildsThePackage("await import('tsdown')")).toHaveLength(1)
    expect(buildsThePackage("spawnSync('npx', ['tsdown'])")).toHaveLength(1)
    expect(buildsThePackage("execSync('npm run build')")).toHaveLength(1)
    expect(buildsThePackage("spawn('npm', ['run', 'build'])")).toHaveLength(1)
    expect(buildsThePackage('// built once by the global setup, as `npm run build` does')).toEqual([])
  })
})
