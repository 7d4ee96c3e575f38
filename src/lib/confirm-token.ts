import { createHmac, timingSafeEqual } from 'node:crypto'
import { uuidBytes, uuidOf } from './tracking-token'

// The link in a double opt-in message: it names what the person subscribed through (a form, or a
// list for members added by the API) and the contact and when it was made,
// signed with a key of its own derived from the instance secret, so it can be neither forged
// nor read as any other kind of token. It expires (the verifier decides when).

const SIG_BYTES = 16
const PAYLOAD_BYTES = 1 + 16 + 16 + 8

/** What a confirmation was asked through: its lists are the ones confirmed. */
export type ConfirmVia = 'form' | 'list'
const VIA_BYTE: Record<ConfirmVia, number> = { form: 1, list: 2 }

const keys = new WeakMap<Uint8Array, Buffer>()

/** The key confirmation tokens are signed with, derived from the instance secret (once). */
export function confirmKey(secret: Uint8Array): Buffer {
  let key = keys.get(secret)
  if (!key) {
    key = createHmac('sha256', secret).update('herald form confirmation v1').digest()
    keys.set(secret, key)
  }
  return key
}

const sign = (key: Buffer, payload: Buffer) =>
  createHmac('sha256', key).update(payload).digest().subarray(0, SIG_BYTES)

export function encodeConfirmToken(key: Buffer, claims: ConfirmClaims): string {
  const at = Buffer.alloc(8)
  at.writeBigUInt64BE(BigInt(Math.max(0, Math.floor(claims.issuedAt))))
  const payload = Buffer.concat([
    Buffer.of(VIA_BYTE[claims.via]),
    uuidBytes(claims.sourceId),
    uuidBytes(claims.contactId),
    at,
  ])
  return `${payload.toString('base64url')}.${sign(key, payload).toString('base64url')}`
}

export interface ConfirmClaims {
  via: ConfirmVia
  /** The form's id, or the list's. */
  sourceId: string
  contactId: string
  issuedAt: number
}

/** The token's claims when its signature is right; null for anything else. */
export function decodeConfirmToken(key: Buffer, token: string): ConfirmClaims | null {
  const [p, s, extra] = token.split('.')
  if (!p || !s || extra !== undefined || !/^[\w-]+$/.test(p) || !/^[\w-]+$/.test(s)) return null
  const payload = Buffer.from(p, 'base64url')
  const sig = Buffer.from(s, 'base64url')
  if (payload.length !== PAYLOAD_BYTES || sig.length !== SIG_BYTES) return null
  if (!timingSafeEqual(sign(key, payload), sig)) return null
  const via = payload[0] === VIA_BYTE.form ? 'form' : payload[0] === VIA_BYTE.list ? 'list' : null
  if (!via) return null
  return {
    via,
    sourceId: uuidOf(payload.subarray(1, 17)),
    contactId: uuidOf(payload.subarray(17, 33)),
    issuedAt: Number(payload.readBigUInt64BE(33)),
  }
}
