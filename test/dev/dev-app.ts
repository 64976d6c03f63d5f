/**
 * A Vite dev server on a fresh copy of `fixtures/apps/dev/` with the
 * plugin's `dev` option, listening on 127.0.0.1 (port 0), and helpers to
 * edit the copy. The workspace sits under `.tmp/dev/` so the installed
 * runtime package finds its dependencies in the repository's node_modules.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { setTimeout as delay } from 'node:timers/promises'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { createLogger, createServer, type Logger, type Plugin, type ViteDevServer } from 'vite'
import type { DevOptions, Options } from '../../src/plugin/options.ts'
import { unpluginProtoMcp } from '../../src/plugin/unplugin.ts'
import { installRuntimePackage } from '../bundlers/harness.ts'
import { REPO } from '../helpers/repo.ts'

/**
 * The pause before each edit. Vite's watcher (chokidar) passes on at most
 * one change of a file per 50 ms and drops the rest, so an edit made within
 * 50 ms of the change event of the one before is never seen. Tests edit
 * only after seeing the last edit take effect (which is after its event),
 * so pausing first keeps every edit's event clear of the last one's.
 */
const EDIT_PAUSE_MS = 120

/** A running dev server on a copy of the fixture. */
export interface DevApp {
  server: ViteDevServer
  /** The app folder (the copy). */
  root: string
  /** `http://127.0.0.1:<port>` */
  origin: string
  /** Everything Vite's logger printed as errors or warnings. */
  errors: string[]
  /**
   * Replaces `from` with `to` in the app's `file` (which must contain it),
   * after a pause, in one rename (see {@link EDIT_PAUSE_MS}).
   */
  edit(file: string, from: string | RegExp, to: string): Promise<void>
  /** Writes `text` as the app's `file`, after the same pause, in one rename. */
  write(file: string, text: string): Promise<void>
  close(): Promise<void>
}

/** Options of {@link startDevApp}. */
export interface DevAppOptions {
  /** Changes the copy before the server starts. */
  prepare?: (root: string) => void
  /** The `dev.server` module. @default './mcp.ts' */
  server?: string
  /** Vite's `server.host` and `server.allowedHosts`. @default loopback */
  host?: string
  allowedHosts?: string[]
  /** The `dev.auth` option. @default none */
  auth?: DevOptions['auth']
  /** The plugin's other options. @default none */
  plugin?: Omit<Options, 'dev'>
  /**
   * How the app has the package: installed in its `node_modules` (the
   * default), `linked` (a symlink to a folder outside any `node_modules`,
   * as a workspace or `npm link` makes it, which Vite treats as source), or
   * `inlined` (linked, and `ssr.noExternal` names it: the module runner
   * evaluates the runtime, afresh on every full reload).
   */
  install?: 'installed' | 'linked' | 'inlined'
  /** The `dev` option's other settings. */
  loadTimeoutMs?: number
  /**
   * The app's folder under the workspace; with `reuse`, a workspace that
   * already has the package keeps it (many apps, one install).
   */
  app?: string
  reuse?: boolean
  /** Plugins before this one (they see requests first). */
  before?: Plugin[]
}

/** Starts a dev server on a fresh copy of `fixtures/apps/dev` in `.tmp/dev/<name>/`. */
export async function startDevApp(name: string, options: DevAppOptions = {}): Promise<DevApp> {
  const ws = join(REPO, '.tmp', 'dev', name)
  const install = options.install ?? 'installed'
  const reused = options.reuse === true && existsSync(join(ws, 'node_modules', 'unplugin-proto-mcp'))
  if (!reused) {
    rmSync(ws, { recursive: true, force: true })
    mkdirSync(ws, { recursive: true })
    writeFileSync(join(ws, 'package.json'), `${JSON.stringify({ name: `dev-${name}`, private: true, type: 'module' })}\n`)
  }
  if (reused) {
    // Installed already.
  } else if (install === 'installed') await installRuntimePackage(ws)
  else {
    // Installed beside the app and linked in: its realpath is outside node_modules.
    const linked = join(ws, 'linked', 'unplugin-proto-mcp')
    mkdirSync(join(ws, 'linked'), { recursive: true })
    renameSync(await installRuntimePackage(join(ws, 'staging')), linked)
    mkdirSync(join(ws, 'node_modules'), { recursive: true })
    symlinkSync(linked, join(ws, 'node_modules', 'unplugin-proto-mcp'), 'dir')
  }
  const root = join(ws, options.app ?? 'app')
  rmSync(root, { recursive: true, force: true })
  cpSync(join(REPO, 'fixtures', 'apps', 'dev'), root, { recursive: true })
  options.prepare?.(root)

  const errors: string[] = []
  // DEV_LOG=1 shows Vite's info lines too (`hmr update`, `page reload`) when debugging.
  const base = createLogger(process.env.DEV_LOG ? 'info' : 'warn')
  const logger: Logger = {
    ...base,
    warn: (msg, options) => {
      errors.push(msg)
      base.warn(msg, options)
    },
    error: (msg, options) => {
      errors.push(msg)
      base.error(msg, options)
    },
  }
  const server = await createServer({
    configFile: false,
    root,
    customLogger: logger,
    appType: 'custom',
    clearScreen: false,
    server: {
      host: options.host ?? '127.0.0.1',
      port: 0,
      strictPort: true,
      watch: { usePolling: true, interval: 50 },
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
    },
    ...(install === 'inlined' ? { ssr: { noExternal: ['unplugin-proto-mcp'] } } : {}),
    plugins: [
      ...(options.before ?? []),
      unpluginProtoMcp.vite({
        ...options.plugin,
        dev: {
          server: options.server ?? './mcp.ts',
          ...(options.loadTimeoutMs ? { loadTimeoutMs: options.loadTimeoutMs } : {}),
          ...(options.auth ? { auth: options.auth } : {}),
        },
      }),
    ],
  })
  await server.listen()
  const { port } = server.httpServer!.address() as AddressInfo
  const write = async (file: string, text: string): Promise<void> => {
    await delay(EDIT_PAUSE_MS)
    // Written beside the app and renamed in: the polling watcher never
    // sees the file truncated but not yet written (an empty .proto).
    const staged = join(ws, `.edit-${file.replace(/[\\/]/g, '_')}`)
    writeFileSync(staged, text)
    renameSync(staged, join(root, file))
  }
  return {
    server,
    root,
    origin: `http://${options.host === undefined || options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`,
    errors,
    async edit(file, from, to) {
      const text = readFileSync(join(root, file), 'utf8')
      const next = text.replace(from, to)
      if (next === text) throw new Error(`edit of "${file}" changed nothing: ${String(from)} not found`)
      await write(file, next)
    },
    write,
    close: async () => {
      await server.close()
      rmSync(options.reuse ? root : ws, { recursive: true, force: true })
    },
  }
}
