/**
 * Every `.proto` a `?mcp` module reads is a watch file: editing one that
 * is only imported by the imported `.proto` rebuilds (esbuild and webpack
 * watch builds), and Rollup lists both in `watchFiles`.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { context } from 'esbuild'
import webpack from 'webpack'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { unpluginProtoMcp } from '../../src/plugin/unplugin.ts'
import { bundle, createWorkspace, webpackConfig } from './harness.ts'

const WAIT_MS = 20_000
const ADDED_FIELD = '  int32 watch_count = 2;\n'

let ws = ''
let app = ''
const cleanups: (() => Promise<void> | void)[] = []

beforeEach((test) => {
  ws = createWorkspace(`watch-${test.task.name.replace(/\W+/g, '-').slice(0, 40)}`)
  app = join(ws, 'fixtures', 'apps', 'watch')
})
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

/** Adds a field to the imported-only `common.proto`. */
function editCommonProto(): void {
  const file = join(app, 'common.proto')
  writeFileSync(file, readFileSync(file, 'utf8').replace('  string text = 1;\n', `  string text = 1;\n${ADDED_FIELD}`))
}

/** Resolves when `check()` is true, polling; rejects after {@link WAIT_MS}. */
async function waitFor(what: string, check: () => boolean): Promise<void> {
  const until = Date.now() + WAIT_MS
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out after ${WAIT_MS}ms waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Breaks `common.proto` (a missing `;` on line 7, reported at the `}` on line 8) and returns a function that mends it with the added field. */
function breakCommonProto(): () => void {
  const file = join(app, 'common.proto')
  const good = readFileSync(file, 'utf8')
  writeFileSync(file, good.replace('  string text = 1;\n', '  string text = 1\n'))
  return () => writeFileSync(file, good.replace('  string text = 1;\n', `  string text = 1;\n${ADDED_FIELD}`))
}

const read = (file: string): string => {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return ''
  }
}

describe('watch files', () => {
  it('rollup: watchFiles has the imported .proto and the .proto it imports', async () => {
    const { watchFiles } = await bundle('rollup', join(app, 'main.mjs'), join(ws, 'out', 'rollup'))
    expect(watchFiles).toEqual(expect.arrayContaining([join(app, 'vibe.proto'), join(app, 'common.proto')]))
  })

  /** Starts an esbuild watch build of the app into `outfile`, calling `onEnd` after each build. */
  async function watchWithEsbuild(outfile: string, onEnd: (result: unknown) => void): Promise<void> {
    const ctx = await context({
      entryPoints: [join(app, 'main.mjs')],
      bundle: true,
      platform: 'node',
      format: 'esm',
      packages: 'external',
      outfile,
      logLevel: 'silent',
      plugins: [
        unpluginProtoMcp.esbuild(),
        {
          name: 'on-end',
          setup: (build) => {
            build.onEnd(onEnd)
          },
        },
      ],
    })
    cleanups.push(() => ctx.dispose())
    await ctx.watch()
  }

  it('esbuild: context().watch() rebuilds when an imported .proto changes', async () => {
    const outfile = join(ws, 'out', 'esbuild', 'main.mjs')
    let builds = 0
    await watchWithEsbuild(outfile, () => {
      builds++
    })
    await waitFor('the first build', () => builds >= 1 && read(outfile).includes('"Echo"'))
    expect(read(outfile)).not.toContain('watchCount')
    editCommonProto()
    await waitFor('a rebuild with the new field', () => read(outfile).includes('watchCount'))
  })

  it('webpack: a watch build rebuilds when an imported .proto changes', async () => {
    const outDir = join(ws, 'out', 'webpack')
    const outfile = join(outDir, 'main.mjs')
    const compiler = webpack(webpackConfig(join(app, 'main.mjs'), outDir, unpluginProtoMcp.webpack()))
    const errors: string[] = []
    let builds = 0
    const watching = compiler.watch({ aggregateTimeout: 50 }, (error, stats) => {
      builds++
      if (error) errors.push(error.message)
      else if (stats?.hasErrors()) errors.push(...(stats.toJson({ all: false, errors: true }).errors ?? []).map((e) => e.message))
    })
    cleanups.push(() => new Promise<void>((done) => (watching ? watching.close(() => done()) : done())))
    await waitFor('the first build', () => builds >= 1)
    expect(errors).toEqual([])
    expect(read(outfile)).toContain('"Echo"')
    expect(read(outfile)).not.toContain('watchCount')
    // webpack ignores changes stamped within its first tick after a build.
    await new Promise((r) => setTimeout(r, 300))
    editCommonProto()
    await waitFor('a rebuild with the new field', () => builds >= 2 && read(outfile).includes('watchCount'))
    expect(errors).toEqual([])
  })

  it('esbuild: a broken imported .proto fails the watch build, and fixing it rebuilds', async () => {
    const mend = breakCommonProto()
    const outfile = join(ws, 'out', 'esbuild', 'main.mjs')
    const ends: { errors: { text: string; location: { file: string; line: number } | null }[] }[] = []
    await watchWithEsbuild(outfile, (result) => {
      ends.push(result as (typeof ends)[number])
    })
    await waitFor('the first build', () => ends.length >= 1)
    const [error] = ends[0]!.errors
    expect(error?.text).toContain('common.proto')
    // esbuild prints `file:line:column` from this, with the .proto's line.
    expect(error?.location).toMatchObject({ line: 8 })
    expect(error?.location?.file).toMatch(/common\.proto$/)
    mend()
    await waitFor('a good rebuild', () => ends.some((r) => r.errors.length === 0) && read(outfile).includes('watchCount'))
  })

  it('webpack: a broken imported .proto fails the watch build, and fixing it rebuilds', async () => {
    const mend = breakCommonProto()
    const outDir = join(ws, 'out', 'webpack')
    const compiler = webpack(webpackConfig(join(app, 'main.mjs'), outDir, unpluginProtoMcp.webpack()))
    const runs: string[][] = []
    const watching = compiler.watch({ aggregateTimeout: 50 }, (error, stats) => {
      runs.push(error ? [error.message] : (stats?.toJson({ all: false, errors: true }).errors ?? []).map((e) => e.message))
    })
    cleanups.push(() => new Promise<void>((done) => (watching ? watching.close(() => done()) : done())))
    await waitFor('the first build', () => runs.length >= 1)
    expect(runs[0]!.join('\n')).toMatch(/common\.proto:8:\d+: /)
    await new Promise((r) => setTimeout(r, 300))
    mend()
    await waitFor(
      'a good rebuild',
      () => runs.length >= 2 && runs.at(-1)!.length === 0 && read(join(outDir, 'main.mjs')).includes('watchCount'),
    )
  })
})
