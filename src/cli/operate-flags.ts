/**
 * The command's production flags (docs/guide/production.md): `--rate-limit
 * <limit>=<rate>[/<burst>]` (perCaller, perTool, global: calls per second,
 * burst a whole number of calls) and `--audit`, `--audit-arguments`.
 */
import { RATE_LIMIT_RULES, type RateBucket, type RateLimitOptions } from '../contract/rate-limit-options.ts'

/** A usage error's message for a `--rate-limit` value that cannot work, or the limits. */
export function rateLimitFlags(values: readonly string[] | undefined, fail: (message: string) => Error): RateLimitOptions | undefined {
  if (values === undefined || values.length === 0) return undefined
  const limits: Record<string, RateBucket> = {}
  for (const value of values) {
    const match = /^([A-Za-z]+)=([^/]+)(?:\/(.+))?$/.exec(value.trim())
    const name = match?.[1]
    if (match === null || name === undefined || !Object.hasOwn(RATE_LIMIT_RULES, name)) {
      throw fail(
        `--rate-limit must be perCaller, perTool or global =<calls per second>[/<burst>] (perCaller=10/20), got ${JSON.stringify(value)}`,
      )
    }
    const bucket: RateBucket = { rate: Number(match[2]), ...(match[3] === undefined ? {} : { burst: Number(match[3]) }) }
    if (!RATE_LIMIT_RULES[name as keyof RateLimitOptions].test(bucket)) {
      throw fail(
        `--rate-limit ${name} must be more than 0 calls per second, with a burst of a whole number of at least 1, got ${JSON.stringify(value)}`,
      )
    }
    // Given twice, one value would be dropped without a word.
    if (Object.hasOwn(limits, name)) throw fail(`--rate-limit ${name} is given twice: give each limit once`)
    limits[name] = bucket
  }
  return limits
}
