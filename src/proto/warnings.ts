/**
 * Build warnings as data: every stage reports `{ code, message, fix? }`, the
 * plugin prints `message`, and a caller that says things its own way (the
 * `proto-mcp` command) decides by `code`, never by the text.
 */

/** Every build warning's code, and when a stage reports it. */
export const BUILD_WARNING_CODES = {
  /** schema/: a `google.api.resource` pattern no URI template can spell (`{path=**}`), so it gets no resource template. */
  RESOURCE_PATTERN: 'a resource pattern cannot be a URI template',
  /** schema/: `listResources` will not list a resource (its List RPC needs a parent `under` does not give), or an `under` parent fits no resource. */
  RESOURCE_LISTING: 'listResources will not list some resources',
  /** proto/: the file declares no service, so it builds no tools (an empty file too). */
  NO_SERVICE: 'the file declares no service',
  /** proto/: client-streaming and bidi RPCs, which never become tools (docs/mapping.md, "Which RPCs become tools"). */
  STREAMING_RPC_SKIPPED: 'client-streaming and bidi RPCs get no tool',
  /** schema/: a tool name broke the name pattern or the budget and was shortened. */
  TOOL_NAME_SHORTENED: 'a tool name was shortened',
  /** schema/: a tool name breaks the name pattern some clients enforce. */
  TOOL_NAME_PATTERN: 'a tool name breaks the name pattern',
  /** schema/: server name + tool name is longer than the name budget. */
  TOOL_NAME_BUDGET: 'a tool name is over the name budget',
  /** schema/: a recursive request message was inlined less deep than asked. */
  RECURSION_SHALLOWER: 'a recursive message was inlined less deep',
  /** schema/: two RPCs got the same tool name; the last one wins. */
  TOOL_NAME_CLASH: 'two RPCs got the same tool name',
  /** schema/: a tool costs more tokens than the budget even with every nested message cut. */
  TOOL_OVER_BUDGET: 'a tool is over the token budget',
  /** schema/: a `methods` pattern or a `methodScopes` glob matches no RPC. */
  METHOD_PATTERN_UNMATCHED: 'a methods pattern or methodScopes glob matches no RPC',
  /** schema/: an RPC's tool has the type tool's name, so the type tool is left out. */
  TYPE_TOOL_CLASH: 'a tool has the type tool name',
  /** schema/: the server lists more tools than some clients take. */
  TOO_MANY_TOOLS: 'more tools than some clients take',
  /** schema/: the tool list costs more tokens than the documented total. */
  LIST_OVER_TOKENS: 'the tool list is over the token total',
  /** schema/: discovery `auto` over 40 tools or 30,000 tokens: the server lists the meta-tools instead. */
  DISCOVERY_SEARCH: "discovery 'auto' lists the meta-tools",
  /** codegen/: what Ajv logged while compiling a validator (e.g. an unknown format). */
  AJV_LOG: 'Ajv logged a warning while compiling a validator',
  /** cli/ (reflection): a listed service the gRPC server sends no descriptor for. */
  SERVICE_UNDESCRIBED: 'a listed service has no descriptor',
} as const

/** A build warning's stable code (see {@link BUILD_WARNING_CODES}). */
export type BuildWarningCode = keyof typeof BUILD_WARNING_CODES

/** One build warning. */
export interface BuildWarning {
  /** What kind of warning it is: stable, for callers to decide by. */
  code: BuildWarningCode
  /** The one-line text, ending in `(fix)` when there is a fix. */
  message: string
  /** What to do about it, in terms of the plugin's options, when something can be done. */
  fix?: string
}

/** The warning `code` saying `text`, with `fix` in parentheses at the end of its message when given. */
export function buildWarning(code: BuildWarningCode, text: string, fix?: string): BuildWarning {
  return fix === undefined ? { code, message: text } : { code, message: `${text} (${fix})`, fix }
}

/**
 * `warning` with its fix said another way (the command's flag for the
 * plugin's option): the message's `(fix)` ending is replaced, the rest kept.
 * A warning without a fix is returned as it is.
 */
export function withFix(warning: BuildWarning, fix: string): BuildWarning {
  if (warning.fix === undefined) return warning
  const text = warning.message.slice(0, warning.message.length - warning.fix.length - 3)
  return buildWarning(warning.code, text, fix)
}
