/**
 * google.rpc's standard error details (protos/google/rpc/error_details.proto)
 * and `Any` values as protobuf JSON, known type or not: what gRPC status
 * details (grpc/status-details.ts) and a long-running operation's error
 * (long-running.ts) read their details with.
 */
import type { Root, Type } from 'protobufjs'
import { loadProtobuf } from './load-protobuf.ts'
import { fromJson, loadRoot, toJson } from './protojson.ts'
import { isRecord } from '../contract/is-record.ts'

const s = (id: number) => ({ type: 'string', id })
const rs = (id: number) => ({ rule: 'repeated', type: 'string', id })
const msgs = (type: string, id: number) => ({ rule: 'repeated', type, id })

// google/rpc/status.proto and error_details.proto (both in protos/, test/grpc/rpc-details.test.ts holds them equal), so the
// standard details read as JSON without the user's proto having them.
const RPC_DESCRIPTOR = {
  nested: {
    google: {
      nested: {
        protobuf: {
          nested: {
            Any: { fields: { type_url: s(1), value: { type: 'bytes', id: 2 } } },
            Duration: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
          },
        },
        rpc: {
          nested: {
            Status: { fields: { code: { type: 'int32', id: 1 }, message: s(2), details: msgs('google.protobuf.Any', 3) } },
            ErrorInfo: { fields: { reason: s(1), domain: s(2), metadata: { keyType: 'string', type: 'string', id: 3 } } },
            RetryInfo: { fields: { retry_delay: { type: 'google.protobuf.Duration', id: 1 } } },
            DebugInfo: { fields: { stack_entries: rs(1), detail: s(2) } },
            QuotaFailure: {
              fields: { violations: msgs('Violation', 1) },
              nested: {
                Violation: {
                  oneofs: { _future_quota_value: { oneof: ['future_quota_value'] } },
                  fields: {
                    ...{ subject: s(1), description: s(2), api_service: s(3), quota_metric: s(4), quota_id: s(5) },
                    quota_dimensions: { keyType: 'string', type: 'string', id: 6 },
                    quota_value: { type: 'int64', id: 7 },
                    future_quota_value: { type: 'int64', id: 8, options: { proto3_optional: true } },
                  },
                },
              },
            },
            PreconditionFailure: {
              fields: { violations: msgs('Violation', 1) },
              nested: { Violation: { fields: { type: s(1), subject: s(2), description: s(3) } } },
            },
            BadRequest: {
              fields: { field_violations: msgs('FieldViolation', 1) },
              nested: {
                FieldViolation: {
                  fields: { field: s(1), description: s(2), reason: s(3), localized_message: { type: 'LocalizedMessage', id: 4 } },
                },
              },
            },
            RequestInfo: { fields: { request_id: s(1), serving_data: s(2) } },
            ResourceInfo: { fields: { resource_type: s(1), resource_name: s(2), owner: s(3), description: s(4) } },
            Help: { fields: { links: msgs('Link', 1) }, nested: { Link: { fields: { description: s(1), url: s(2) } } } },
            LocalizedMessage: { fields: { locale: s(1), message: s(2) } },
          },
        },
      },
    },
  },
}

let rpcRoot: Root | undefined
/** The google.rpc types (Status and the standard error details) as a root of their own. */
export const rpc = (): Root => (rpcRoot ??= loadRoot(RPC_DESCRIPTOR))

/** The type a type URL names (`type.googleapis.com/google.rpc.ErrorInfo`) in `root`, or `undefined`. */
function typeIn(root: Root | undefined, name: string): Type | undefined {
  if (root === undefined) return undefined
  try {
    const found = root.lookup(name)
    return found && 'fieldsArray' in found ? (found as Type) : undefined
  } catch {
    return undefined
  }
}

/** The type a type URL names in `root`, else in google.rpc's. */
const typeNamed = (root: Root | undefined, typeUrl: string): Type | undefined => {
  const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1)
  return typeIn(root, name) ?? typeIn(rpc(), name)
}

/**
 * One `Any` as protobuf JSON: `{"@type": url, ...fields}` when its type is
 * known (the server's proto, or google.rpc's error details), else
 * `{"@type": url, "value": <base64>}`.
 */
export function anyToJson(typeUrl: string, value: Uint8Array, root?: Root): Record<string, unknown> {
  const type = typeNamed(root, typeUrl)
  if (type !== undefined) {
    try {
      const json = toJson(type, type.decode(value))
      if (isRecord(json)) return { '@type': typeUrl, ...json }
      // Well-known types whose JSON is not an object sit under "value" (protobuf JSON's Any rule).
      return { '@type': typeUrl, value: json }
    } catch {
      // Undecodable bytes: fall through to the opaque form.
    }
  }
  return { '@type': typeUrl, value: loadProtobuf().protobuf.util.base64.encode(value, 0, value.length) }
}

const OPERATION = '.google.longrunning.Operation'

/**
 * Canonical protobuf JSON of a decoded `message` of `type`; an Operation's
 * error details read by {@link anyToJson}, since they may be of types no
 * proto of the server declares (google.rpc's, or unregistered ones).
 */
export function messageToJson(type: Type, message: object): unknown {
  const op = message as { error?: { details?: AnyMessage[] } }
  const details = op.error?.details
  if (type.fullName !== OPERATION || details === undefined || details.length === 0) return toJson(type, message)
  op.error!.details = []
  const json = toJson(type, message) as { error: { details?: unknown[] } }
  json.error.details = details.map((any) => anyToJson(any.type_url ?? '', any.value ?? new Uint8Array(), type.root))
  return json
}

/** A decoded `google.protobuf.Any`. */
export interface AnyMessage {
  type_url?: string
  value?: Uint8Array
}

/**
 * A detail as a handler gave it (JSON, `{"@type": url, ...fields}`) in
 * canonical protobuf JSON when its type is a message type `root` or
 * google.rpc knows; as given otherwise (an unregistered type, a well-known
 * type, fields that do not decode).
 */
export function detailJson(detail: unknown, root: Root): unknown {
  if (detail === null || typeof detail !== 'object') return detail
  const { '@type': typeUrl, ...fields } = detail as Record<string, unknown>
  if (typeof typeUrl !== 'string') return detail
  const type = typeNamed(root, typeUrl)
  if (type === undefined || type.fullName.startsWith('.google.protobuf.')) return detail
  try {
    return anyToJson(typeUrl, type.encode(fromJson(type, fields)).finish(), root)
  } catch {
    return detail
  }
}
