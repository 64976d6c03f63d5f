import { unpluginProtoMcp } from '../plugin/unplugin.ts'

/** The webpack plugin: `import protoMcp from 'unplugin-proto-mcp/webpack'`, then `protoMcp(options)` in the plugin list. */
export default unpluginProtoMcp.webpack
