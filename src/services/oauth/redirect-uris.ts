// Redirect URIs a client may register: `https://`, or `http://` on a loopback host
// (a native app or CLI listening locally). No fragment (RFC 6749 §3.1.2). They are compared
// exactly, character for character, at the authorize and token endpoints.

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]'])
// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** Why a redirect URI cannot be registered, or null when it can. */
export function redirectUriProblem(value: string): string | null {
  // The URL parser drops or escapes these, but the URI is stored and compared as given.
  if (CONTROL.test(value)) return 'must not contain control characters'
  if (!value.isWellFormed()) return 'must be valid Unicode (it holds an unpaired surrogate)'
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
