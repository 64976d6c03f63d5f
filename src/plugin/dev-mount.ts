/**
 * The `dev` option in Vite's dev server (docs/serving.md, "Hot reload and the dev mount"): the `Server` that a
 * module default-exports, loaded through Vite's server module runner and
 * served at `/mcp`, and reloaded after edits (the mount's state machine);
 * build errors shown in the terminal and the overlay (dev-overlay.ts);
 * which requests it accepts is dev-origin.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { resolve } from 'node:path'
import type { ViteDevServer } from 'vite'
import type { AuthOptions } from '../contract/auth-options.ts'
import { DEFAULT_LOAD_TIMEOUT_MS, DEFAULT_MCP_PATH, HOT_SERVERS_KEY, HOT_UPDATE_KEY } from '../contract/index.ts'
import type { DevOptions } from './options.ts'
import { devAllowedHosts, devAuth, isOwnOrigin, pathOf } from './dev-origin.ts'
import { clearOverlay, sendToOverlay, type OverlayError } from './dev-overlay.ts'
import { jsonRpcErrorBody } from '../contract/json-rpc-error.ts'

/** When the mount loads its module again after the last file change (see `reloadSoon`). */
const RELOAD_AFTER_EDIT_MS = [100, 400, 1500]

/**
 * `loading`, or a rejection once `ms` pass first: the text says what the
 * mount needs of the module (a module awaiting a transport never settles).
 */
function settleWithin<T>(loading: Promise<T>, ms: number, module: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the dev server module "${module}" did not finish loading within ${ms} ms: the dev mount needs a module that default-exports a Server and returns; serve it here instead of awaiting serveStdio() or serveHttp() in it (or raise dev.loadTimeoutMs)`,
          ),
        ),
      ms,
    )
    timer.unref?.()
  })
  return Promise.race([loading, late]).finally(() => clearTimeout(timer))
}

type Next = (error?: unknown) => void
/** A `Server`'s Node handler (`McpNodeHandler`). */
interface NodeHandler {
  (req: IncomingMessage, res: ServerResponse, next?: Next): unknown
  close(): Promise<void>
}

/** A `Server`'s `Logger` (docs/serving.md, "Logging"). */
interface MountLogger {
  warn(message: string): void
  error(message: string, error?: unknown): void
}

/** What the mount uses of a `Server` (the plugin stage cannot import `server/`); test/types/dev-mount-slice.ts ties it to `Server`. */
export interface MountableServer {
  nodeHandler(options?: { allowedHosts?: string[]; allowedOrigins?: string[]; logger?: MountLogger; auth?: AuthOptions }): NodeHandler
  handle(): { replaceAll?(server: object): unknown }
}

/** The server served at the path, its handler, and the server last loaded into it. */
interface Serving {
  server: MountableServer
  handler: NodeHandler
  source: MountableServer
}

/** The slice of Vite's `EvaluatedModuleNode` the mount uses. */
interface EvaluatedModule {
  evaluated?: boolean
  exports?: Record<string, unknown>
}

/** The slice of Vite's `ModuleRunner` the mount uses. */
interface Runner {
  import(url: string): Promise<Record<string, unknown>>
  evaluatedModules: { clear(): void; getModuleById(id: string): EvaluatedModule | undefined }
}

const isMountable = (value: unknown): value is MountableServer =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as MountableServer).nodeHandler === 'function' &&
  typeof (value as MountableServer).handle === 'function'

/** Whether `server` is kept by a hot-reloading `?mcp` module (it follows `.proto` edits itself). */
function followsEdits(server: MountableServer): boolean {
  const kept = (globalThis as Record<symbol, WeakSet<object> | undefined>)[Symbol.for(HOT_SERVERS_KEY)]
  return kept?.has(server) === true
}

/** The module runner of the dev server's `ssr` environment (Vite's own, or a new one). */
async function serverRunner(server: ViteDevServer): Promise<Runner> {
  const env = server.environments.ssr
  if ('runner' in env) return env.runner as Runner
  const { createServerModuleRunner } = await import('vite')
  return createServerModuleRunner(env) as Runner
}

function replyError(res: ServerResponse, status: number, message: string, code = -32603): void {
  if (res.headersSent) return void res.end()
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(jsonRpcErrorBody(code, message)))
}

/**
 * Mounts `options.server`'s default export at `options.path` on `server`.
 * Each request asks the runner for the module (cached until an edit
 * invalidates it); a module that fails to load keeps the last good server
 * serving and reports the error once in the terminal and the overlay.
 * Returns the mount's close (its sessions hold timers and streams), for
 * the plugin to call when the dev server closes.
 */
export function mountDevServer(server: ViteDevServer, options: DevOptions, plugin: string): () => Promise<void> {
  const path = options.path ?? DEFAULT_MCP_PATH
  const entry = resolve(server.config.root, options.server)
  const logger = server.config.logger
  // The served server's messages join Vite's own in the terminal (not raw stderr lines through its output).
  const serverLogger: MountLogger = {
    warn: (message) => logger.warn(message, { timestamp: true }),
    error: (message, error) => logger.error(message, { timestamp: true, ...(error instanceof Error ? { error } : {}) }),
  }
  const allowed = devAllowedHosts(server)
  let runner: Promise<Runner> | undefined
  let serving: Serving | undefined
  let lastError: string | undefined
  // The runner's record of the entry as last imported. While it stands and
  // its server is one a `?mcp` module keeps, the mount reads its exports
  // directly: `runner.import()` would re-evaluate the entry whenever Vite
  // soft-invalidated it (every `.proto` edit does, though the `?mcp` module
  // accepts its own update), resetting its state. A full reload (an edit of
  // the entry itself) replaces the record. Any other server (one the entry
  // builds, e.g. with `include()`) is re-imported per request, so the entry
  // re-runs after each edit it depends on.
  let record: EvaluatedModule | undefined
  // After a failed load the runner keeps the rejection cached; a failure in
  // a module Vite never analysed (a `.proto` broken from the start) gets no
  // HMR update either, so once a file changes the next request evaluates
  // afresh (not before: re-running modules would re-announce their tools).
  let failed = false
  let changed = false
  // Loads again shortly after edits settle, so a module broken by an edit
  // shows in the terminal and the overlay (and a fixed one clears it)
  // without waiting for a request. Cheap when nothing it needs changed.
  let again: NodeJS.Timeout[] = []
  const reloadSoon = (): void => {
    for (const timer of again) clearTimeout(timer)
    again = RELOAD_AFTER_EDIT_MS.map((ms) =>
      setTimeout(() => {
        if (serving === undefined && lastError === undefined) return
        current().catch((error: Error) => logger.error(`${plugin}: ${error.message}`, { timestamp: true }))
      }, ms).unref(),
    )
  }
  server.watcher.on('all', () => {
    changed = true
    reloadSoon()
  })

  const load = async (): Promise<MountableServer | undefined> => {
    runner ??= serverRunner(server)
    const r = await runner
    const known = r.evaluatedModules.getModuleById(entry)
    const held = known?.exports?.default
    if (!failed && known !== undefined && known === record && known.evaluated && isMountable(held) && followsEdits(held)) return held
    if (failed && !changed) return undefined
    try {
      if (failed) r.evaluatedModules.clear()
      changed = false
      const mod = await settleWithin(r.import(entry), options.loadTimeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS, options.server)
      record = r.evaluatedModules.getModuleById(entry)
      failed = false
      const value = mod.default
      if (!isMountable(value))
        throw new Error(
          `the dev server module "${options.server}" must default-export a Server (from a "?mcp" import or Server.builder); it exports ${typeof value}`,
        )
      if (lastError !== undefined) clearOverlay(server)
      lastError = undefined
      return value
    } catch (error) {
      failed = true
      const err = error as OverlayError
      const text = err.message ?? String(error)
      if (text !== lastError) {
        lastError = text
        logger.error(`${plugin}: cannot load "${options.server}"${serving ? ', still serving the last good server' : ''}: ${text}`, {
          timestamp: true,
        })
        sendToOverlay(server, err, plugin)
      }
      return undefined
    }
  }

  const current = async (): Promise<Serving | undefined> => {
    const loaded = await load()
    if (loaded === undefined || loaded === serving?.source) return serving
    if (serving !== undefined && !followsEdits(loaded) && !followsEdits(serving.server)) {
      const handle = serving.server.handle()
      if (typeof handle.replaceAll === 'function') {
        // The entry built a new server (e.g. with `include()`): it moves into
        // the one serving, so open sessions stay open and hear list_changed.
        handle.replaceAll(loaded)
        serving.source = loaded
        return serving
      }
    }
    // The first server, or a switch to or from a kept `?mcp` server (which
    // must serve itself to follow edits): sessions start afresh.
    serving?.handler
      .close()
      .catch((error: Error) => logger.error(`${plugin}: closing the last server's sessions: ${error.message}`, { timestamp: true }))
    serving = {
      server: loaded,
      handler: loaded.nodeHandler({
        ...(allowed && { allowedHosts: allowed, allowedOrigins: allowed }),
        logger: serverLogger,
        ...(options.auth && { auth: devAuth(server, options.auth, path) }),
      }),
      source: loaded,
    }
    return serving
  }

  // A `?mcp` module moved new tools onto its kept server: a server the entry
  // builds from it is rebuilt now, so clients hear list_changed without
  // having to send a request first. Deferred: the module runner is still
  // applying the update.
  const updates = ((globalThis as Record<symbol, Set<(server: object) => void> | undefined>)[Symbol.for(HOT_UPDATE_KEY)] ??= new Set())
  const onUpdate = (): void => {
    if (serving === undefined || followsEdits(serving.server)) return
    setImmediate(() => {
      current().catch((error: Error) => logger.error(`${plugin}: ${error.message}`, { timestamp: true }))
    })
  }
  updates.add(onUpdate)

  // With `dev.auth`, the protected-resource metadata (public) beside the endpoint, at its path-aware well-known URL.
  const resourcePath = options.auth?.resource === undefined ? path : new URL(options.auth.resource).pathname.replace(/(?<=.)\/$/, '')
  const metadataPath = options.auth && `/.well-known/oauth-protected-resource${resourcePath === '/' ? '' : resourcePath}`
  server.middlewares.use((req, res, next) => {
    const requested = pathOf(req.url)
    if (requested !== path && requested !== metadataPath) return next()
    // Vite's CORS answers any localhost origin (another dev server's page):
    // only the dev server's own pages may call the tools from a browser.
    const origin = req.headers.origin
    if (requested === path && origin !== undefined && !isOwnOrigin(server, origin, req.headers.host)) {
      return replyError(
        res,
        403,
        `forbidden origin ${JSON.stringify(origin)}: only pages of this dev server may call ${path} from a browser`,
        -32000,
      )
    }
    current()
      .then((target) => {
        if (target === undefined)
          return replyError(res, 500, `the MCP server module "${options.server}" failed to load: ${lastError ?? 'unknown error'}`)
        return target.handler(req, res, next)
      })
      .catch((error: Error) => {
        logger.error(`${plugin}: ${error.message}`, { timestamp: true })
        replyError(res, 500, 'internal error')
      })
  })

  // Load once the server listens, so a broken module shows at start-up.
  server.httpServer?.once('listening', () => {
    current().catch((error: Error) => logger.error(`${plugin}: ${error.message}`, { timestamp: true }))
  })
  return async () => {
    for (const timer of again) clearTimeout(timer)
    updates.delete(onUpdate)
    const closing = serving
    serving = undefined
    await closing?.handler.close()
  }
}
