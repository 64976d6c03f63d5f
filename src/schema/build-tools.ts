/**
 * Model → one tool per unary (and, by default, server-streaming) RPC of the
 * imported file (mapping.md §1–§5).
 */
import type { JsonSchema, Profile } from './types.ts'
import type { ProtoModel } from '../proto/model.ts'
import { describeComment, splitName } from './describe.ts'
import { messageSchema } from './message-schema.ts'
import { sortKeys } from './sort-keys.ts'
import { goCamelCase, nameTool, shortenToolName, TOOL_NAME_RE } from './tool-name.ts'
import type { RpcName, ToolNames } from './tool-name.ts'
import { toolMetadata } from './tool-options.ts'
import type { ToolAnnotations, ToolMetadata } from './tool-options.ts'

/** Options of {@link buildTools}. */
export interface BuildToolsOptions {
  /**
   * `topeka`: exactly what the Topeka generators produce (no `outputSchema`);
   * `default`: with the extensions of mapping.md §5 (portable 64-bit
   * integers and `Value`/`ListValue`, `outputSchema`, required fields and
   * `buf.validate` rules, `(proto_mcp.tool)` metadata, server-streaming tools).
   * @default 'portable'
   */
  profile?: Profile
  /**
   * How tools are named (mapping §2): `'method'` → `SetVibe`, `'service'` →
   * `VibeService_SetVibe`, `'qualified'` → `examples_v1_VibeService_SetVibe`,
   * or a function of the RPC. A `(proto_mcp.tool).name` wins over it.
   * @default 'method'
   */
  toolNames?: ToolNames
}

/** One tool: its MCP-visible fields and the RPC it calls. */
export interface ToolSchema {
  /** The tool's name: by default the RPC's name as written, in the `topeka` profile its Go name (`get_vibe` → `GetVibe`). */
  name: string
  /** `(proto_mcp.tool).title`: a display name. */
  title?: string
  /** The RPC's normalised leading comment, or its name (in the `topeka` profile its Go name) split into words when it has none. */
  description: string
  /** MCP `ToolAnnotations` hints from `(proto_mcp.tool)` and `idempotency_level`. */
  annotations?: ToolAnnotations
  /** Schema of the request message; keys sorted. */
  inputSchema: JsonSchema
  /**
   * Schema of what protojson emits for the response message (for a
   * server-streaming RPC, `{"messages":[...]}` of them); only in the `default` profile.
   */
  outputSchema?: JsonSchema
  /** Full name of the service, no leading dot. */
  service: string
  /** The RPC's name as written. */
  method: string
  /** Full names of the request and response messages, no leading dot. */
  requestType: string
  responseType: string
  /** A server-streaming RPC: the tool collects the stream (default profile only). */
  serverStreaming?: true
}

/** What {@link buildTools} returns: the tools and the build's reports about them. */
export interface BuiltTools {
  /** In declaration order (services, then their methods). */
  tools: ToolSchema[]
  /** E.g. two services declaring the same RPC name (the last one wins, as in Topeka), a shortened name. */
  warnings: string[]
  /**
   * The verbose report: what the schemas leave out (`buf.validate` CEL and
   * other rules JSON Schema cannot say), one line each, deduplicated.
   */
  notes: string[]
}

/**
 * Builds the tools of the model's services, in declaration order, and the
 * warnings and notes about them. Unary RPCs get a tool; server-streaming
 * ones too in the default profile; client-streaming and bidi ones never.
 * When two RPCs get the same tool name, the last declaration wins (at its
 * own position) and a warning names both.
 */
export function buildTools(model: ProtoModel, options: BuildToolsOptions = {}): BuiltTools {
  const profile = options.profile ?? 'portable'
  const extended = profile !== 'topeka'
  const tools: ToolSchema[] = []
  const warnings: string[] = []
  const notes = new Set<string>()
  const note = (text: string): void => { notes.add(text) }
  for (const service of model.services) {
    for (const method of service.methods) {
      if (method.requestStream || (method.responseStream && !extended)) continue
      const meta: ToolMetadata = extended ? toolMetadata(method) : { hidden: false }
      if (meta.hidden) continue
      const rpc: RpcName = {
        service: service.name,
        method: method.name,
        package: model.packageName,
        fullName: `${service.fullName}.${method.name}`,
      }
      // The Go generator names a tool, and splits its fallback description from, the RPC's Go name.
      const rpcName = extended ? method.name : goCamelCase(method.name)
      const wanted = meta.name ?? nameTool(rpc, options.toolNames, rpcName)
      const name = extended ? shortenToolName(wanted) : wanted
      if (name !== wanted) {
        warnings.push(`tool name "${wanted}" of ${rpc.fullName} breaks ${TOOL_NAME_RE.source}; shortened to "${name}"`)
      } else if (!TOOL_NAME_RE.test(name)) {
        warnings.push(`tool name "${name}" of ${rpc.fullName} breaks ${TOOL_NAME_RE.source}; some clients will reject it`)
      }
      const tool: ToolSchema = {
        name,
        description: describeComment(method.comment) ?? splitName(rpcName),
        inputSchema: messageSchema(model, method.requestType, { profile, mode: 'input', note }),
        service: service.fullName,
        method: method.name,
        requestType: method.requestType,
        responseType: method.responseType,
      }
      if (meta.title !== undefined) tool.title = meta.title
      if (meta.annotations !== undefined) tool.annotations = meta.annotations
      if (extended) {
        const output = messageSchema(model, method.responseType, { profile, mode: 'output' })
        if (method.responseStream) {
          tool.serverStreaming = true
          tool.outputSchema = streamOutputSchema(output)
        }
        // MCP requires an object outputSchema and object structuredContent; a
        // response whose JSON form is not an object (Timestamp, a wrapper,
        // Value) is answered as text only.
        else if (output.type === 'object') tool.outputSchema = output
      }
      const clash = tools.findIndex(t => t.name === tool.name)
      if (clash >= 0) {
        const other = tools[clash]!
        warnings.push(`tool "${tool.name}" is declared by both ${other.service} and ${service.fullName}; `
          + `the one of ${service.fullName} wins`
          + (options.toolNames === undefined || options.toolNames === 'method'
            ? ' (set the toolNames option to \'service\' or \'qualified\' to keep both)'
            : ''))
        tools.splice(clash, 1)
      }
      tools.push(tool)
    }
  }
  return { tools, warnings, notes: [...notes] }
}

/**
 * The outputSchema of a server-streaming tool: `{"messages": [...]}` of the
 * response's output schema, whose `$defs` move to the root (their `$ref`s
 * are root-relative).
 */
function streamOutputSchema(response: JsonSchema): JsonSchema {
  const { $defs, ...items } = response
  const schema: JsonSchema = {
    type: 'object',
    properties: { messages: { type: 'array', items } },
    required: ['messages'],
  }
  if ($defs !== undefined) schema.$defs = $defs
  return sortKeys(schema)
}
