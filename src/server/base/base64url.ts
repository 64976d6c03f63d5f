/**
 * base64url without `Buffer`, which Workers lack: `btoa`/`atob` are in
 * every runtime the server runs in.
 */

/** The unpadded base64url text of `bytes` (a `Uint8Array`, or a string of Latin-1 characters). */
export function toBase64url(bytes: Uint8Array | string): string {
  const binary = typeof bytes === 'string' ? bytes : String.fromCharCode(...bytes)
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/** The Latin-1 text of base64url `text`, or `undefined` when it is not base64url. */
export function fromBase64url(text: string): string | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined
  try {
    return atob(text.replace(/-/g, '+').replace(/_/g, '/'))
  } catch {
    return undefined
  }
}
