/**
 * The keys a hot-reloading `?mcp` module (src/codegen/emit-hmr.ts) and the
 * Vite dev mount (src/plugin/dev-mount.ts) share (docs/serving.md, "Hot reload and the dev mount").
 */

/** The `import.meta.hot.data` key under which the first evaluation keeps its `Server`. */
export const HOT_DATA_SERVER = 'server'

/**
 * The registered symbol of the `WeakSet` of servers that hot-reloading
 * `?mcp` modules keep (`globalThis[Symbol.for(HOT_SERVERS_KEY)]`).
 */
export const HOT_SERVERS_KEY = 'unplugin-proto-mcp.hot-servers'

/**
 * The registered symbol of the `Set` of functions a hot-reloading `?mcp`
 * module calls after it moved new tools onto its kept server (the dev mount
 * listens, to rebuild a server that includes it without waiting for a request).
 */
export const HOT_UPDATE_KEY = 'unplugin-proto-mcp.hot-update'
