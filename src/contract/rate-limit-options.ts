/**
 * The options of `Server.rateLimit()` and `--rate-limit`
 * (docs/guide/production.md) and the rules they are checked by: here, with
 * no runtime import, so that the command parses its flags without loading the
 * server (server/operate/rate-limit.ts keeps the buckets).
 */
import type { OptionRule } from './check-options.ts'

/** One bucket: `rate` calls per second on average, up to `burst` at once. */
export interface RateBucket {
  /** Calls per second the bucket refills with (more than 0). */
  rate: number
  /** Calls the bucket holds when full (an integer of at least 1). @default the rate, rounded up */
  burst?: number
}

/** `Server.rateLimit()`: each limit as a bucket, or a number of calls per second. */
export interface RateLimitOptions {
  /** Per caller: the verified principal, else the session, else the client's address (stdio: the one client). */
  perCaller?: RateBucket | number
  /** Per tool, whoever calls it. */
  perTool?: RateBucket | number
  /** Every call this instance serves. */
  global?: RateBucket | number
}

/** Which limit refused a call. */
export type RateLimitName = keyof RateLimitOptions

const isRate = (v: unknown): boolean => typeof v === 'number' && Number.isFinite(v) && v > 0
const bucketRule: OptionRule = {
  accepts: 'a number of calls per second (more than 0) or { rate, burst } (rate more than 0, burst an integer of at least 1)',
  test: (v) =>
    isRate(v) ||
    (v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      Object.keys(v).every((k) => k === 'rate' || k === 'burst') &&
      isRate((v as RateBucket).rate) &&
      ((v as RateBucket).burst === undefined || (Number.isSafeInteger((v as RateBucket).burst) && (v as RateBucket).burst! >= 1))),
}

/** The option rules of `rateLimit()`. */
export const RATE_LIMIT_RULES: Record<RateLimitName, OptionRule> = { perCaller: bucketRule, perTool: bucketRule, global: bucketRule }
