import { unpluginProtoMcp } from './plugin/unplugin.ts'

/** The rspack plugin: `rspack(protoMcp(options))`. */
export default unpluginProtoMcp.rspack
