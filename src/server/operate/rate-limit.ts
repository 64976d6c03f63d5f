/**
 * Rate limits of tool calls (`Server.rateLimit()`, `--rate-limit`;
 * docs/guide/production.md): token buckets per caller, per tool and for the
 * whole server, in this instance's memory (with a `cluster`, each instance
 * limits what reaches it).
 */
import { ProtocolError } from '@modelcontextprotocol/server'
import { checkOptions } from '../../runtime/check-options.ts'
import { RATE_LIMIT_RULES, type RateBucket, type RateLimitName, type RateLimitOptions } from '../../contract/rate-limit-options.ts'
import { countRejected } from '../../runtime/otel.ts'
import { calledToolOf } from './called-tool.ts'

export { RATE_LIMIT_RULES, type RateBucket, type RateLimitName, type RateLimitOptions } from '../../contract/rate-limit-options.ts'

/** Throws the option error naming the option that cannot work (0, negative, NaN, a bad burst). */
export function checkRateLimit(where: string, options: unknown): void {
  checkOptions(where, options, RATE_LIMIT_RULES)
}

interface Spec {
  rate: number
  burst: number
}

const specOf = (given: RateBucket | number | undefined): Spec | undefined => {
  if (given === undefined) return undefined
  const rate = typeof given === 'number' ? given : given.rate
  const burst = typeof given === 'number' ? undefined : given.burst
  return { rate, burst: burst ?? Math.max(1, Math.ceil(rate)) }
}

class Bucket {
  tokens: number
  at: number
  constructor(
    readonly spec: Spec,
    now: number,
  ) {
    this.tokens = spec.burst
    this.at = now
  }
  refill(now: number): void {
    this.tokens = Math.min(this.spec.burst, this.tokens + ((now - this.at) / 1000) * this.spec.rate)
    this.at = now
  }
  /** Milliseconds until one token is there (0 when there is one). */
  wait(): number {
    return this.tokens >= 1 ? 0 : Math.ceil(((1 - this.tokens) / this.spec.rate) * 1000)
  }
}

/** A refused call: which limit, and when to retry. */
export interface RateRefusal {
  readonly limit: RateLimitName
  readonly retryAfterMs: number
}

/** Buckets kept per key before the full ones (idle callers) are forgotten. */
const MAX_KEYS = 10_000

/** The buckets of one server. */
export class RateLimiter {
  readonly #specs: Partial<Record<RateLimitName, Spec>>
  readonly #callers = new Map<string, Bucket>()
  readonly #tools = new Map<string, Bucket>()
  #global: Bucket | undefined

  constructor(options: RateLimitOptions) {
    this.#specs = { perCaller: specOf(options.perCaller), perTool: specOf(options.perTool), global: specOf(options.global) }
  }

  /** Takes one call for `caller` to `tool` from every bucket, or none and says which refused (the longest wait). */
  take(caller: string, tool: string, now = performance.now()): RateRefusal | undefined {
    const buckets: Array<[RateLimitName, Bucket]> = []
    const { perCaller, perTool, global } = this.#specs
    if (perCaller) buckets.push(['perCaller', this.#bucket(this.#callers, caller, perCaller, now)])
    if (perTool) buckets.push(['perTool', this.#bucket(this.#tools, tool, perTool, now)])
    if (global) buckets.push(['global', (this.#global ??= new Bucket(global, now))])
    let refusal: RateRefusal | undefined
    for (const [limit, bucket] of buckets) {
      bucket.refill(now)
      const wait = bucket.wait()
      if (wait > 0 && (refusal === undefined || wait > refusal.retryAfterMs)) refusal = { limit, retryAfterMs: wait }
    }
    if (refusal !== undefined) {
      countRejected('rate_limit')
      return refusal
    }
    for (const [, bucket] of buckets) bucket.tokens -= 1
    return undefined
  }

  /** Gives back the call {@link take} took for `caller` to `tool` (one that then did not run: a batch refused later on). */
  giveBack(caller: string, tool: string): void {
    const { perCaller, perTool, global } = this.#specs
    const buckets = [perCaller && this.#callers.get(caller), perTool && this.#tools.get(tool), global && this.#global]
    for (const bucket of buckets) if (bucket) bucket.tokens = Math.min(bucket.spec.burst, bucket.tokens + 1)
  }

  #bucket(map: Map<string, Bucket>, key: string, spec: Spec, now: number): Bucket {
    let bucket = map.get(key)
    if (bucket === undefined) {
      if (map.size >= MAX_KEYS) forgetFull(map, now)
      map.set(key, (bucket = new Bucket(spec, now)))
    }
    return bucket
  }
}

/** Drops the buckets that refilled (their callers are idle: a new bucket would be the same). */
function forgetFull(map: Map<string, Bucket>, now: number): void {
  for (const [key, bucket] of map) {
    bucket.refill(now)
    if (bucket.tokens >= bucket.spec.burst) map.delete(key)
  }
}

const limiters = new WeakMap<object, RateLimiter>()

/** Sets (or, with `undefined`, removes) the rate limits of a server state. */
export function setRateLimit(state: object, options: RateLimitOptions | undefined): void {
  if (options === undefined || Object.values(options).every((v) => v === undefined)) limiters.delete(state)
  else limiters.set(state, new RateLimiter(options))
}

/** The rate limiter of a server state, when it has limits. */
export function rateLimiterOf(state: object): RateLimiter | undefined {
  return limiters.get(state)
}

/** A call's tool as its audit line names it: the tool it runs, and `via` the tool it was called through when another (`call_tool`). */
export function auditedTool(tool: string, params: { name?: unknown } | undefined): { tool: string; via?: string } {
  const asked = String(params?.name ?? '')
  return asked === tool ? { tool } : { tool, via: asked }
}

/** The JSON-RPC error code of a refused call (a server error, as HTTP's 429). */
export const RATE_LIMITED = -32029

/** The text of a refused call. */
export function rateLimitText(refusal: RateRefusal): string {
  return `rate limit exceeded (${refusal.limit}): retry after ${Math.ceil(refusal.retryAfterMs / 1000)} s`
}

/** The `tools/call`s of a JSON-RPC message or batch. */
function callsOf(message: unknown): Array<{ id?: unknown; params?: { name?: unknown; arguments?: unknown } }> {
  const isCall = (m: unknown): m is { id?: unknown; method: 'tools/call'; params?: { name?: unknown; arguments?: unknown } } =>
    m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'tools/call'
  return (Array.isArray(message) ? message : [message]).filter(isCall)
}

/** The HTTP answer to a request over a limit: `429`, `Retry-After` (seconds) and the JSON-RPC error as the body. */
export interface RateLimitAnswer {
  readonly status: 429
  readonly headers: Record<string, string>
  readonly body: string
  /** The refused call's tool, the tool it was called through (`call_tool`), and its arguments (its audit line). */
  readonly refused: { readonly tool: string; readonly via?: string; readonly arguments: unknown }
}

/**
 * Takes each `tools/call` of an HTTP request's body (a message or a batch)
 * for `caller` from the buckets of `state` (its `limiter`): the `429` answer
 * once one is over a limit (those before it given back, those after it
 * not taken: none of them runs), else `undefined`. Node HTTP and `fetch()`
 * both answer with it.
 */
export function rateLimitAnswer(state: object, limiter: RateLimiter, message: unknown, caller: () => string): RateLimitAnswer | undefined {
  const calls = callsOf(message)
  if (calls.length === 0) return undefined
  const key = caller()
  const taken: string[] = []
  for (const call of calls) {
    const tool = calledToolOf(state, call.params)
    const refusal = limiter.take(key, tool)
    if (refusal === undefined) {
      taken.push(tool)
      continue
    }
    // The whole request is refused: the calls before this one do not run either, and take nothing.
    for (const given of taken) limiter.giveBack(key, given)
    return {
      status: 429,
      headers: { 'content-type': 'application/json', 'retry-after': String(Math.ceil(refusal.retryAfterMs / 1000)) },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: typeof call.id === 'string' || typeof call.id === 'number' ? call.id : null,
        error: { code: RATE_LIMITED, message: rateLimitText(refusal), data: { limit: refusal.limit, retryAfterMs: refusal.retryAfterMs } },
      }),
      refused: { ...auditedTool(tool, call.params), arguments: call.params?.arguments },
    }
  }
  return undefined
}

/** The JSON-RPC error of a refused call (stdio): its retry time in `data`. */
export function rateLimitError(refusal: RateRefusal): ProtocolError {
  return new ProtocolError(RATE_LIMITED, rateLimitText(refusal), { limit: refusal.limit, retryAfterMs: refusal.retryAfterMs })
}
