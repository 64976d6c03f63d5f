import { unpluginProtoMcp } from './plugin/unplugin.ts'

/** The rollup plugin: `rollup(protoMcp(options))`. */
export default unpluginProtoMcp.rollup
