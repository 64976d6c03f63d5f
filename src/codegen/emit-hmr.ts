/**
 * The hot-reload tail of a `?mcp` module served by Vite's dev server
 * (docs/serving.md, "Hot reload and the dev mount"). Builds never carry it.
 */

import { HOT_DATA_SERVER, HOT_SERVERS_KEY, HOT_UPDATE_KEY } from '../contract/index.ts'

/**
 * Source that default-exports the server held in `created`. With `hmr`, the
 * first evaluation keeps that server in `import.meta.hot.data`; every later
 * one (the `.proto` or one it imports changed) moves the new tools onto the
 * kept server with `handle().replaceTools(...)` and exports the kept one, so
 * open sessions stay open, clients get `list_changed`, and backends bound
 * with `implement()` stay bound.
 */
export function emitDefaultExport(created: string, hmr: boolean): string {
  if (!hmr) return `export default ${created}`
  return [
    `const created = ${created}`,
    '',
    '// Hot reload (Vite dev server only): one server lives across edits of the .proto.',
    'let server = created',
    'if (import.meta.hot) {',
    `  const kept = import.meta.hot.data.${HOT_DATA_SERVER}`,
    '  if (kept && kept !== created) {',
    '    kept.handle().replaceTools(created)',
    '    server = kept',
    `    for (const updated of globalThis[Symbol.for(${JSON.stringify(HOT_UPDATE_KEY)})] ?? []) updated(kept)`,
    '  } else {',
    `    import.meta.hot.data.${HOT_DATA_SERVER} = created`,
    '  }',
    '  // Tells the dev mount this server follows edits itself (its importers need not re-run).',
    `  ;(globalThis[Symbol.for(${JSON.stringify(HOT_SERVERS_KEY)})] ??= new WeakSet()).add(server)`,
    '  import.meta.hot.accept()',
    '}',
    'export default server',
  ].join('\n')
}
