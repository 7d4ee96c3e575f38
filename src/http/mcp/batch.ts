import { isPlainObject } from '../../lib/plain-object'

// A JSON-RPC batch is many calls in one HTTP request. The door admits the credential (and takes
// one rate-limit token) per request; the rest of a batch's calls are counted here so each call
// pays its own token.

const OPEN_BRACKET = 0x5b
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d])

/**
 * The number of JSON-RPC messages (anything with a `method`) in a batch body; 1 for a single
 * message or a body that does not parse (the SDK answers its error).
 */
export function messagesIn(raw: Uint8Array): number {
  let i = 0
  while (i < raw.length && WHITESPACE.has(raw[i]!)) i++
  // A single message, the common case, is never parsed here.
  if (raw[i] !== OPEN_BRACKET) return 1
  let body: unknown
  try {
    body = JSON.parse(new TextDecoder().decode(raw))
  } catch {
    return 1
  }
  if (!Array.isArray(body)) return 1
  let n = 0
  for (const m of body) if (isPlainObject(m) && typeof m.method === 'string') n++
  return Math.max(1, n)
}
