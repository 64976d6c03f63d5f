/**
 * The rich status details of a gRPC error: the `grpc-status-details-bin`
 * trailer (a binary google.rpc.Status) as protobuf JSON `Any` values.
 */
import type { Root, Type } from 'protobufjs'
import { provideProtobuf } from '../runtime/load-protobuf.ts'
import { anyToJson, rpc, type AnyMessage } from '../runtime/rpc-details.ts'
import { loadProtobuf } from '../runtime/protobufjs.cjs'

// Every module of grpc/ reaches this one: their binding and encoding read reflected types synchronously.
provideProtobuf(loadProtobuf)

/** The trailer grpc-go, grpc-java and grpc-js servers put a google.rpc.Status in. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin'

/**
 * The details of a binary google.rpc.Status as protobuf JSON values; `[]`
 * when the bytes are not one.
 */
export function decodeStatusDetails(bytes: Uint8Array, root?: Root): unknown[] {
  const status = rpc().lookupType('google.rpc.Status')
  let decoded: { details?: AnyMessage[] }
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
