import { unpluginProtoMcp } from './plugin/unplugin.ts'

/** The esbuild plugin: `esbuild(protoMcp(options))`. */
export default unpluginProtoMcp.esbuild
