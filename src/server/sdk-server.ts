/**
 * The SDK side of a proto server: a factory of low-level SDK `Server`
 * instances (one per connection or HTTP request) whose `tools/list` and
 * `tools/call` answer from a tool table built once.
 */
import { ProtocolError, ProtocolErrorCode, Server as SdkServer } from '@modelcontextprotocol/server'
import type {
  CallToolResult, JSONRPCRequest, McpServerFactory, Result, ServerContext, jsonSchemaValidator,
} from '@modelcontextprotocol/server'
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

type RequestHandler = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>

/** `request` without `params.arguments` when it is `null` (runtime.md §1.1: null arguments are `{}`). */
function withoutNullArguments(request: JSONRPCRequest): JSONRPCRequest {
  const params = request.params as Record<string, unknown> | undefined
  if (params?.arguments !== null) return request
  const { arguments: _null, ...rest } = params
  return { ...request, params: rest }
}

/**
 * The SDK server of every transport. `tools/call` requests with
 * `"arguments": null` would fail the SDK's request schema (-32602) before
 * our handler runs; the SDK's `_wrapHandler` hook sees the raw request
 * first, so it drops the null there, once for stdio and HTTP, both eras.
 */
class ProtoSdkServer extends SdkServer {
  protected override _wrapHandler(method: string, handler: RequestHandler): RequestHandler {
    const wrapped = super._wrapHandler(method, handler)
    if (method !== 'tools/call') return wrapped
    return (request, ctx) => wrapped(withoutNullArguments(request), ctx)
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
    const server = new ProtoSdkServer(core.info, options)
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
