/**
 * The run-time stages' option check: the contract's checker
 * (src/contract/check-options.ts) throwing `BAD_OPTION` runtime errors.
 */
import { checkOptions as checkWith, type OptionRule } from '../contract/check-options.ts'
import { runtimeError } from './errors.ts'

export { booleanRule, integerRule, pathRule, stringRule, stringsRule, type OptionRule } from '../contract/check-options.ts'
export { showValue } from '../contract/show-value.ts'

/**
 * Throws a `BAD_OPTION` runtime error for options that are not an object,
 * or for the first key that `rules` lacks or whose value fails its rule;
 * `undefined` values count as not given. `where` names the call (`serveHttp()`).
 */
export function checkOptions(where: string, options: unknown, rules: Readonly<Record<string, OptionRule>>): void {
  checkWith(where, options, rules, (message) => runtimeError('BAD_OPTION', message))
}
