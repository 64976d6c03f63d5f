/**
 * The rich status details of a gRPC error: the `grpc-status-details-bin`
 * trailer (a binary google.rpc.Status) as protobuf JSON `Any` values.
 */
import type { Root, Type } from 'protobufjs'
import { provideProtobuf } from '../runtime/load-protobuf.ts'
import { loadRoot, toJson } from '../runtime/protojson.ts'
import { loadProtobuf } from '../runtime/protobufjs.cjs'

// Every module of grpc/ reaches this one: their binding and encoding read reflected types synchronously.
provideProtobuf(loadProtobuf)

/** The trailer grpc-go, grpc-java and grpc-js servers put a google.rpc.Status in. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin'

const s = (id: number) => ({ type: 'string', id })
const rs = (id: number) => ({ rule: 'repeated', type: 'string', id })
const msgs = (type: string, id: number) => ({ rule: 'repeated', type, id })

// google/rpc/status.proto and error_details.proto, so the standard details read as JSON without the user's proto having them.
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
                Violation: { fields: { subject: s(1), description: s(2), api_service: s(3), quota_metric: s(4), quota_id: s(5) } },
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
const rpc = (): Root => (rpcRoot ??= loadRoot(RPC_DESCRIPTOR))

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

/**
 * One `Any` as protobuf JSON: `{"@type": url, ...fields}` when its type is
 * known (the server's proto, or google.rpc's error details), else
 * `{"@type": url, "value": <base64>}`.
 */
export function anyToJson(typeUrl: string, value: Uint8Array, root?: Root): Record<string, unknown> {
  const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1)
  const type = typeIn(root, name) ?? typeIn(rpc(), name)
  if (type !== undefined) {
    try {
      const json = toJson(type, type.decode(value))
      if (json !== null && typeof json === 'object' && !Array.isArray(json)) return { '@type': typeUrl, ...json }
      // Well-known types whose JSON is not an object sit under "value" (protobuf JSON's Any rule).
      return { '@type': typeUrl, value: json }
    } catch {
      // Undecodable bytes: fall through to the opaque form.
    }
  }
  return { '@type': typeUrl, value: Buffer.from(value).toString('base64') }
}

/**
 * The details of a binary google.rpc.Status as protobuf JSON values; `[]`
 * when the bytes are not one.
 */
export function decodeStatusDetails(bytes: Uint8Array, root?: Root): unknown[] {
  const status = rpc().lookupType('google.rpc.Status')
  let decoded: { details?: Array<{ type_url?: string; value?: Uint8Array }> }
  try {
    decoded = status.decode(bytes) as typeof decoded
  } catch {
    return []
  }
  return (decoded.details ?? []).map((any) => anyToJson(any.type_url ?? '', any.value ?? new Uint8Array(), root))
}

/** Encodes a google.rpc.Status (for tests and in-process handlers): details as `{ typeUrl, value }` pairs. */
export function encodeStatus(code: number, message: string, details: Array<{ typeUrl: string; value: Uint8Array }> = []): Uint8Array {
  const status = rpc().lookupType('google.rpc.Status')
  return status
    .encode(status.fromObject({ code, message, details: details.map((d) => ({ type_url: d.typeUrl, value: d.value })) }))
    .finish()
}

/** The reflected google.rpc error-detail type `name` (`ErrorInfo`, `BadRequest`, ...), for encoding details. */
export function rpcType(name: string): Type {
  return rpc().lookupType(`google.rpc.${name}`)
}
