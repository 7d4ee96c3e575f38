import { createHmac } from 'node:crypto'
import { safeEqual } from '../../lib/crypto'
import type { EspEvent } from './types'
import { isObject, str, timeOf } from './types'

// Mailgun's webhooks: `{signature: {timestamp, token, signature}, "event-data": {...}}`, the
// signature an HMAC-SHA256 (hex) of timestamp + token under the domain's webhook signing key.
// A signature older than five minutes is refused, so a captured request cannot be replayed later.

export const MAILGUN_MAX_AGE_MS = 5 * 60_000

/** Whether the body is signed with `key` within the last five minutes (a little clock skew allowed). */
export function mailgunSigned(body: unknown, key: string, now: number): boolean {
  if (!isObject(body) || !isObject(body.signature)) return false
  const { timestamp, token, signature } = body.signature
  if (typeof timestamp !== 'string' || typeof token !== 'string' || typeof signature !== 'string')
    return false
  const at = Number(timestamp) * 1000
  if (!Number.isFinite(at) || Math.abs(now - at) > MAILGUN_MAX_AGE_MS) return false
  const expected = createHmac('sha256', key)
    .update(timestamp + token)
    .digest('hex')
  return safeEqual(expected, signature.toLowerCase())
}

export function mailgunEvents(body: unknown, now: number): EspEvent[] {
  if (!isObject(body) || !isObject(body['event-data'])) return []
  const e = body['event-data']
  const message = isObject(e.message) ? e.message : {}
  const headers = isObject(message.headers) ? message.headers : {}
  // Mailgun shows the Message-ID without its angle brackets.
  const rfc = str(headers['message-id'])
  const base = { providerIds: rfc ? [rfc, `<${rfc}>`] : [], rfcMessageId: rfc, at: timeOf(e.timestamp, now) }
  if (e.event === 'delivered') return [{ kind: 'delivery', ...base }]
  if (e.event === 'complained') return [{ kind: 'complaint', ...base }]
  if (e.event === 'failed') {
    const status = isObject(e['delivery-status']) ? e['delivery-status'] : {}
    const code = status.code
    return [
      {
        kind: 'bounce',
        bounce: {
          type: e.severity === 'permanent' ? 'hard' : 'soft',
          statusCode: str(status['enhanced-code']) ?? (typeof code === 'number' ? String(code) : null),
          diagnostic: str(status.description) ?? str(status.message) ?? str(e.reason),
        },
        ...base,
      },
    ]
  }
  return []
}
