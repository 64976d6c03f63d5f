/**
 * The plugin stage: the unplugin factory and the bundler-free pipeline it runs.
 */
export { MCP_QUERY, PLUGIN_NAME, unpluginProtoMcp } from './unplugin.ts'
export { buildModuleSource, serverName } from '../codegen/index.ts'
export type { BuildModuleSourceOptions, ModuleSource } from '../codegen/index.ts'
export { toPluginError } from './plugin-error.ts'
export type { PluginError } from './plugin-error.ts'
export type { Options } from './options.ts'
