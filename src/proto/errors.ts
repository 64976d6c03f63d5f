/**
 * Errors of the proto stage. Recognise them by `name`/`code` (see
 * {@link isProtoError}), never by `instanceof`.
 */

/** The `name` every error thrown by `loadProto` for a bad `.proto` carries. */
export const PROTO_ERROR_NAME = 'ProtoError'

/** What went wrong: unparsable text, an import not found, a type not found. */
export type ProtoErrorCode = 'PROTO_SYNTAX' | 'PROTO_IMPORT' | 'PROTO_TYPE'

/** An error pointing into a `.proto` file (1-based line and column). */
export interface ProtoError extends Error {
  name: typeof PROTO_ERROR_NAME
  code: ProtoErrorCode
  /** Absolute path of the `.proto` the problem is in. */
  file: string
  line: number
  column: number
  /** What is wrong, without the file and line the message wraps it in. */
  reason: string
  /** A `PROTO_IMPORT` of a file found nowhere: the import as written (the command says its own fix, `-I`). */
  missingImport?: string
  /**
   * Set by `loadProto`: absolute paths of every `.proto` read before it
   * failed (the erroring file too), sorted; watch them all so any edit rebuilds.
   */
  files?: string[]
}

/**
 * Creates a {@link ProtoError}: `cannot parse "<file>": <reason> (line N)`.
 */
export function protoError(code: ProtoErrorCode, file: string, line: number, column: number, reason: string, cause?: unknown): ProtoError {
  const error = new Error(`cannot parse "${file}": ${reason} (line ${line})`, cause === undefined ? undefined : { cause }) as ProtoError
  error.name = PROTO_ERROR_NAME
  error.code = code
  error.file = file
  error.line = line
  error.column = column
  error.reason = reason
  return error
}

/** `<file>:<line>:<column>: <reason>`, 1-based: the one place a ProtoError is, as editors and terminals link it. */
export function protoErrorAt(error: ProtoError, reason: string = error.reason): string {
  return `${error.file}:${error.line}:${error.column}: ${reason}`
}

/** Tells whether `value` is a {@link ProtoError} (by name, so it works across bundle copies). */
export function isProtoError(value: unknown): value is ProtoError {
  const candidate = value as Partial<ProtoError> | null
  return typeof candidate === 'object' && candidate !== null && candidate.name === PROTO_ERROR_NAME && typeof candidate.code === 'string'
}
