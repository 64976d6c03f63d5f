/**
 * `unplugin-proto-mcp/client-rules`: checks tools as `tools/list` gives
 * them (generated or hand-written) against the schema rules of AI clients:
 * which would refuse which tool, and why, with the evidence for each rule.
 * A subpath of its own: neither the plugin nor a server needs it.
 */
export { checkClientRules, CLIENT_DIALECT_NAMES, REQUEST_TOOL } from '../schema/client-rules.ts'
export type { CheckedTool, ClientRulesOptions, ClientRuleViolation, DialectReport, RuleSeverity } from '../schema/client-rules.ts'
