/**
 * Builds fixture apps with each of the six bundlers through their JS APIs,
 * in a throw-away workspace under `.tmp/bundlers/` (gitignored).
 *
 * `unplugin-proto-mcp/runtime` and `/codegen-v1` resolve the way they would
 * for a user: the workspace gets `node_modules/unplugin-proto-mcp/` holding
 * the package's `package.json` and a copy of its dist/ (the package build
 * of the global setup). Outputs land in `<workspace>/out/<bundler>/`, so Node walks up to
 * that copy, and from the copy on up to the repository's `node_modules` for
 * the runtime's own dependencies. Bare imports are left external in the six
 * builds (they check the plugin and the generated module);
 * {@link bundleSelfContained} inlines everything once, with esbuild.
 */
import { cpSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join } from 'node:path'
import { build as esbuild } from 'esbuild'
import { rolldown } from 'rolldown'
import { rollup } from 'rollup'
import { build as viteBuild } from 'vite'
import webpack from 'webpack'
import { rspack } from '@rspack/core'
import { unpluginProtoMcp } from '../../src/plugin/unplugin.ts'
import type { Options } from '../../src/plugin/options.ts'
import { built, REPO } from '../helpers/repo.ts'

/** The six supported bundlers. */
export const BUNDLERS = ['vite', 'rollup', 'rolldown', 'esbuild', 'webpack', 'rspack'] as const
export type BundlerName = (typeof BUNDLERS)[number]

/** Where the Topeka conformance `.proto` files are (copied into fixtures/topeka/). */
export function topekaDir(): string {
  return join(REPO, 'fixtures', 'topeka')
}

/**
 * A fresh workspace `.tmp/bundlers/<name>/`: a user's project with its own
 * `package.json`, a copy of `fixtures/apps/` and the Topeka protos at
 * `fixtures/topeka/` (the repository's relative layout, so the apps'
 * imports work unchanged).
 */
export function createWorkspace(name: string): string {
  const ws = join(REPO, '.tmp', 'bundlers', name)
  rmSync(ws, { recursive: true, force: true })
  mkdirSync(join(ws, 'fixtures'), { recursive: true })
  // Without it the repository's package.json would be the outputs' package
  // scope, and Node would self-resolve `unplugin-proto-mcp/runtime` to the
  // repository's dist/ instead of the installed copy.
  writeFileSync(join(ws, 'package.json'), `${JSON.stringify({ name: `fixture-${name}`, private: true, type: 'module' }, null, 2)}\n`)
  cpSync(join(REPO, 'fixtures', 'apps'), join(ws, 'fixtures', 'apps'), { recursive: true })
  cpSync(topekaDir(), join(ws, 'fixtures', 'topeka'), { recursive: true })
  return ws
}

/**
 * Installs the package into `<ws>/node_modules/unplugin-proto-mcp/`:
 * `package.json` and a copy of the package build, dist/ (built once per run
 * by the global setup, test/setup/global.ts; its declarations included), and
 * with `dts`, `client.d.ts`. Resolves with the package's folder.
 */
export async function installRuntimePackage(ws: string, options: { dts?: boolean } = {}): Promise<string> {
  const pkg = join(ws, 'node_modules', 'unplugin-proto-mcp')
  rmSync(pkg, { recursive: true, force: true })
  mkdirSync(pkg, { recursive: true })
  cpSync(join(REPO, 'package.json'), join(pkg, 'package.json'))
  if (options.dts) cpSync(join(REPO, 'client.d.ts'), join(pkg, 'client.d.ts'))
  cpSync(dirname(built('runtime.mjs')), join(pkg, 'dist'), { recursive: true })
  return pkg
}

/** A bare specifier (a package), which every build leaves external. */
export function isBare(id: string): boolean {
  return !id.startsWith('.') && !isAbsolute(id) && !id.startsWith('\0') && !id.endsWith('?mcp')
}

/** What {@link bundle} returns. */
export interface BundleResult {
  /** The output entry, an ES module. */
  file: string
  /** Warnings the bundler reported (as text). */
  warnings: string[]
  /** Rollup's `watchFiles` (rollup only). */
  watchFiles?: string[]
}

type WebpackLikeConfig = webpack.Configuration

/** The webpack/Rspack config shared by both: Node target, ESM output. */
export function webpackConfig(entry: string, outDir: string, plugin: unknown): WebpackLikeConfig {
  return {
    mode: 'none',
    context: dirname(entry),
    entry,
    target: 'node20',
    devtool: false,
    output: { path: outDir, filename: 'main.mjs', module: true, chunkFormat: 'module', library: { type: 'module' } },
    experiments: { outputModule: true },
    externalsType: 'module',
    externals: [({ request }, callback) => (request && isBare(request) ? callback(undefined, request) : callback())],
    optimization: { minimize: false },
    plugins: [plugin as webpack.WebpackPluginInstance],
    infrastructureLogging: { level: 'error' },
  }
}

function runCompiler(compiler: webpack.Compiler | ReturnType<typeof rspack>): Promise<string[]> {
  return new Promise((done, fail) => {
    const c = compiler as webpack.Compiler
    c.run((error, stats) => {
      c.close(() => {
        if (error) return fail(error)
        const info = stats!.toJson({ all: false, errors: true, warnings: true })
        if (stats!.hasErrors()) {
          const messages = (info.errors ?? []).map((e) => e.message)
          return fail(Object.assign(new Error(messages.join('\n')), { errors: messages }))
        }
        done((info.warnings ?? []).map((w) => w.message))
      })
    })
  })
}

/**
 * Builds `entry` with `bundler` (and the plugin with `options`) into
 * `outDir/main.mjs`. Rejects with the bundler's error when the build fails.
 */
export async function bundle(bundler: BundlerName, entry: string, outDir: string, options: Options = {}): Promise<BundleResult> {
  rmSync(outDir, { recursive: true, force: true })
  const file = join(outDir, 'main.mjs')
  const warnings: string[] = []
  switch (bundler) {
    case 'rollup': {
      const build = await rollup({
        input: entry,
        plugins: [unpluginProtoMcp.rollup(options)],
        external: isBare,
        onwarn: (w) => {
          warnings.push(w.message)
        },
      })
      await build.write({ file, format: 'es' })
      const watchFiles = build.watchFiles
      await build.close()
      return { file, warnings, watchFiles }
    }
    case 'rolldown': {
      const build = await rolldown({
        input: entry,
        platform: 'node',
        plugins: [unpluginProtoMcp.rolldown(options)],
        external: isBare,
        onLog: (_level, log) => {
          warnings.push(log.message)
        },
      })
      await build.write({ file, format: 'esm' })
      await build.close()
      return { file, warnings }
    }
    case 'vite': {
      await viteBuild({
        configFile: false,
        root: dirname(entry),
        logLevel: 'silent',
        plugins: [unpluginProtoMcp.vite(options)],
        ssr: { target: 'node' },
        build: {
          ssr: entry,
          outDir,
          emptyOutDir: true,
          minify: false,
          rolldownOptions: { external: isBare, output: { format: 'es', entryFileNames: 'main.mjs' } },
        },
      })
      return { file, warnings }
    }
    case 'esbuild': {
      const result = await esbuild({
        entryPoints: [entry],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        outfile: file,
        logLevel: 'silent',
        // Not the repository's tsconfig: its `paths` would bundle src/entries/ instead of the installed runtime.
        tsconfigRaw: '{}',
        plugins: [unpluginProtoMcp.esbuild(options)],
      })
      warnings.push(...result.warnings.map((w) => w.text))
      return { file, warnings }
    }
    case 'webpack': {
      warnings.push(...(await runCompiler(webpack(webpackConfig(entry, outDir, unpluginProtoMcp.webpack(options))))))
      return { file, warnings }
    }
    case 'rspack': {
      const config = webpackConfig(entry, outDir, unpluginProtoMcp.rspack(options))
      warnings.push(...(await runCompiler(rspack(config as Parameters<typeof rspack>[0]))))
      return { file, warnings }
    }
  }
}

/**
 * Builds `entry` with esbuild into one self-contained file, the runtime and
 * its dependencies (MCP SDK, protobufjs, Ajv helpers) inlined. The banner
 * gives the inlined CommonJS a `require` for Node built-ins, as a user
 * bundling for Node would add.
 */
export async function bundleSelfContained(entry: string, file: string): Promise<string> {
  await esbuild({
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    logLevel: 'silent',
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    plugins: [unpluginProtoMcp.esbuild()],
  })
  return file
}

/**
 * Builds `fixtures/apps/<app>/main.mjs` with esbuild once per profile in a
 * fresh workspace `<name>`; resolves with each profile's output file.
 */
export async function buildAppPerProfile(name: string, app: string): Promise<Record<'full' | 'topeka', string>> {
  const ws = createWorkspace(name)
  await installRuntimePackage(ws)
  const entry = join(ws, 'fixtures', 'apps', app, 'main.mjs')
  const out = { full: '', topeka: '' }
  for (const profile of ['full', 'topeka'] as const) {
    out[profile] = (await bundle('esbuild', entry, join(ws, 'out', profile), { profile })).file
  }
  return out
}
