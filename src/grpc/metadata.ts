/**
 * gRPC metadata from an MCP call: the allow-listed request headers, and
 * the status of a grpc-js error with its details.
 */
import { Metadata } from '@grpc/grpc-js'
import type { Root } from 'protobufjs'
import { forwardedHeaders } from '../runtime/backend.ts'
import type { CallContext } from '../runtime/types.ts'
import { decodeStatusDetails, STATUS_DETAILS_KEY } from './status-details.ts'

/**
 * A grpc-js `Metadata` of the call's `allow`ed headers. A `-bin` header is
 * base64 (gRPC's own rule for binary metadata); a value metadata refuses
 * (a non-ASCII character) is left out rather than failing the call.
 */
export function metadataOf(context: CallContext, allow: readonly string[]): Metadata {
  const metadata = new Metadata()
  for (const [key, value] of forwardedHeaders(context, allow)) addSafely(metadata, key, value)
  return metadata
}

/** Adds `key: value` (base64 for a `-bin` key); a value metadata refuses is left out rather than failing the call. */
export function addSafely(metadata: Metadata, key: string, value: string): void {
  try {
    metadata.add(key, key.endsWith('-bin') ? Buffer.from(value, 'base64') : value)
  } catch {
    // An unforwardable value is not the backend's business: the call goes on without it.
  }
}

const isMetadata = (value: unknown): value is Metadata =>
  value !== null &&
  typeof value === 'object' &&
  typeof (value as Metadata).get === 'function' &&
  typeof (value as Metadata).getMap === 'function'

/** An error as the runtime reads a status: numeric `code`, `details` (the message), and `statusDetails` as JSON. */
export interface StatusError extends Error {
  code: number
  details: string
  metadata?: Metadata
  statusDetails?: unknown[]
}

/** grpc-js ends `Unavailable` texts with `. Resolution note: ` and the resolver's note, which is usually empty: an empty one goes. */
const withoutEmptyNote = (details: string): string => details.replace(/\.? Resolution note: $/, '')

/**
 * The status error of what a grpc-js call (or handler) failed with: the
 * code (anything else is Unknown), the message, and the details decoded from
 * the `grpc-status-details-bin` trailer against `root` and google.rpc.
 */
export function statusErrorOf(error: unknown, root?: Root): StatusError {
  const source = (error !== null && typeof error === 'object' ? error : {}) as {
    code?: unknown
    details?: unknown
    message?: unknown
    metadata?: unknown
  }
  const code = typeof source.code === 'number' && Number.isInteger(source.code) && source.code >= 0 && source.code <= 16 ? source.code : 2
  const details = withoutEmptyNote(
    typeof source.details === 'string'
      ? source.details
      : typeof source.message === 'string'
        ? source.message
        : error instanceof Error
          ? error.message
          : String(error),
  )
  const out = new Error(details) as StatusError
  out.name = 'StatusError'
  out.code = code
  out.details = details
  // By shape: the caller's grpc-js may be another copy than ours.
  if (isMetadata(source.metadata)) {
    out.metadata = source.metadata
    const statusDetails = source.metadata
      .get(STATUS_DETAILS_KEY)
      .flatMap((value) => (typeof value === 'string' ? [] : decodeStatusDetails(value, root)))
    if (statusDetails.length > 0) out.statusDetails = statusDetails
  }
  return out
}
