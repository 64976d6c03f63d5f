/**
 * Ambient types for `?mcp` imports (`unplugin-proto-mcp/client`). Add
 * `"types": ["unplugin-proto-mcp/client"]` to a tsconfig, or
 * `/// <reference types="unplugin-proto-mcp/client" />` to a file, and
 * `import server from './vibe.proto?mcp'` type-checks. The plugin's `dts`
 * option writes per-proto declarations that take precedence over this one.
 */
declare module '*.proto?mcp' {
  /** The proto's MCP server: `implement(service, impl)`, then `serveStdio()` or `serveHttp()`. */
  const server: import('unplugin-proto-mcp/runtime').Server
  export default server

  /** One entry per tool: its schemas, the RPC it calls and its precompiled validator. */
  export const tools: readonly import('unplugin-proto-mcp/codegen-v1').ProtoToolSpec[]

  /** The protobufjs JSON descriptor of every type the tools reach. */
  export const descriptor: import('unplugin-proto-mcp/codegen-v1').ProtoServerSpec['descriptor']
}
