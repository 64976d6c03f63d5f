/**
 * Checks MCP tools against the schema rules of AI clients and model
 * providers (the rule sets of `CLIENT_DIALECTS`): which tools each client
 * would refuse, which constraints it would lose, and why.
 */
import { CLIENT_DIALECTS } from './client-dialects.ts'
import type { CheckedTool, ClientRule, NodeRule, RuleEnv, RuleSeverity } from './define-client-rules.ts'
import { isSchemaNode, walkSchema } from './walk-schema.ts'

export type { CheckedTool, RuleSeverity } from './define-client-rules.ts'

/** The tool name under which a rule about the whole request (e.g. too many tools) is reported. */
export const REQUEST_TOOL = '(request)'

/** Options of {@link checkClientRules}. */
export interface ClientRulesOptions {
  /**
   * The server name clients are configured with: several clients prefix
   * tool names with it and limit the combined length.
   * @default '' (the name-length rules then count the tool name alone)
   */
  server?: string
  /**
   * The rule sets to check, by name (see {@link CLIENT_DIALECT_NAMES}).
   * @default every rule set
   */
  dialects?: readonly string[]
}

/** One breach of a client's rule. */
export interface ClientRuleViolation {
  /** The tool's name, or {@link REQUEST_TOOL} for a rule about the whole list. */
  tool: string
  /** JSON Pointer of the offending node (`/inputSchema/properties/a`), or '' for a rule about the whole tool. */
  ptr: string
  /** The rule's id within its rule set, e.g. `unknown-field`. */
  rule: string
  sev: RuleSeverity
  /** What is wrong. */
  msg: string
  /** URLs of the reports or documentation the rule rests on. */
  evidence: readonly string[]
}

/** The result of one rule set. */
export interface DialectReport {
  /** The rule set's name, e.g. `gemini-legacy`. */
  name: string
  /** Which client, API or mode it stands for. */
  about: string
  /** How many tools were checked. */
  total: number
  /** Tools with at least one `reject`: the client refuses them (or the whole request). */
  rejected: number
  /** Tools with at least one `risk`. */
  risk: number
  /** Tools with at least one `lossy`. */
  lossy: number
  /** Every breach, tool by tool. */
  violations: ClientRuleViolation[]
}

/** The names of the client rule sets, in report order. */
export const CLIENT_DIALECT_NAMES: readonly string[] = Object.keys(CLIENT_DIALECTS)

/**
 * Checks tools as `tools/list` gives them (`name`, `inputSchema`, optional
 * `outputSchema`) against the schema rules AI clients enforce, one report per
 * rule set: OpenAI (plain and strict), Anthropic (plain and strict), Gemini
 * (`parameters` and `parametersJsonSchema`), Cursor, the MCP clients' name
 * and schema checks, and what Codex loses. Each violation names its evidence.
 * Throws for an unknown rule set name.
 */
export function checkClientRules(tools: readonly CheckedTool[], options: ClientRulesOptions = {}): DialectReport[] {
  const names = options.dialects ?? CLIENT_DIALECT_NAMES
  for (const name of names) {
    if (!Object.hasOwn(CLIENT_DIALECTS, name)) {
      throw new Error(`unknown client rule set "${name}": use one of ${CLIENT_DIALECT_NAMES.join(', ')}`)
    }
  }
  const env: RuleEnv = { server: options.server ?? '' }
  return names.map((name) => {
    const dialect = CLIENT_DIALECTS[name]!
    const violations: ClientRuleViolation[] = []
    const report = (toolName: string, rule: ClientRule, ptr: string, finding: string | readonly string[] | null): void => {
      for (const msg of typeof finding === 'string' ? [finding] : (finding ?? [])) {
        if (msg) violations.push({ tool: toolName, ptr, rule: rule.id, sev: rule.sev, msg, evidence: rule.evidence })
      }
    }
    for (const rule of dialect.rules) {
      if (rule.kind === 'list') report(REQUEST_TOOL, rule, '', rule.test(tools, env))
    }
    const nodeRules = dialect.rules.filter((rule): rule is NodeRule => rule.kind === 'node')
    for (const tool of tools) {
      for (const rule of dialect.rules) {
        if (rule.kind === 'tool') report(tool.name, rule, '', rule.test(tool, env))
      }
      if (!isSchemaNode(tool.inputSchema)) continue
      walkSchema(tool.inputSchema, '/inputSchema', (at) => {
        for (const rule of nodeRules) report(tool.name, rule, at.ptr, rule.test(at))
      })
    }
    const toolsWith = (sev: RuleSeverity): number =>
      new Set(violations.filter((v) => v.sev === sev && v.tool !== REQUEST_TOOL).map((v) => v.tool)).size
    return {
      name,
      about: dialect.about,
      total: tools.length,
      rejected: toolsWith('reject'),
      risk: toolsWith('risk'),
      lossy: toolsWith('lossy'),
      violations,
    }
  })
}
