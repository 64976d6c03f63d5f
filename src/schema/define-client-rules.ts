/**
 * The shape of a client rule and the builders the rule table is written
 * with: rules tested at every schema node, at the root, once per tool, or
 * once over the whole tool list.
 */
import type { NodeVisit, SchemaNode } from './walk-schema.ts'

/**
 * How bad a breach is: `reject` (the provider fails the whole request, or
 * the client drops the tool or the server), `risk` (documented or reported,
 * not confirmed as a hard failure), `lossy` (accepted, but the constraint is
 * silently dropped or rewritten).
 */
export type RuleSeverity = 'reject' | 'risk' | 'lossy'

/** A tool as `tools/list` gives it; only these fields are checked. */
export interface CheckedTool {
  name: string
  inputSchema: unknown
  outputSchema?: unknown
}

/** What the tool-level rules know besides the tool. */
export interface RuleEnv {
  /** The server name the client is configured with (it prefixes tool names). */
  server: string
}

/** A rule's answer: what is wrong (one or several findings), or nothing. */
export type Finding = string | readonly string[] | null

interface RuleBase {
  /** Unique within its dialect. */
  id: string
  sev: RuleSeverity
  /** URLs of the reports or documentation the rule rests on. */
  evidence: readonly string[]
}

/** A rule checked at every node of the input schema. */
export interface NodeRule extends RuleBase {
  kind: 'node'
  test: (at: NodeVisit) => Finding
}
/** A rule checked once per tool. */
export interface ToolRule extends RuleBase {
  kind: 'tool'
  test: (tool: CheckedTool, env: RuleEnv) => Finding
}
/** A rule checked once over the whole list (it is about the request, not a tool). */
export interface ListRule extends RuleBase {
  kind: 'list'
  test: (tools: readonly CheckedTool[], env: RuleEnv) => Finding
}
/** One rule of a dialect. */
export type ClientRule = NodeRule | ToolRule | ListRule

/** A client rule set: what it stands for and its rules. */
export interface ClientDialect {
  about: string
  rules: readonly ClientRule[]
}

/** A rule checked at every node of the input schema. */
export const nodeRule = (id: string, sev: RuleSeverity, evidence: readonly string[], test: (at: NodeVisit) => Finding): NodeRule => ({
  kind: 'node',
  id,
  sev,
  evidence,
  test,
})
/** A rule checked at the input schema's root only. */
export const rootRule = (id: string, sev: RuleSeverity, evidence: readonly string[], test: (n: SchemaNode) => Finding): NodeRule =>
  nodeRule(id, sev, evidence, (at) => (at.isRoot ? test(at.node) : null))
/** A rule checked once per tool. */
export const toolRule = (id: string, sev: RuleSeverity, evidence: readonly string[], test: ToolRule['test']): ToolRule => ({
  kind: 'tool',
  id,
  sev,
  evidence,
  test,
})
/** A rule checked once over the whole list. */
export const listRule = (id: string, sev: RuleSeverity, evidence: readonly string[], test: ListRule['test']): ListRule => ({
  kind: 'list',
  id,
  sev,
  evidence,
  test,
})
/** A rule on the tool name: it must match `re`; `who` says whose pattern it is. */
export const nameRule = (id: string, sev: RuleSeverity, evidence: readonly string[], re: RegExp, who: string): ToolRule =>
  toolRule(id, sev, evidence, (t) => (re.test(t.name) ? null : `tool name "${t.name}" breaks ${re.source} (${who})`))
/** One `keyword:<name>` rule per keyword: using it at all is the breach. */
export const keywordRules = (table: Record<string, { sev: RuleSeverity; evidence: readonly string[]; why: string }>): NodeRule[] =>
  Object.entries(table).map(([kw, { sev, evidence, why }]) =>
    nodeRule(`keyword:${kw}`, sev, evidence, (at) => (kw in at.node ? `uses "${kw}" (${why})` : null)),
  )
/** Reports the keys of a node outside `allowed`, all in one finding. */
export const allowOnlyRule = (
  id: string,
  sev: RuleSeverity,
  evidence: readonly string[],
  allowed: readonly string[],
  what: string,
): NodeRule => {
  const known = new Set(allowed)
  return nodeRule(id, sev, evidence, (at) => {
    const extra = Object.keys(at.node).filter((k) => !known.has(k))
    return extra.length > 0 ? `${what}: ${extra.map((k) => `"${k}"`).join(', ')}` : null
  })
}
