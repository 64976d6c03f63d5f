/**
 * unplugin-proto-mcp: `import server from '../vibe.proto?mcp'` gives an MCP
 * server whose tools are the `.proto` service's RPCs. The default export is
 * the unplugin instance (`.vite`, `.rollup`, `.rolldown`, `.esbuild`,
 * `.webpack`, `.rspack`); each bundler also has its own subpath.
 */
import { unpluginProtoMcp } from '../plugin/unplugin.ts'

export type { Options } from '../plugin/options.ts'
export { writeProtoDeclarations } from '../plugin/write-dts.ts'
export type { WriteProtoDeclarationsOptions } from '../plugin/write-dts.ts'
/**
 * Checks tools as `tools/list` gives them (generated or hand-written)
 * against the schema rules of AI clients: which would refuse which tool,
 * and why, with the evidence for each rule.
 */
export { checkClientRules, CLIENT_DIALECT_NAMES, REQUEST_TOOL } from '../schema/client-rules.ts'
export type { CheckedTool, ClientRulesOptions, ClientRuleViolation, DialectReport, RuleSeverity } from '../schema/client-rules.ts'

/** The plugin for every supported bundler, e.g. `protoMcp.rollup({ profile: 'topeka' })`. */
export default unpluginProtoMcp
