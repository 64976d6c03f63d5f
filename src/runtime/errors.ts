/**
 * The runtime's own errors: plain `Error`s with a `name` and a string `code`,
 * recognised by those (the runtime may be bundled twice, so no `instanceof`).
 */

/** Codes of errors the runtime and server throw at their callers. */
export type RuntimeErrorCode =
  | 'UNKNOWN_SERVICE'
  | 'SERVICE_AMBIGUOUS'
  | 'UNKNOWN_METHOD'
  | 'BAD_IMPLEMENTATION'
  | 'BAD_SPEC'
  | 'BAD_OPTION'
  | 'NODE_ONLY'
  | 'NOT_LOADED'
  | 'AUTH_UNAVAILABLE'

/** An error of the runtime: `name` is `ProtoMcpError`, `code` says which. */
export interface RuntimeError extends Error {
  name: 'ProtoMcpError'
  code: RuntimeErrorCode
}

/** Makes a runtime error with a lowercase, actionable message. */
export function runtimeError(code: RuntimeErrorCode, message: string, cause?: unknown): RuntimeError {
  const error = new Error(message, cause === undefined ? undefined : { cause }) as RuntimeError
  error.name = 'ProtoMcpError'
  error.code = code
  return error
}

/** Whether `error` is a runtime error (of the given code). */
export function isRuntimeError(error: unknown, code?: RuntimeErrorCode): error is RuntimeError {
  return (
    error !== null &&
    typeof error === 'object' &&
    (error as { name?: unknown }).name === 'ProtoMcpError' &&
    (code === undefined || (error as { code?: unknown }).code === code)
  )
}
