/**
 * Model → one tool per unary RPC of the imported file (mapping.md §1–§5).
 */
import type { JsonSchema, Profile } from './types.ts'
import type { ProtoModel } from '../proto/model.ts'
import { describeComment, splitName } from './describe.ts'
import { messageSchema } from './message-schema.ts'

/** Options of {@link buildTools}. */
export interface BuildToolsOptions {
  /**
   * `topeka`: exactly what the Topeka generators produce (no `outputSchema`);
   * `default`: with the extensions of mapping.md §5 (portable 64-bit
   * integers and `Value`/`ListValue`, `outputSchema`).
   * @default 'default'
   */
  profile?: Profile
}

/** One tool: its MCP-visible fields and the RPC it calls. */
export interface ToolSchema {
  /** The RPC's name as written (mapping §2). */
  name: string
  /** The RPC's normalised leading comment, or its name split into words when it has none. */
  description: string
  /** Schema of the request message; keys sorted. */
  inputSchema: JsonSchema
  /** Schema of what protojson emits for the response message; only in the `default` profile. */
  outputSchema?: JsonSchema
  /** Full name of the service, no leading dot. */
  service: string
  /** The RPC's name as written. */
  method: string
  /** Full names of the request and response messages, no leading dot. */
  requestType: string
  responseType: string
}

/** What {@link buildTools} returns: the tools and the build warnings about them. */
export interface BuiltTools {
  /** In declaration order (services, then their methods). */
  tools: ToolSchema[]
  /** E.g. two services declaring the same RPC name (the last one wins, as in Topeka). */
  warnings: string[]
}

/**
 * Builds the tools of every unary RPC of the model's services, in
 * declaration order, and the warnings about them. Streaming RPCs get no
 * tool. When two services declare the same RPC name, the last declaration
 * wins (at its own position) and a warning names both.
 */
export function buildTools(model: ProtoModel, options: BuildToolsOptions = {}): BuiltTools {
  const profile = options.profile ?? 'default'
  const tools: ToolSchema[] = []
  const warnings: string[] = []
  for (const service of model.services) {
    for (const method of service.methods) {
      if (method.requestStream || method.responseStream) continue
      const tool: ToolSchema = {
        name: method.name,
        description: describeComment(method.comment) ?? splitName(method.name),
        inputSchema: messageSchema(model, method.requestType, { profile, mode: 'input' }),
        service: service.fullName,
        method: method.name,
        requestType: method.requestType,
        responseType: method.responseType,
      }
      if (profile !== 'topeka') {
        const output = messageSchema(model, method.responseType, { profile, mode: 'output' })
        // MCP requires an object outputSchema and object structuredContent; a
        // response whose JSON form is not an object (Timestamp, a wrapper,
        // Value) is answered as text only.
        if (output.type === 'object') tool.outputSchema = output
      }
      const clash = tools.findIndex(t => t.name === tool.name)
      if (clash >= 0) {
        warnings.push(`tool "${tool.name}" is declared by both ${tools[clash]!.service} and ${service.fullName}; `
          + `the one of ${service.fullName} wins`)
        tools.splice(clash, 1)
      }
      tools.push(tool)
    }
  }
  return { tools, warnings }
}
