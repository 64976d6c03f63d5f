/**
 * The unplugin factory behind every bundler entry: resolves
 * `./x.proto?mcp` imports and loads them as generated MCP server modules.
 */
import type { DiscoverySpec } from '../contract/discovery.ts'
import { DEFAULT_MCP_PATH } from '../contract/defaults.ts'
import { existsSync, statSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import { dirname, isAbsolute, resolve } from 'node:path'
import { createFilter } from '@rollup/pluginutils'
import { createUnplugin } from 'unplugin'
import type { UnpluginInstance } from 'unplugin'
import type { ViteDevServer } from 'vite'
import { DEFAULT_PROFILE } from '../contract/index.ts'
import { isProtoError } from '../proto/index.ts'
import { buildModuleSource, costNote, toolOptions, type ModuleSource } from '../codegen/index.ts'
import { mountDevServer } from './dev-mount.ts'
import { clearOverlay, sendToOverlay } from './dev-overlay.ts'
import { mountDevPage } from './dev-page.ts'
import type { Options } from './options.ts'
import { checkPluginOptions } from './check-options.ts'
import { toPluginError } from './plugin-error.ts'
import { DeclarationFile, resolveDtsFile } from './write-dts.ts'

/** The plugin's name, as bundlers print it. */
export const PLUGIN_NAME = 'unplugin-proto-mcp'

/** The query that turns a `.proto` import into an MCP server module. */
export const MCP_QUERY = '?mcp'

// `x.proto?mcp`, possibly with more query parameters a dev server appends
// (`?mcp&t=...`); anything else passes by.
const MCP_ID_RE = /\.(?:proto|binpb|pb|desc|json)\?mcp(?:&[^#]*)?$/

const stripQuery = (id: string): string => id.replace(/[?#].*$/, '')

/**
 * Where the `.proto` of `spec` (an import specifier without `?mcp`) is:
 * relative to the importer, absolute as is (or, when no such file exists,
 * relative to the project root, as Vite serves `/src/x.proto?mcp`), else
 * the first of `importPaths` that has it. `undefined` when none applies.
 */
function locateProto(spec: string, importer: string | undefined, root: string, importPaths: string[]): string | undefined {
  if (isAbsolute(spec)) {
    const fromRoot = resolve(root, `.${spec}`)
    return !existsSync(spec) && existsSync(fromRoot) ? fromRoot : spec
  }
  if (spec.startsWith('./') || spec.startsWith('../')) {
    return resolve(importer ? dirname(stripQuery(importer)) : root, spec)
  }
  for (const dir of importPaths) {
    const candidate = resolve(dir, spec)
    if (existsSync(candidate)) return candidate
  }
  return undefined
}

/** The package generated modules and user code import at run time. */
const RUNTIME_PACKAGE = 'unplugin-proto-mcp'

/** Whether a Vite `ssr.external`/`ssr.noExternal` value names `name` (or all packages). */
function names(value: unknown, name: string): boolean {
  if (value === true) return true
  const list = Array.isArray(value) ? (value as unknown[]) : [value]
  return list.some((item) => (item instanceof RegExp ? item.test(name) : item === name))
}

/**
 * The dev server's config addition that loads the runtime with Node's own
 * import in server environments: one copy across every reload, as in a
 * built app. A linked package (a workspace, `npm link`, `file:`) is
 * otherwise evaluated by the module runner, and each full reload would
 * make a fresh copy beside the one the kept `?mcp` server lives in. Left
 * out when the user's config already decides (`ssr.noExternal` naming the
 * package or `true`, `ssr.external: true`).
 */
export function externalRuntime(ssr: { external?: unknown; noExternal?: unknown } | undefined): object | undefined {
  if (ssr?.external === true || names(ssr?.noExternal, RUNTIME_PACKAGE) || names(ssr?.external, RUNTIME_PACKAGE)) return undefined
  return { ssr: { external: [RUNTIME_PACKAGE] } }
}

/** How long a dev-server build waits for a `.proto` caught mid-write to settle, and how often it looks. */
const SETTLE_MS = 300
const SETTLE_STEP_MS = 25

const declaresNoService = (built: ModuleSource): boolean => built.warnings.some((w) => w.code === 'NO_SERVICE')

/** The size and modification time of each of `files`, as one string (a missing file is `-`). */
function stamp(files: readonly string[]): string {
  return files
    .map((path) => {
      try {
        const stat = statSync(path)
        return `${stat.size}:${stat.mtimeMs}`
      } catch {
        return '-'
      }
    })
    .join('|')
}

/**
 * `build()`, read again while what it read is still being written: an
 * editor that truncates, then writes, can be read in between (an empty or
 * cut-short `.proto`, which fails or declares no service). While the build
 * fails or finds no service, it is run again as soon as any of `files`
 * changes, for up to {@link SETTLE_MS}; the last outcome stands.
 */
async function buildSettled(build: () => ModuleSource, files: readonly string[]): Promise<ModuleSource> {
  for (let waited = 0; ; waited += SETTLE_STEP_MS) {
    const before = stamp(files)
    let outcome: { built: ModuleSource } | { error: unknown }
    try {
      outcome = { built: build() }
    } catch (error) {
      outcome = { error }
    }
    if ('built' in outcome && !declaresNoService(outcome.built)) return outcome.built
    while (stamp(files) === before && waited < SETTLE_MS) {
      await delay(SETTLE_STEP_MS)
      waited += SETTLE_STEP_MS
    }
    if (stamp(files) === before) {
      if ('built' in outcome) return outcome.built
      throw outcome.error
    }
  }
}

type Instance = UnpluginInstance<Options | undefined, false>

// Named through unplugin's types, so declaration files reference `unplugin`
// (a dependency) rather than each bundler's own types (not dependencies).
/** The Vite plugin object. */
export type VitePlugin = ReturnType<Instance['vite']>
/** The Rollup plugin object. */
export type RollupPlugin = ReturnType<Instance['rollup']>
/** The Rolldown plugin object. */
export type RolldownPlugin = ReturnType<Instance['rolldown']>
/** The esbuild plugin object. */
export type EsbuildPlugin = ReturnType<Instance['esbuild']>
/** The webpack plugin object. */
export type WebpackPlugin = ReturnType<Instance['webpack']>
/** The Rspack plugin object. */
export type RspackPlugin = ReturnType<Instance['rspack']>

/** The plugin for each bundler, and the raw factory. */
export interface ProtoMcpUnplugin extends Omit<Instance, 'vite' | 'rollup' | 'rolldown' | 'esbuild' | 'webpack' | 'rspack'> {
  vite: (options?: Options) => VitePlugin
  rollup: (options?: Options) => RollupPlugin
  rolldown: (options?: Options) => RolldownPlugin
  esbuild: (options?: Options) => EsbuildPlugin
  webpack: (options?: Options) => WebpackPlugin
  rspack: (options?: Options) => RspackPlugin
}

/**
 * The plugin for every supported bundler: `unpluginProtoMcp.vite(options)`,
 * `.rollup`, `.rolldown`, `.esbuild`, `.webpack`, `.rspack`.
 */
export const unpluginProtoMcp: ProtoMcpUnplugin = createUnplugin<Options | undefined, false>((given, meta) => {
  checkPluginOptions(PLUGIN_NAME, given)
  const options = given ?? {}
  // esbuild keeps a hook's watch files and reads `loc` only from reported
  // errors (a thrown one loses both: no rebuild once the .proto is fixed,
  // a location inside this plugin); reported errors fail its build too.
  const reportInsteadOfThrow = meta.framework === 'esbuild'
  let root = ''
  let filter: (id: string) => boolean = () => false
  // The project root anchors relative importPaths and include/exclude globs.
  const setRoot = (dir: string): void => {
    root = dir
    filter = createFilter(options.include, options.exclude, { resolve: root })
  }
  setRoot(process.cwd())
  const importPaths = (): string[] => (options.importPaths ?? []).map((dir) => resolve(root, dir))
  // The `dts` file, once the root is known (it is relative to the root).
  let dts: DeclarationFile | undefined
  const declarationFile = (): DeclarationFile | undefined => {
    const path = resolveDtsFile(options.dts, root)
    if (path !== undefined && dts?.file !== path) dts = new DeclarationFile(path)
    return path === undefined ? undefined : dts
  }
  // Vite's dev server, while serving: `?mcp` modules get the hot-reload code.
  let devServer: ViteDevServer | undefined
  // The close of each dev server's mount, by the server's client environment (see closeBundle).
  const mounts = new WeakMap<object, () => Promise<void>>()
  // `?mcp` ids whose last dev-server build failed: fixing one clears the overlay.
  const failedInDev = new Set<string>()
  // Each `?mcp` id's last dev-server build that declared a service: the files it read.
  const lastGood = new Map<string, { files: readonly string[] }>()

  return {
    name: PLUGIN_NAME,
    // Vite must see `?mcp` before its own resolver strips or rejects it.
    enforce: 'pre',

    resolveId: {
      filter: { id: MCP_ID_RE },
      handler(id, importer) {
        // The filter above already says so where the bundler supports hook filters.
        if (!MCP_ID_RE.test(id)) return null
        const file = locateProto(stripQuery(id), importer, root, importPaths())
        if (file === undefined || !filter(file)) return null
        return file + MCP_QUERY
      },
    },

    load: {
      filter: { id: MCP_ID_RE },
      async handler(id) {
        const file = stripQuery(id)
        if (!MCP_ID_RE.test(id) || !filter(file)) return null
        // Only the dev server's environments run in 'dev' mode; a build has none.
        const hmr = devServer !== undefined && (this as { environment?: { mode?: string } }).environment?.mode !== 'build'
        const build = (): ModuleSource =>
          buildModuleSource(file, {
            ...toolOptions({ ...options, discovery: undefined }),
            ...discoveryOption(options),
            ...(options.resourceScheme === undefined ? {} : { resourceScheme: options.resourceScheme }),
            ...(options.listResources === undefined ? {} : { listResources: options.listResources }),
            importPaths: importPaths(),
            profile: options.profile ?? DEFAULT_PROFILE,
            hmr,
            declarations: Boolean(options.dts),
          })
        let built: ModuleSource
        try {
          built = hmr ? await buildSettled(build, [file, ...(lastGood.get(id)?.files ?? [])]) : build()
          // A save that parses to no service (an empty or cut-short file) while tools were serving: not a change.
          if (hmr && lastGood.has(id) && declaresNoService(built)) {
            throw new Error(
              `"${file}" declares no service (saved empty or cut short?): still serving the last good tools until it declares one`,
            )
          }
        } catch (cause) {
          const error = toPluginError(cause, id, file)
          if (devServer) {
            failedInDev.add(id)
            sendToOverlay(devServer, error, PLUGIN_NAME)
          }
          // Watch the broken file and every import read before the failure
          // (a → b → c broken in c: editing b to drop the import must rebuild too).
          const watched = new Set([file, ...(error.loc ? [error.loc.file] : []), ...(isProtoError(cause) ? (cause.files ?? []) : [])])
          for (const path of watched) this.addWatchFile(path)
          if (reportInsteadOfThrow) {
            // A plain object: unplugin hands esbuild `message`, `id` and `loc`.
            this.error({ message: error.message, id, ...(error.loc ? { loc: error.loc } : {}) })
            return { code: 'export default undefined', map: null }
          }
          // Thrown: `this.error(...)` does not stop webpack or Rspack.
          throw error
        }
        if (hmr && !declaresNoService(built)) lastGood.set(id, { files: built.watchFiles })
        if (devServer && failedInDev.delete(id)) clearOverlay(devServer)
        for (const watched of built.watchFiles) this.addWatchFile(watched)
        for (const warning of built.warnings) this.warn(`${file}: ${warning.message}`)
        if (options.verbose) for (const note of [...built.notes, ...built.costs().map(costNote)]) this.warn(`${file}: ${note}`)
        if (built.declarations !== undefined) {
          const target = declarationFile()!
          // Types are a convenience: a failed write warns, the build goes on.
          try {
            target.update(file, built.declarations)
          } catch (cause) {
            this.warn(`cannot write "${target.file}": ${(cause as Error).message}`)
          }
        }
        return { code: built.code, map: null }
      },
    },

    // The resolved id ends in `.proto?mcp`, an extension esbuild has no loader for.
    esbuild: {
      loader: 'js',
      onResolveFilter: MCP_ID_RE,
      onLoadFilter: MCP_ID_RE,
      config(build) {
        if (build.absWorkingDir) setRoot(build.absWorkingDir)
      },
    },
    vite: {
      config(config, env) {
        return env.command === 'serve' ? externalRuntime(config.ssr) : undefined
      },
      configResolved(config) {
        setRoot(config.root)
      },
      configureServer(server) {
        devServer = server
        server.httpServer?.once('close', () => {
          devServer = undefined
        })
        if (!options.dev) return
        mounts.set(server.environments.client, mountDevServer(server, options.dev, PLUGIN_NAME))
        mountDevPage(server, options.dev.path ?? DEFAULT_MCP_PATH)
      },
      // Vite closes each environment's plugins when its dev server closes
      // or restarts (the new server mounts afresh): the client one's
      // closeBundle ends that server's MCP sessions. One plugin object may
      // serve an old and a new server during a restart, hence the map.
      async closeBundle() {
        const environment = (this as { environment?: object }).environment
        const close = environment === undefined ? undefined : mounts.get(environment)
        if (close === undefined) return
        mounts.delete(environment!)
        await close()
      },
    },
    webpack(compiler) {
      if (compiler.options.context) setRoot(compiler.options.context)
    },
    rspack(compiler) {
      if (compiler.options.context) setRoot(compiler.options.context)
    },
  }
})

/** The plugin's `discovery` and `discoveryNames` as the build takes them (`ProtoServerSpec.discovery`), when either is given. */
function discoveryOption(options: Options): { discovery?: DiscoverySpec } {
  if (options.discovery === undefined && options.discoveryNames === undefined) return {}
  const mode = options.discovery ?? 'auto'
  return { discovery: options.discoveryNames === undefined ? { mode } : { mode, names: options.discoveryNames } }
}
