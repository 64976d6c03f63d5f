/**
 * Long-running RPCs (docs/mapping.md, "Long-running RPCs"): an RPC returning
 * `google.longrunning.Operation` with a `google.longrunning.operation_info`
 * option naming its response and metadata types. Its tool's output schema
 * is the response type's, and the server polls the operation to its end
 * (as a task, for a client that can take one).
 */
import type { LongRunning } from '../contract/index.ts'
import { protoError } from '../proto/errors.ts'
import type { MethodModel, ProtoModel } from '../proto/model.ts'

/** What a long-running RPC returns. */
export const OPERATION_TYPE = 'google.longrunning.Operation'

/** `(google.longrunning.operation_info)`: the `MethodOptions` extension of `google/longrunning/operations.proto`. */
export const OPERATION_INFO = 'google.longrunning.operation_info'

/**
 * The message `name` names from `scope` (a package), as protobuf resolves a
 * relative name: the innermost enclosing scope first; a leading dot is absolute.
 */
function resolveMessage(model: ProtoModel, name: string, scope: string): string | undefined {
  if (name.startsWith('.')) return model.messages.has(name.slice(1)) ? name.slice(1) : undefined
  const parts = scope === '' ? [] : scope.split('.')
  for (let i = parts.length; i >= 0; i--) {
    const candidate = [...parts.slice(0, i), name].join('.')
    if (model.messages.has(candidate)) return candidate
  }
  return undefined
}

/**
 * The response and metadata types of a long-running RPC (`scope`: its
 * service's package), or `undefined` for any other RPC (one returning an
 * `Operation` without the option is a plain RPC: its output is the
 * `Operation`). A type the option names that the proto lacks is an error
 * pointing at the RPC.
 */
export function longRunningOf(model: ProtoModel, method: MethodModel, scope: string): LongRunning | undefined {
  if (method.responseType !== OPERATION_TYPE) return undefined
  const info = method.customOptions[OPERATION_INFO] as { response_type?: unknown; metadata_type?: unknown } | undefined
  if (info === undefined || typeof info.response_type !== 'string' || info.response_type === '') return undefined
  const resolve = (key: 'response_type' | 'metadata_type', name: string): string => {
    const found = resolveMessage(model, name, scope)
    if (found !== undefined) return found
    const text = `rpc ${method.name}: (google.longrunning.operation_info).${key} "${name}" names no message the proto knows`
    throw method.loc ? protoError('PROTO_TYPE', method.loc.file, method.loc.line, method.loc.column, text) : new Error(text)
  }
  const responseType = resolve('response_type', info.response_type)
  const metadata =
    typeof info.metadata_type === 'string' && info.metadata_type !== '' ? resolve('metadata_type', info.metadata_type) : undefined
  return metadata === undefined ? { responseType } : { responseType, metadataType: metadata }
}
