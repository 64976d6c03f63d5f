/**
 * unplugin-proto-mcp: `import server from '../vibe.proto?mcp'` gives an MCP
 * server whose tools are the `.proto` service's RPCs. The default export is
 * the unplugin instance (`.vite`, `.rollup`, `.rolldown`, `.esbuild`,
 * `.webpack`, `.rspack`); each bundler also has its own subpath.
 */
import { unpluginProtoMcp } from '../plugin/unplugin.ts'

export type { Options } from '../plugin/options.ts'
export { writeProtoDeclarations } from '../plugin/write-dts.ts'
export type { WriteProtoDeclarationsOptions } from '../plugin/write-dts.ts'

/** The plugin for every supported bundler, e.g. `protoMcp.rollup({ profile: 'topeka' })`. */
export default unpluginProtoMcp
