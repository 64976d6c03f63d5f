/**
 * The one option checker: an options object is checked where it is given,
 * and an unknown key or a wrong value throws one line naming the option,
 * what it got and what it accepts. Each stage injects its own error (the
 * runtime a `BAD_OPTION` runtime error, the plugin a plain `Error`).
 */
import { nearestName } from './nearest.ts'
import { showValue } from './show-value.ts'
import { isRecord } from './is-record.ts'

/** What one option accepts: a description for the message and the test. */
export interface OptionRule {
  /** What the option accepts, as the message says it (`an integer from 0 to 65535`). */
  accepts: string
  test: (value: unknown) => boolean
  /**
   * The value the code uses when the option is not given (the constant it
   * applies), where there is one: the docs' option tables show it, and
   * test/option-docs.test.ts holds them to it.
   */
  default?: unknown
}

/** Makes the error an option check throws from its message. */
export type OptionErrorFactory = (message: string) => Error

const plainError: OptionErrorFactory = (message) => new Error(message)

/**
 * Throws `error(message)` for `options` that are not an object, or for the
 * first key that `rules` lacks or whose value fails its rule; `undefined`
 * options and values count as not given. `where` names the call
 * (`serveHttp()`, `unplugin-proto-mcp`).
 */
export function checkOptions(
  where: string,
  options: unknown,
  rules: Readonly<Record<string, OptionRule>>,
  error: OptionErrorFactory = plainError,
): void {
  if (options === undefined) return
  if (!isRecord(options)) {
    throw error(`${where}: options must be an object, got ${showValue(options)}`)
  }
  for (const [key, value] of Object.entries(options)) {
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined
    if (rule === undefined) {
      const near = nearestName(key, Object.keys(rules))
      const guess = near === undefined ? '' : ` (did you mean "${near}"?)`
      throw error(`${where}: unknown option "${key}"${guess}: the options are ${Object.keys(rules).join(', ')}`)
    }
    if (value !== undefined && !rule.test(value)) throw error(`${where}: option "${key}" must be ${rule.accepts}, got ${showValue(value)}`)
  }
}

/** A rule: an integer from `min` to `max`. */
export const integerRule = (min: number, max: number = Number.MAX_SAFE_INTEGER): OptionRule => ({
  accepts: max === Number.MAX_SAFE_INTEGER ? `an integer of at least ${min}` : `an integer from ${min} to ${max}`,
  test: (v) => Number.isSafeInteger(v) && (v as number) >= min && (v as number) <= max,
})

/** A rule: an array of non-empty strings. */
export const stringsRule: OptionRule = {
  accepts: 'an array of non-empty strings',
  test: (v) => Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== ''),
}

/** A rule: a non-empty string. */
export const stringRule: OptionRule = { accepts: 'a non-empty string', test: (v) => typeof v === 'string' && v !== '' }

/** A rule: a path starting with `/`. */
export const pathRule: OptionRule = { accepts: 'a path starting with "/"', test: (v) => typeof v === 'string' && v.startsWith('/') }

/** A rule: `true` or `false`. */
export const booleanRule: OptionRule = { accepts: 'true or false', test: (v) => typeof v === 'boolean' }
