/**
 * Step-up authorization (docs/serving.md, "Authorization", `auth.scopedTools`): a
 * `tools/call` of a tool whose scopes the verified token lacks is answered
 * `403` with `WWW-Authenticate: Bearer error="insufficient_scope",
 * scope="<what the call needs>"`, so the client asks for them, instead of
 * as an unknown tool. The gate marks the auth info it verified; every
 * handler reading a body asks here before the SDK sees the call (the fast
 * paths leave such a call to them).
 */
import { bearerAuthChallengeResponse, OAuthError, OAuthErrorCode } from '@modelcontextprotocol/server'
import type { ServerState } from '../serving/server-state.ts'
import { isVisible, scopesOf } from '../tools/tool-set.ts'

/** What a challenge for more scopes names: the scopes every request needs, and the metadata URL. */
export interface StepUp {
  readonly scopes: readonly string[]
  readonly metadataUrl: string
}

/** The auth info the gate verified with `scopedTools: 'step-up'`, with its challenge (a handler never sees the mark). */
const marked = new WeakMap<object, StepUp>()

/** Marks `info` (one request's auth info) as the gate's, to be challenged for a scoped tool. */
export function markStepUp<T extends object>(info: T, stepUp: StepUp): T {
  marked.set(info, stepUp)
  return info
}

/** The tool a JSON-RPC `message` calls, if it is a `tools/call` (in search mode, the one a `call_tool` names). */
const calledTool = (state: ServerState, message: unknown): string | undefined => {
  const m = message as { method?: unknown; params?: unknown } | null
  return m !== null && typeof m === 'object' && m.method === 'tools/call' ? state.calledTool(m.params) : undefined
}

/**
 * The `403` for `message` (a JSON-RPC message or a batch) when it calls a
 * tool that exists for this caller but for scopes its token lacks, else
 * `undefined`. A tool hidden for another reason (a feature that is off)
 * stays an unknown tool.
 */
export function stepUpRejection(state: ServerState, message: unknown, authInfo: unknown): Response | undefined {
  if (authInfo === null || typeof authInfo !== 'object' || !state.tools.gated) return undefined
  const stepUp = marked.get(authInfo)
  if (stepUp === undefined) return undefined
  const held = scopesOf(authInfo) ?? new Set<string>()
  for (const one of Array.isArray(message) ? message : [message]) {
    const name = calledTool(state, one)
    const needed = name === undefined ? undefined : state.tools.byName.get(name)?.requires?.scopes
    if (needed === undefined || needed.length === 0) continue
    const entry = state.tools.byName.get(name!)!
    if (isVisible(entry, held, state.features) || !isVisible(entry, new Set([...held, ...needed]), state.features)) continue
    // What this call needs (RFC 6750 §3.1, the MCP spec's step-up): the base scopes and the tool's; the client adds what it holds.
    const scopes = [...new Set([...stepUp.scopes, ...needed])]
    const error = new OAuthError(OAuthErrorCode.InsufficientScope, `tool "${name}" needs scope ${JSON.stringify(needed.join(' '))}`)
    return bearerAuthChallengeResponse(error, { requiredScopes: scopes, resourceMetadataUrl: stepUp.metadataUrl })
  }
  return undefined
}
