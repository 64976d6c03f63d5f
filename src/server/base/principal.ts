/**
 * Who is calling: the principal a session and a `requestState` are bound
 * to. With auth info (verified by the `auth` option, from the transport,
 * or `req.auth` under `nodeHandler`), its `clientId` and subject (`extra.iss`
 * and `extra.sub`, else its client alone for a verified token without `sub`, else the token); without, the request's `Authorization` header; else nobody
 * (the same anonymous principal for every caller).
 */
type NodeCrypto = typeof import('node:crypto')

// A digest must be synchronous here (the requestState codec binds synchronously) and Web Crypto's is not:
// Node, Bun and Deno lend `node:crypto` through process.getBuiltinModule; on Workers the identity stays as it is, in memory only.
// Looked up on first digest, not at import: loading `node:crypto` costs every server start a few ms, and stdio has no caller to digest.
let nodeCrypto: NodeCrypto | null | undefined
const cryptoModule = (): NodeCrypto | null =>
  (nodeCrypto ??=
    ((globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.('node:crypto') as
      NodeCrypto | undefined) ?? null)

/** A digest of the caller's identity (`''` for an anonymous caller); never the token itself where the runtime has `node:crypto`. */
export function principalOf(authInfo: unknown, authorization: string | null | undefined): string {
  let identity: string
  if (authInfo !== null && typeof authInfo === 'object') {
    const info = authInfo as { clientId?: unknown; token?: unknown; extra?: { sub?: unknown; iss?: unknown } }
    // A verified token's principal (docs/serving.md, "Authorization") is its issuer, subject and client: a refreshed token stays the same caller.
    const issuer = typeof info.extra?.iss === 'string' ? info.extra.iss : ''
    const client = typeof info.clientId === 'string' ? info.clientId : ''
    // Without `sub`, a verified token acts for its client (the gate refuses one naming neither).
    const subject =
      typeof info.extra?.sub === 'string'
        ? `sub:${issuer}\0${info.extra.sub}`
        : typeof info.extra?.iss === 'string' && client !== ''
          ? `client:${issuer}`
          : `token:${String(info.token ?? '')}`
    identity = `auth\0${String(info.clientId ?? '')}\0${subject}`
  } else if (typeof authorization === 'string' && authorization !== '') {
    identity = `header\0${authorization}`
  } else {
    return ''
  }
  const crypto = cryptoModule()
  return crypto ? crypto.createHash('sha256').update(identity).digest('base64url') : `raw\0${identity}`
}
