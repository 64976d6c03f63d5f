/**
 * requestState sealing (docs/serving.md, "requestState"): the key (given, or 32 random
 * bytes from the first serve on), the SDK's HMAC codec bound to the
 * caller's principal and session, and the nonces of the states already
 * used, so each opens once.
 */
import { createRequestStateCodec, ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { RequestStateCodec } from '@modelcontextprotocol/server'
import { runtimeError } from '../../runtime/errors.ts'
import { toBase64url } from '../base/base64url.ts'
import { DEFAULT_REQUEST_STATE_TTL_S } from './limits.ts'
import { principalOf } from '../base/principal.ts'

/** What a `requestState` is bound to: the SDK context's auth info, headers and session, or a principal given directly (in process). */
export interface StateBinding {
  principal?: string
  sessionId?: string
  http?: { authInfo?: unknown; req?: { headers: Headers } }
}

/** The envelope payload of a `requestState`: the handler's payload, the tool, a nonce and the expiry (ms). */
interface SealedState {
  v: unknown
  t: string
  n: string
  e: number
}

/** Whether two requestState keys are the same bytes. */
function sameKey(a: Uint8Array | string, b: Uint8Array | string): boolean {
  const bytes = (key: Uint8Array | string): Uint8Array => (typeof key === 'string' ? new TextEncoder().encode(key) : key)
  const x = bytes(a)
  const y = bytes(b)
  return x.length === y.length && x.every((byte, i) => byte === y[i])
}

/** The requestState key of one server, its codec and its replay cache. */
export class RequestStateSeal {
  #key: Uint8Array | string | undefined
  #randomKey = false
  readonly #ttl: number | undefined
  #codec: RequestStateCodec | undefined
  /** Nonces of the requestStates already used, until they expire. */
  readonly #used = new Map<string, number>()

  /** `ttl`: seconds a sealed state stays valid. */
  constructor(key: Uint8Array | string | undefined, ttl: number | undefined) {
    this.#key = key
    this.#ttl = ttl
  }

  /** Whether the requestState key was given (a random one is not: no other instance has it). */
  get hasKey(): boolean {
    return this.#key !== undefined && !this.#randomKey
  }

  /** Sets the requestState key a transport was given (`where` names it); refused when states are sealed with another one. */
  useKey(key: Uint8Array | string, where: string): void {
    if (this.#key !== undefined && !sameKey(this.#key, key) && (this.#codec !== undefined || !this.#randomKey)) {
      throw runtimeError(
        'BAD_OPTION',
        `${where}: option "requestStateKey" differs from the key this server already seals requestState with`,
      )
    }
    this.#key = key
    this.#randomKey = false
  }

  /**
   * The requestState codec (HMAC, the SDK's), bound to the caller's
   * principal and session. Its key is the configured one or, from the first
   * serve on, 32 random bytes (Web Crypto: every runtime has it).
   */
  codec(): RequestStateCodec {
    if (this.#codec) return this.#codec
    if (this.#key === undefined) {
      this.#key = globalThis.crypto.getRandomValues(new Uint8Array(32))
      this.#randomKey = true
    }
    const bind = (ctx: StateBinding): string =>
      `${ctx.principal ?? principalOf(ctx.http?.authInfo, ctx.http?.req?.headers.get('authorization'))}\0${ctx.sessionId ?? ''}`
    this.#codec = createRequestStateCodec({
      key: this.#key,
      bind: bind as never,
      ...(this.#ttl === undefined ? {} : { ttlSeconds: this.#ttl }),
    })
    return this.#codec
  }

  /**
   * Seals `payload` into a `requestState` usable once, by `tool`, for the
   * caller and session of `binding`.
   */
  seal(payload: unknown, tool: string, binding: StateBinding): Promise<string> {
    const sealed: SealedState = {
      v: payload,
      t: tool,
      n: toBase64url(globalThis.crypto.getRandomValues(new Uint8Array(12))),
      e: Date.now() + (this.#ttl ?? DEFAULT_REQUEST_STATE_TTL_S) * 1000,
    }
    return this.codec().mint(sealed, binding as never)
  }

  /**
   * The payload of a verified `requestState` (the codec checked its MAC,
   * expiry, principal and session) if it was sealed for `tool` and was not
   * used before; throws the `-32602` of a bad state otherwise.
   */
  open(state: unknown, tool: string): unknown {
    const sealed = state as Partial<SealedState> | null
    const now = Date.now()
    // From the oldest use on, only while expired: every open costs a few steps, not the whole map.
    // (A state used late but sealed early may wait one TTL behind a younger one: the codec refuses it as expired meanwhile.)
    for (const [nonce, expires] of this.#used) {
      if (expires >= now) break
      this.#used.delete(nonce)
    }
    if (sealed === null || typeof sealed !== 'object' || sealed.t !== tool || typeof sealed.n !== 'string' || this.#used.has(sealed.n)) {
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, 'Invalid or expired requestState', { reason: 'invalid_request_state' })
    }
    this.#used.set(sealed.n, typeof sealed.e === 'number' ? sealed.e : now + DEFAULT_REQUEST_STATE_TTL_S * 1000)
    return sealed.v
  }
}
