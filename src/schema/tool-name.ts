/**
 * Tool names (docs/mapping.md, "Tool names"): which name an RPC's tool gets, and the
 * shortening of names the strictest clients would reject.
 */
import { createHash } from 'node:crypto'

/** What the strictest MCP clients accept as a tool name. */
export const TOOL_NAME_RE = /^[A-Za-z0-9_-]{1,64}$/
/**
 * What `portable` and `strict` tool names match: Cursor refuses any
 * character but letters, digits and `_` ("Tool name must only contain
 * alphanumeric characters and underscores").
 */
export const PORTABLE_TOOL_NAME_RE = /^[A-Za-z0-9_]{1,64}$/
/**
 * The default budget for `server name + tool name`: Claude Code's
 * `mcp__<server>__<tool>` reference holds 64 characters, 7 of them its own.
 */
export const DEFAULT_TOOL_NAME_BUDGET = 57

/** The longest tool name {@link TOOL_NAME_RE} accepts. */
export const TOOL_NAME_MAX_LENGTH = 64
/** Length of the hash prefix of a shortened name. */
export const TOOL_NAME_HASH_LENGTH = 10
/** How many characters of the name's end a shortened name keeps (64 - 10 - 1 for the `_`). */
export const TOOL_NAME_TAIL_LENGTH = TOOL_NAME_MAX_LENGTH - TOOL_NAME_HASH_LENGTH - 1

const TOOL_NAME_BAD_CHAR_RE = /[^A-Za-z0-9_-]/g
const PORTABLE_BAD_CHAR_RE = /[^A-Za-z0-9_]/g
// 2^64 - 1 has 13 digits in base 36: padding to 13 makes the prefix's length fixed.
const HASH_DIGITS = 13

/** An RPC as the `toolNames` function receives it. */
export interface RpcName {
  /** The service's short name (`VibeService`). */
  service: string
  /** The RPC's name as written (`SetVibe`). */
  method: string
  /** The proto package ('' when none) (`examples.v1`). */
  package: string
  /** The RPC's full name (`examples.v1.VibeService.SetVibe`). */
  fullName: string
}

/**
 * How tools are named: `'method'` → `SetVibe`, `'service'` →
 * `VibeService_SetVibe`, `'qualified'` → `examples_v1_VibeService_SetVibe`,
 * or a function of the RPC.
 */
export type ToolNames = 'method' | 'service' | 'qualified' | ((rpc: RpcName) => string)

/** How tools are named when the `toolNames` option is not given: by the RPC's name. */
export const DEFAULT_TOOL_NAMES = 'method'

/**
 * The name `mode` gives `rpc`, before any shortening. `method` is the RPC's
 * part of the built-in modes (the `topeka` profile passes its Go name); a
 * function always receives the RPC as written.
 */
export function nameTool(rpc: RpcName, mode: ToolNames = DEFAULT_TOOL_NAMES, method: string = rpc.method): string {
  if (typeof mode === 'function') return String(mode(rpc))
  if (mode === 'service') return `${rpc.service}_${method}`
  if (mode === 'qualified') return [...(rpc.package ? rpc.package.split('.') : []), rpc.service, method].join('_')
  return method
}

const isAsciiLower = (c: string | undefined): boolean => c !== undefined && c >= 'a' && c <= 'z'
const isAsciiDigit = (c: string): boolean => c >= '0' && c <= '9'

/**
 * The Go name protoc-gen-go gives a proto identifier (protogen's `GoName`,
 * Go protobuf's `GoCamelCase`), which the Go MCP generator names its tools
 * by: a word (a letter and the lowercase run after it) starts upper case,
 * an `_` or `.` before a lowercase letter is dropped, another `.` becomes
 * `_`, a leading `_` (or one after a `.`) becomes `X`, digits and other
 * characters stay. `get_vibe` → `GetVibe`, `monitorHealth` →
 * `MonitorHealth`, `double__under` → `Double_Under`, `_x` → `XX`.
 */
export function goCamelCase(name: string): string {
  let out = ''
  for (let i = 0; i < name.length; i++) {
    const c = name[i]!
    if (c === '.') {
      if (!isAsciiLower(name[i + 1])) out += '_'
    } else if (c === '_' && (i === 0 || name[i - 1] === '.')) {
      // So that the name starts with a capital letter (after a `.` too, as Go always did).
      out += 'X'
    } else if (c === '_' && isAsciiLower(name[i + 1])) {
      // Dropped: the next word starts upper case instead.
    } else if (isAsciiDigit(c)) {
      out += c
    } else {
      out += isAsciiLower(c) ? c.toUpperCase() : c
      while (isAsciiLower(name[i + 1])) out += name[++i]
    }
  }
  return out
}

/**
 * `name` itself when it matches {@link TOOL_NAME_RE}; otherwise a name that
 * does: the first 8 bytes of the SHA-256 of the name's UTF-8 bytes, read as
 * an unsigned big-endian integer, written in lowercase base 36, zero-padded
 * to 13 digits, of which the first 10; then `_`; then the name's last 53
 * characters (UTF-16 code units) with each one outside `[A-Za-z0-9_-]`
 * replaced by `_`. At most 64 characters; distinct names stay distinct
 * unless their hashes' prefixes collide. `portable` also refuses `-`;
 * `maxLength` (at most 64) shortens further, for a name budget.
 */
export function shortenToolName(name: string, portable = false, maxLength = TOOL_NAME_MAX_LENGTH): string {
  const max = Math.max(TOOL_NAME_HASH_LENGTH + 2, Math.min(maxLength, TOOL_NAME_MAX_LENGTH))
  const re = portable ? PORTABLE_TOOL_NAME_RE : TOOL_NAME_RE
  if (re.test(name) && name.length <= max) return name
  const bad = portable ? PORTABLE_BAD_CHAR_RE : TOOL_NAME_BAD_CHAR_RE
  const digest = createHash('sha256').update(name, 'utf8').digest()
  const prefix = digest.readBigUInt64BE(0).toString(36).padStart(HASH_DIGITS, '0').slice(0, TOOL_NAME_HASH_LENGTH)
  const tail = name.slice(-(max - TOOL_NAME_HASH_LENGTH - 1)).replace(bad, '_')
  return `${prefix}_${tail}`
}
