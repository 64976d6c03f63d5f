/**
 * The plugin's options, as users pass them to `protoMcp(options)`.
 */
import type { DiscoveryMode, DiscoveryNames } from '../contract/discovery.ts'
import type { FilterPattern } from '@rollup/pluginutils'
import type { AuthOptions } from '../contract/auth-options.ts'
import type { ListResourcesOption, ResourceSchemeOption } from '../contract/resource-options.ts'
import type { Profile } from '../codegen/index.ts'
import type { MethodFilter, ToolNames } from '../schema/index.ts'

/** Options of the `unplugin-proto-mcp` plugin (the same for every bundler). */
export interface Options {
  /**
   * Directories searched for the `.proto` files an imported `.proto`
   * `import`s, after the importing file's own directory. Relative entries
   * are resolved against the project root: Vite's `root`, webpack's and
   * Rspack's `context`, esbuild's `absWorkingDir`, else the working directory.
   * A bare `import x from 'dir/x.proto?mcp'` is looked up there too.
   * @default []
   */
  importPaths?: string[]
  /**
   * Which tools to build (docs/profiles.md): `'portable'`, input schemas
   * every major AI client accepts (OpenAI, Anthropic, Gemini, Cursor, Codex,
   * VS Code); `'strict'`, OpenAI strict mode's subset; `'full'`, exact JSON
   * Schema 2020-12 with `anyOf` and `$defs`; `'topeka'`, exactly the tools
   * of the Go generator (protoc-gen-go-mcp).
   * @default 'portable'
   */
  profile?: Profile
  /**
   * `portable`/`strict`: how many times a recursive message is inlined
   * inside itself before its field becomes JSON text of the message.
   * @default 3
   */
  recursionDepth?: number
  /**
   * The longest `server name + tool name` (the server name is the `.proto`
   * file's base name) that builds without a warning: Claude Code refers to
   * tools as `mcp__<server>__<tool>` in 64 characters, Cursor drops tools
   * whose two names reach 60. `false` turns the check off.
   * @default 57
   */
  toolNameBudget?: number | false
  /**
   * Shorten tool names over {@link toolNameBudget} (a hash prefix and the
   * name's end) instead of only warning.
   * @default false
   */
  shortenToolNames?: boolean
  /**
   * `portable`/`strict`: the most o200k tokens one tool may cost a model
   * (name, description and input schema as compact JSON). Nested messages
   * past it become placeholders (JSON text) whose schema the type tool
   * gives, comments are cut to their first paragraph (docs/profiles.md).
   * `false`: every message inlined, every comment whole.
   * @default 1500
   */
  toolTokenBudget?: number | false
  /**
   * The name of the tool that gives the schema of a message a placeholder
   * names (there only when the budget cut something).
   * @default 'describe_type'
   */
  typeTool?: string
  /**
   * Which RPCs become tools, by full name or glob (`*` any run of
   * characters but `.`, `**` any run; docs/mapping.md, "Method globs"):
   * `include` keeps only the matching ones, `exclude` then drops matching
   * ones. (Not `include`/`exclude`: those choose `.proto` files.) A pattern
   * that matches no RPC warns.
   * @default every RPC
   */
  methods?: MethodFilter
  /**
   * How tools are named: `'method'` → `SetVibe` (as Topeka), `'service'` →
   * `VibeService_SetVibe`, `'qualified'` → `examples_v1_VibeService_SetVibe`,
   * or a function of `{ service, method, package, fullName }`. A
   * `(proto_mcp.tool).name` option wins; names breaking
   * `^[A-Za-z0-9_-]{1,64}$` are shortened (default profile, with a warning).
   * @default 'method'
   */
  toolNames?: ToolNames
  /**
   * OAuth scopes by method glob over RPCs' full names, e.g.
   * `{ 'google.firestore.v1.Firestore.Delete*': 'firestore.write' }`
   * (the globs of `methods`): a tool exists only for callers
   * whose token has every scope of every glob matching its RPC, and those
   * of `(proto_mcp.service)` and `(proto_mcp.tool)` (docs/serving.md, "Tools, errors and visibility").
   * @default {}
   */
  methodScopes?: Record<string, string | string[]>
  /**
   * How the server lists its tools (docs/guide/big-apis.md): `tools` lists
   * every tool, `search` lists three meta-tools instead (`search_tools`,
   * `describe_tool`, `call_tool`), `auto` lists tools while there are at
   * most 40 costing at most 30,000 tokens, else the meta-tools (a build warning).
   * @default 'auto'
   */
  discovery?: DiscoveryMode
  /**
   * The meta-tools' names, for `search` (and `auto`); a tool of the same name is a build error.
   * @default { search: 'search_tools', describe: 'describe_tool', call: 'call_tool' }
   */
  discoveryNames?: Partial<DiscoveryNames>
  /**
   * The URI scheme of the resource templates built from `google.api.resource`
   * (docs/guide/resources.md): one for every template, or schemes by the
   * default one (`{ pubsub: 'gcp-pubsub' }`).
   * @default undefined (the resource type's service name: `pubsub` of `pubsub.googleapis.com/Topic`)
   */
  resourceScheme?: ResourceSchemeOption
  /**
   * What `resources/list` lists of those resources, through their List RPCs:
   * `true`, the List RPCs needing no parent; `{ under, max }`, also those
   * under each parent of `under` (`projects/p1`), `max` (100) at most per
   * answer. Every `resources/list` calls the backend: listing an API is not free.
   * @default false
   */
  listResources?: ListResourcesOption
  /**
   * Also print the build's verbose report as warnings: what the schemas
   * leave out (e.g. `buf.validate` CEL rules, which the backend must check).
   * @default false
   */
  verbose?: boolean
  /**
   * Which `.proto` files may be imported with `?mcp`: globs (relative to the
   * project root) or regular expressions, matched against the absolute path
   * without the query.
   * @default undefined (every `.proto`)
   */
  include?: FilterPattern
  /**
   * `.proto` files whose `?mcp` imports the plugin leaves alone (matched like
   * `include`; `exclude` wins).
   * @default undefined (none)
   */
  exclude?: FilterPattern
  /**
   * Write a declaration file that types each `import x from './x.proto?mcp'`
   * precisely (request and response types of every RPC for `implement()`).
   * `true` writes `proto-mcp.d.ts` in the project root; a string names the
   * file, relative to the project root. Rewritten only when its text changes.
   * Include it in the tsconfig (e.g. `"include": ["src", "proto-mcp.d.ts"]`).
   * @default false
   */
  dts?: boolean | string
  /**
   * Vite's dev server only: serve the `Server` that the module `server`
   * default-exports at `path`, loaded through Vite's server module runner,
   * with hot reload and the `/__mcp/` page. Other bundlers ignore it.
   * @default undefined (nothing mounted)
   */
  dev?: DevOptions
}

/** The `dev` option: what Vite's dev server serves over MCP. */
export interface DevOptions {
  /**
   * The module whose default export is the `Server` to serve, relative to
   * the project root (e.g. `'./src/mcp.ts'`, which imports a `?mcp` module,
   * calls `implement(...)` and default-exports the server).
   */
  server: string
  /**
   * The path of the MCP endpoint on the dev server.
   * @default '/mcp'
   */
  path?: string
  /**
   * How long the `server` module may take to load (its top-level `await`s
   * included) before `/mcp` answers that it never finished: a module that
   * awaits `serveStdio()` or a transport never does.
   * @default 10000
   */
  loadTimeoutMs?: number
  /**
   * Bearer-token authorization of the endpoint, as `serveHttp()`'s `auth`
   * (docs/serving.md, "Authorization"); `resource` defaults to the dev server's URL.
   * @default none
   */
  auth?: AuthOptions
}
