import { unpluginProtoMcp } from './plugin/unplugin.ts'

/** The vite plugin: `vite(protoMcp(options))`. */
export default unpluginProtoMcp.vite
