import { unpluginProtoMcp } from '../plugin/unplugin.ts'

/** The rollup plugin: `import protoMcp from 'unplugin-proto-mcp/rollup'`, then `protoMcp(options)` in the plugin list. */
export default unpluginProtoMcp.rollup
