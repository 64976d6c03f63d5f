import { unpluginProtoMcp } from '../plugin/unplugin.ts'

/** The vite plugin: `import protoMcp from 'unplugin-proto-mcp/vite'`, then `protoMcp(options)` in the plugin list. */
export default unpluginProtoMcp.vite
