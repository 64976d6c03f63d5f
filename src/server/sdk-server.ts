/**
 * The SDK side of a proto server: a factory of low-level SDK `Server`
 * instances (one per connection or HTTP request) whose `tools/list` and
 * `tools/call` answer from a tool table built once.
 */
import { ProtocolError, ProtocolErrorCode, Server as SdkServer } from '@modelcontextprotocol/server'
import type { CallToolResult, McpServerFactory, ServerContext, jsonSchemaValidator } from '@modelcontextprotocol/server'
import type { CallContext, ToolResult } from '../runtime/types.ts'

/** A tool as `tools/list` shows it. */
export interface ListedTool {
  name: string
  description: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  [key: string]: unknown
}

/** What the SDK side needs from a server: its identity, its listing, and its dispatcher. */
export interface ServingCore {
  readonly info: { name: string; version: string }
  /** The `tools/list` result, built once. */
  readonly listResult: { tools: ListedTool[] }
  /** The advertised output schema of a tool (for the SDK's result projection). */
  outputSchemaOf(name: string): Record<string, unknown> | undefined
  /** Runs a tool call; throws a `-32602` protocol error for an unknown tool. */
  dispatch(name: string, args: unknown, context: CallContext): Promise<ToolResult>
}

/** Counters a serving transport reports when it ends. */
export interface ServeStats {
  requests: number
  toolCalls: number
  errors: number
}

// Tool arguments are validated by our precompiled validators with our texts;
// this keeps the SDK from building an Ajv of its own per instance.
const PASS_THROUGH: jsonSchemaValidator = {
  getValidator: () => (input: unknown) => ({ valid: true, data: input as never, errorMessage: undefined }),
}

/** The JSON-RPC `-32602` error of a tool this server does not have. */
export function unknownToolError(name: string): ProtocolError {
  return new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${name} not found`)
}

function callContext(name: string, ctx: ServerContext): CallContext {
  return {
    tool: name,
    signal: ctx.mcpReq.signal,
    authInfo: ctx.http?.authInfo,
    meta: ctx.mcpReq._meta as Record<string, unknown> | undefined,
  }
}

/**
 * A factory for `serveStdio` and `createMcpHandler`. Cheap per call: the
 * listing and the tool table are shared, only the SDK instance is new.
 */
export function sdkServerFactory(core: ServingCore, stats?: ServeStats): McpServerFactory {
  const options = { capabilities: { tools: {} }, jsonSchemaValidator: PASS_THROUGH }
  const list = (): { tools: ListedTool[] } => core.listResult
  return () => {
    const server = new SdkServer(core.info, options)
    server.setRequestHandler('tools/list', list as never)
    server.setRequestHandler('tools/call', async (request, ctx) => {
      const { name, arguments: args } = request.params
      if (stats) stats.toolCalls++
      const result = await core.dispatch(name, args, callContext(name, ctx))
      if (stats && result.isError) stats.errors++
      return server.projectCallToolResult(result as CallToolResult, core.outputSchemaOf(name))
    })
    return server
  }
}
