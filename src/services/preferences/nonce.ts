import { createHmac, timingSafeEqual } from 'node:crypto'

// The preference centre's form carries a nonce made when the page was rendered: an HMAC of the
// contact and the render time. A POST without a fresh one changes nothing, so a page elsewhere
// cannot submit the form blind, and a form left open for hours must be reloaded first.

/** How long a rendered form may be submitted. */
export const NONCE_TTL_MS = 4 * 60 * 60_000
/** A render time slightly ahead of this process's clock (another process, skew) is still fine. */
const SKEW_MS = 60_000

const mac = (key: Buffer, contactId: string, at: number) =>
  createHmac('sha256', key)
    .update(`herald preferences form|${contactId}|${at}`)
    .digest()
    .subarray(0, 16)
    .toString('base64url')

export const issueNonce = (key: Buffer, contactId: string, at: number): string =>
  `${at.toString(36)}.${mac(key, contactId, at)}`

/** True for a nonce this instance made for this contact within the last NONCE_TTL_MS. */
export function nonceValid(key: Buffer, contactId: string, nonce: string | null, now: number): boolean {
  const m = /^([0-9a-z]{1,11})\.([\w-]{22})$/.exec(nonce ?? '')
  if (!m) return false
  const at = Number.parseInt(m[1]!, 36)
  if (at > now + SKEW_MS || now - at > NONCE_TTL_MS) return false
  return timingSafeEqual(Buffer.from(mac(key, contactId, at)), Buffer.from(m[2]!))
}
