// Redirect URIs a client may register: `https://`, or `http://` on a loopback host
// (a native app or CLI listening locally). No fragment (RFC 6749 §3.1.2). They are compared
// exactly, character for character, at the authorize and token endpoints.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])

/** Why a redirect URI cannot be registered, or null when it can. */
export function redirectUriProblem(value: string): string | null {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'must be an absolute URL'
  }
  if (value.includes('#')) return 'must not contain a fragment'
  if (url.username || url.password) return 'must not contain credentials'
  if (url.protocol === 'https:') return null
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null
  return 'must be https:// or http:// on a loopback host (127.0.0.1, localhost)'
}
