/**
 * gRPC status codes with grpc-go's names, and the status text tool errors
 * carry (docs/calls.md, "Errors"): `rpc error: code = NotFound desc = vibe not found`.
 */

/** grpc-go's code names, indexed by the numeric code. */
export const STATUS_NAMES = [
  'OK',
  'Canceled',
  'Unknown',
  'InvalidArgument',
  'DeadlineExceeded',
  'NotFound',
  'AlreadyExists',
  'PermissionDenied',
  'ResourceExhausted',
  'FailedPrecondition',
  'Aborted',
  'OutOfRange',
  'Unimplemented',
  'Internal',
  'Unavailable',
  'DataLoss',
  'Unauthenticated',
] as const

/** One of grpc-go's status code names. */
export type StatusName = (typeof STATUS_NAMES)[number]

const CODE_BY_KEY = new Map<string, number>()
STATUS_NAMES.forEach((name, code) => {
  CODE_BY_KEY.set(name.toLowerCase(), code)
  // grpc-js and the other ecosystems spell them NOT_FOUND, CANCELLED.
  CODE_BY_KEY.set(name.replace(/(?<=[a-z])(?=[A-Z])/g, '_').toLowerCase(), code)
})
CODE_BY_KEY.set('cancelled', 1)

/** The numeric code of a status given as a number or a name (grpc-go `NotFound` or `NOT_FOUND`); `undefined` if it is neither. */
export function statusCode(code: unknown): number | undefined {
  if (typeof code === 'number') return Number.isInteger(code) && code >= 0 && code <= 16 ? code : undefined
  if (typeof code === 'string') return CODE_BY_KEY.get(code.toLowerCase())
  return undefined
}

/** grpc-go's status text: `rpc error: code = <Name> desc = <message>`. */
export function statusText(code: number, message: string): string {
  return `rpc error: code = ${STATUS_NAMES[code] ?? 'Unknown'} desc = ${message}`
}

/** Reads `key` of a thrown value; a throwing getter or proxy trap reads as `undefined`. */
function read(value: object, key: string): unknown {
  try {
    return (value as Record<string, unknown>)[key]
  } catch {
    return undefined
  }
}

/** `String(value)`, or `[object Object]` for values that cannot be converted (no prototype, a throwing `toString`, a revoked proxy). */
function stringOf(value: unknown): string {
  try {
    return String(value)
  } catch {
    return '[object Object]'
  }
}

/**
 * The status text for anything a backend threw or rejected with: an error
 * carrying a `code` (number or name) keeps it, anything else is `Unknown`.
 * A grpc-js `ServiceError` (numeric code, `details`) reports its `details`.
 * A status without a message has an empty desc. Never throws, whatever
 * was thrown.
 */
export function errorStatusText(error: unknown): string {
  if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
    const rawCode = read(error, 'code')
    const code = statusCode(rawCode)
    const message = read(error, 'message')
    if (code === undefined) return statusText(2, typeof message === 'string' ? message : stringOf(error))
    const details = typeof rawCode === 'number' ? read(error, 'details') : undefined
    return statusText(code, typeof details === 'string' ? details : typeof message === 'string' ? message : '')
  }
  return statusText(2, stringOf(error))
}

/**
 * An error with a gRPC status, for backends to throw:
 * `throw statusError('NotFound', 'vibe not found')`.
 */
export function statusError(code: number | StatusName, message: string): Error & { code: number } {
  const error = new Error(message) as Error & { code: number }
  error.name = 'StatusError'
  error.code = statusCode(code) ?? 2
  return error
}
