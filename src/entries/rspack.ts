import { unpluginProtoMcp } from '../plugin/unplugin.ts'

/** The rspack plugin: `import protoMcp from 'unplugin-proto-mcp/rspack'`, then `protoMcp(options)` in the plugin list. */
export default unpluginProtoMcp.rspack
