import { unpluginProtoMcp } from '../plugin/unplugin.ts'

/** The rolldown plugin: `import protoMcp from 'unplugin-proto-mcp/rolldown'`, then `protoMcp(options)` in the plugin list. */
export default unpluginProtoMcp.rolldown
