import { unpluginProtoMcp } from './plugin/unplugin.ts'

/** The rolldown plugin: `rolldown(protoMcp(options))`. */
export default unpluginProtoMcp.rolldown
