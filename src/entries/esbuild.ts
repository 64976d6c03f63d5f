import { unpluginProtoMcp } from '../plugin/unplugin.ts'

/** The esbuild plugin: `import protoMcp from 'unplugin-proto-mcp/esbuild'`, then `protoMcp(options)` in the plugin list. */
export default unpluginProtoMcp.esbuild
