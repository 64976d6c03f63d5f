/**
 * The plugin's options, as users pass them to `protoMcp(options)`.
 */
import type { FilterPattern } from '@rollup/pluginutils'
import type { Profile } from '../codegen/index.ts'

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
   * `'topeka'`: exactly the tools the Topeka generators (protoc-gen-go-mcp)
   * produce; `'default'`: with this project's extensions (portable 64-bit
   * and well-known-type schemas, `outputSchema`).
   * @default 'default'
   */
  profile?: Profile
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
}
