import { unpluginProtoMcp } from './plugin/unplugin.ts'

/** The webpack plugin: `webpack(protoMcp(options))`. */
export default unpluginProtoMcp.webpack
