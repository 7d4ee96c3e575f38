import { randomBytes } from 'node:crypto'
import { safeEqual } from '../../lib/crypto'

// CSRF tokens as pages carry them: the session's token XOR a fresh random pad, pad included, so
// every page shows a different string for the same token. Pages are gzipped, and a secret that
// appears unchanged in every compressed answer next to text an attacker can influence is what
// BREACH recovers; a masked token never repeats. The raw token is accepted too.

export function maskToken(token: string): string {
  const raw = Buffer.from(token)
  const pad = randomBytes(raw.length)
  const masked = Buffer.alloc(raw.length)
  for (let i = 0; i < raw.length; i++) masked[i] = raw[i]! ^ pad[i]!
  return `${pad.toString('base64url')}.${masked.toString('base64url')}`
}

export function unmaskToken(carried: string): string | null {
  const dot = carried.indexOf('.')
  if (dot === -1) return carried
  const padText = carried.slice(0, dot)
  const maskedText = carried.slice(dot + 1)
  const pad = Buffer.from(padText, 'base64url')
  const masked = Buffer.from(maskedText, 'base64url')
  // Only the exact encoding: Buffer.from ignores stray characters and trailing bits.
  if (pad.length === 0 || pad.length !== masked.length) return null
  if (pad.toString('base64url') !== padText || masked.toString('base64url') !== maskedText) return null
  for (let i = 0; i < pad.length; i++) masked[i] = masked[i]! ^ pad[i]!
  return masked.toString()
}

/** Does the token a request carries (masked or raw) match the expected one? */
export function tokenMatches(carried: string | null, expected: string): boolean {
  if (!carried || !expected) return false
  const token = unmaskToken(carried)
  return token !== null && safeEqual(token, expected)
}
