/**
 * `Server`: the default export of a `?mcp` module. It holds the proto's
 * tools, binds backends, calls tools in process, and serves them over
 * stdio and Streamable HTTP with the MCP SDK.
 */
import { callProtoTool } from '../runtime/pipeline.ts'
import { bindImplementation, compileToolTable, type ToolTable } from '../runtime/tool-table.ts'
import type { CallContext, ProtoServerSpec, ServiceImplementation, ToolResult } from '../runtime/types.ts'
import { serveCoreHttp, type HttpHandle, type ServeHttpOptions } from './http.ts'
import { unknownToolError, type ListedTool, type ServingCore } from './sdk-server.ts'
import { serveCoreStdio, type ServeReport, type ServeStdioOptions } from './stdio.ts'

export type { HttpHandle, ServeHttpOptions } from './http.ts'
export type { ListedTool } from './sdk-server.ts'
export type { ServeReport, ServeStdioOptions } from './stdio.ts'
export { MAX_BODY_BYTES } from './limits.ts'

const INSPECT = Symbol.for('nodejs.util.inspect.custom')

function listedTool(tool: ProtoServerSpec['tools'][number], structured: boolean): ListedTool {
  const listed: ListedTool = { name: tool.name, description: tool.description, inputSchema: tool.inputSchema }
  if (structured && tool.outputSchema) listed.outputSchema = tool.outputSchema
  return listed
}

/**
 * An MCP server of a proto's tools. Build one with `createProtoServer(spec)`.
 * `S` maps service names (short and full) to their implementation types, as
 * generated declarations spell them; untyped, any object is accepted.
 */
export class Server<S extends Record<string, object> = Record<string, object>> {
  /** `serverInfo.name`. */
  readonly name: string
  /** `serverInfo.version`. */
  readonly version: string
  readonly #table: ToolTable
  readonly #core: ServingCore

  /** Builds the tool table once; prefer `createProtoServer(spec)`. */
  constructor(spec: ProtoServerSpec) {
    this.name = spec.name
    this.version = spec.version
    const table = compileToolTable(spec)
    this.#table = table
    const structured = spec.profile !== 'topeka'
    const listResult = { tools: spec.tools.map((tool) => listedTool(tool, structured)) }
    const outputSchemas = new Map(listResult.tools.map((t) => [t.name, t.outputSchema]))
    this.#core = {
      info: { name: spec.name, version: spec.version },
      listResult,
      outputSchemaOf: (name) => outputSchemas.get(name),
      dispatch: (name, args, context) => {
        const tool = table.byName.get(name)
        if (tool === undefined) return Promise.reject(unknownToolError(name))
        return callProtoTool(tool, args, context)
      },
    }
  }

  /**
   * Binds an in-process implementation of a service, given by short
   * (`VibeService`) or full name (`examples.v1.VibeService`). Its methods are
   * keyed by RPC name (`SetVibe`) or lowerCamel (`setVibe`), each
   * `(request, context) => response | Promise<response>`. Throws on an
   * unknown service or method name. Binding again replaces the backend.
   */
  implement<K extends keyof S & string>(service: K, impl: Partial<S[K]> & ServiceImplementation): this {
    bindImplementation(this.#table, service, impl)
    return this
  }

  /** The tools as clients list them (`name`, `description`, `inputSchema`, `outputSchema` in the default profile). */
  listTools(): ListedTool[] {
    return this.#core.listResult.tools.map((tool) => ({ ...tool }))
  }

  /**
   * Calls a tool in process: the same result as over the wire. An unknown
   * tool rejects with a protocol error whose `code` is `-32602`.
   */
  call(name: string, args?: unknown, context?: Partial<CallContext>): Promise<ToolResult> {
    return this.#core.dispatch(name, args, { ...context, tool: name })
  }

  /** Serves on stdio until stdin closes, answering both protocol eras; resolves with a report. */
  serveStdio(options?: ServeStdioOptions): Promise<ServeReport> {
    return serveCoreStdio(this.#core, options)
  }

  /** Serves Streamable HTTP (default `http://127.0.0.1:3000/mcp`); resolves once listening. */
  serveHttp(options?: ServeHttpOptions): Promise<HttpHandle> {
    return serveCoreHttp(this.#core, options)
  }

  /** `Server(name@version, N tools)`. */
  toString(): string {
    const n = this.#table.tools.length
    return `Server(${this.name}@${this.version}, ${n} ${n === 1 ? 'tool' : 'tools'})`
  }

  /** Printing a server shows its name, version and tool count only. */
  [INSPECT](): string {
    return this.toString()
  }
}

/** Builds the `Server` of a generated `?mcp` module from its spec. */
export function createProtoServer<S extends Record<string, object> = Record<string, object>>(spec: ProtoServerSpec): Server<S> {
  return new Server<S>(spec)
}
