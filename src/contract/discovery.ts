/**
 * Tool discovery (docs/guide/big-apis.md): whether a server lists its tools
 * or three meta-tools that search, describe and call them. The plugin, the
 * command, the schema stage (its build warning) and the server read these.
 */

/** `tools`: every tool listed; `search`: the meta-tools listed instead; `auto`: `tools` while the list is small, else `search`. */
export type DiscoveryMode = 'tools' | 'search' | 'auto'

/** Every mode, the default first. */
export const DISCOVERY_MODES: readonly DiscoveryMode[] = ['auto', 'tools', 'search']

/** The meta-tools' names. */
export interface DiscoveryNames {
  search: string
  describe: string
  call: string
}

/** The meta-tools' names when none are given. */
export const DEFAULT_DISCOVERY_NAMES: Readonly<DiscoveryNames> = Object.freeze({
  search: 'search_tools',
  describe: 'describe_tool',
  call: 'call_tool',
})

/** `auto` lists tools directly while a server has at most this many (Cursor sends the first 40). */
export const AUTO_MAX_TOOLS = 40

/** `auto` lists tools directly while their list costs at most this many tokens. */
export const AUTO_MAX_TOKENS = 30_000

/** What a spec (a `?mcp` module, the command's build) says of discovery; absent means `auto` with the default names. */
export interface DiscoverySpec {
  mode: DiscoveryMode
  names?: Partial<DiscoveryNames>
}

/** The three names with the defaults filled in. */
export function discoveryNames(names: Partial<DiscoveryNames> | undefined): DiscoveryNames {
  return { ...DEFAULT_DISCOVERY_NAMES, ...names }
}

/**
 * The mode `auto` resolves to for a list of `count` tools costing `tokens`:
 * `search` above either limit.
 */
export function autoMode(count: number, tokens: number): 'tools' | 'search' {
  return count > AUTO_MAX_TOOLS || tokens > AUTO_MAX_TOKENS ? 'search' : 'tools'
}

/**
 * The message of a tool named like a meta-tool (`which` is `search`,
 * `describe` or `call`); `tool` says which tool (and where it comes from).
 */
export function discoveryClash(which: keyof DiscoveryNames, name: string, tool: string): string {
  return (
    `${tool} has the name of the discovery meta-tool "${name}" (discoveryNames.${which}): ` +
    `rename the tool or set discoveryNames.${which} to another name`
  )
}
