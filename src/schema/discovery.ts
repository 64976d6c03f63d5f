/**
 * The build's side of tool discovery (docs/guide/big-apis.md): a tool named
 * like a meta-tool is a build error at its RPC, and `auto` over a big list is
 * a build warning naming the option.
 */
import { AUTO_MAX_TOKENS, AUTO_MAX_TOOLS, discoveryClash, discoveryNames, type DiscoverySpec } from '../contract/discovery.ts'
import { protoError } from '../proto/errors.ts'
import type { ProtoModel } from '../proto/model.ts'
import { buildWarning, type BuildWarning } from '../proto/warnings.ts'
import type { ToolSpec } from '../contract/tool-spec.ts'
import { toolText, type CountedTool } from './tokens.ts'

/** Throws the build error of a tool that has a meta-tool's name (at its RPC when the model knows where it is). */
export function checkMetaToolNames(model: ProtoModel, tools: readonly ToolSpec[], discovery: DiscoverySpec): void {
  if (discovery.mode === 'tools') return
  const names = discoveryNames(discovery.names)
  for (const [which, name] of Object.entries(names) as Array<[keyof typeof names, string]>) {
    const tool = tools.find((t) => t.name === name)
    if (tool === undefined) continue
    const text = discoveryClash(which, name, `tool "${name}" (RPC ${tool.service}.${tool.method})`)
    const loc = model.services.find((s) => s.fullName === tool.service)?.methods.find((m) => m.name === tool.method)?.loc
    throw loc ? protoError('PROTO_TYPE', loc.file, loc.line, loc.column, text) : new Error(text)
  }
}

/**
 * The warning of an `auto` server over 40 tools or 30,000 tokens (it lists
 * the meta-tools instead); `tokens` counts the list, asked only when its
 * bytes could pass the limit.
 */
export function autoSearchWarning(
  listed: ReadonlyArray<CountedTool>,
  tokens: () => number,
  discovery: DiscoverySpec,
): BuildWarning | undefined {
  if (discovery.mode !== 'auto') return undefined
  // A token is at least a byte: a list of fewer bytes needs no count.
  const bytes = listed.reduce((sum, t) => sum + Buffer.byteLength(toolText(t)), 0)
  const over = listed.length > AUTO_MAX_TOOLS ? undefined : bytes > AUTO_MAX_TOKENS ? tokens() : 0
  if (over !== undefined && over <= AUTO_MAX_TOKENS) return undefined
  const names = discoveryNames(discovery.names)
  const size = over === undefined ? `${listed.length} tools, over ${AUTO_MAX_TOOLS}` : `${over} tokens of tools, over ${AUTO_MAX_TOKENS}`
  return buildWarning(
    'DISCOVERY_SEARCH',
    `the server lists ${size}: discovery 'auto' lists the meta-tools ${names.search}, ${names.describe} and ${names.call} instead`,
    "set discovery: 'search' to keep this, or discovery: 'tools' to list every tool",
  )
}
