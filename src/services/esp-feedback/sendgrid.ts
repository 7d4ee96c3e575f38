import { createPublicKey, verify } from 'node:crypto'
import type { EspEvent } from './types'
import { isObject, str, timeOf } from './types'

// SendGrid's Event Webhook: a JSON array of events, signed (ECDSA P-256 with SHA-256, the
// signature base64 DER) over the X-Twilio-Email-Event-Webhook-Timestamp header followed by the
// raw body, with the key SendGrid shows as "verification key" (base64 DER SPKI).

export function sendgridSigned(
  publicKey: string,
  timestamp: string | null,
  signature: string | null,
  raw: string,
) {
  if (!timestamp || !signature) return false
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' })
    return verify('sha256', Buffer.from(timestamp + raw, 'utf8'), key, Buffer.from(signature, 'base64'))
  } catch {
    return false // a key or signature that does not parse verifies nothing
  }
}

export function sendgridEvents(body: unknown, now: number): EspEvent[] {
  if (!Array.isArray(body)) return []
  const out: EspEvent[] = []
  for (const e of body) {
    if (!isObject(e)) continue
    const sg = str(e.sg_message_id)
    // sg_message_id is the X-Message-Id SendGrid answered the send with, plus ".filter…".
    const providerIds = sg ? [sg, sg.split('.filter')[0]!] : []
    const base = { providerIds, rfcMessageId: str(e['smtp-id']), at: timeOf(e.timestamp, now) }
    const reason = str(e.reason)
    if (e.event === 'delivered') out.push({ kind: 'delivery', ...base })
    else if (e.event === 'spamreport') out.push({ kind: 'complaint', ...base })
    else if (e.event === 'bounce')
      // "blocked" is a refusal the receiver may lift; "bounce" is the address itself.
      out.push({
        kind: 'bounce',
        bounce: {
          type: e.type === 'blocked' ? 'soft' : 'hard',
          statusCode: str(e.status),
          diagnostic: reason,
        },
        ...base,
      })
    else if (e.event === 'dropped')
      // SendGrid would not even try: an address it knows bounced is hard, other reasons soft.
      out.push({
        kind: 'bounce',
        bounce: {
          type: /bounced address|invalid/i.test(reason ?? '') ? 'hard' : 'soft',
          statusCode: str(e.status),
          diagnostic: reason,
        },
        ...base,
      })
  }
  return out
}
