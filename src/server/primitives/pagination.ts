/**
 * Cursor pagination of the list methods (`tools/list`, `resources/list`,
 * `resources/templates/list`, `prompts/list`): a page of the current
 * snapshot and an opaque cursor to the next one.
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import { runtimeError } from '../../runtime/errors.ts'
import { fromBase64url, toBase64url } from '../base/base64url.ts'

const CURSOR_RE = /^o(\d{1,9})$/

/** The opaque cursor of the page starting at `offset`. */
function cursorOf(offset: number): string {
  return toBase64url(`o${offset}`)
}

/** The offset a cursor stands for; `-32602` for one this server did not give. */
function offsetOf(cursor: string): number {
  const match = CURSOR_RE.exec(fromBase64url(cursor) ?? '')
  if (match === null)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `invalid cursor ${JSON.stringify(cursor)}: pass a nextCursor this server returned`,
    )
  return Number(match[1])
}

/**
 * One page of `items` from `cursor` (the first page without one), with
 * `nextCursor` when more follow. Without a page size every item is on one
 * page. A cursor past the end (the list shrank) gives an empty last page.
 */
export function page<T>(items: readonly T[], cursor: unknown, pageSize: number | undefined): { items: T[]; nextCursor?: string } {
  if (cursor !== undefined && typeof cursor !== 'string')
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'invalid cursor: it must be a string')
  const start = cursor === undefined ? 0 : offsetOf(cursor)
  if (pageSize === undefined) return { items: start === 0 ? [...items] : items.slice(start) }
  const end = start + pageSize
  const slice = items.slice(start, end)
  return end < items.length ? { items: slice, nextCursor: cursorOf(end) } : { items: slice }
}

/** Checks a page size option: a positive integer. */
export function checkPageSize(size: unknown): number {
  if (typeof size !== 'number' || !Number.isInteger(size) || size < 1) {
    throw runtimeError('BAD_SPEC', `pageSize must be a positive integer, got ${JSON.stringify(size)}`)
  }
  return size
}
