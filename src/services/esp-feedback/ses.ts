import type { EspEvent } from './types'
import { isObject, str, timeOf } from './types'

// The SES event inside an SNS Notification's `Message`: SES notifications (`notificationType`)
// and event publishing (`eventType`) share the Bounce, Complaint and Delivery shapes.
// Permanent bounces are hard; Transient and Undetermined ones soft (SES retried and gave up, or
// cannot tell: the address is not suppressed on that alone).

type Obj = Record<string, unknown>

/** The Message-ID header the message had (ours, `<outbox-id@domain>`), as SES lists it. */
function rfcIdOf(mail: Obj): string | null {
  const headers = Array.isArray(mail.headers) ? mail.headers : []
  for (const h of headers)
    if (isObject(h) && String(h.name).toLowerCase() === 'message-id') return str(h.value)
  return isObject(mail.commonHeaders) ? str(mail.commonHeaders.messageId) : null
}

export function sesEvents(message: string, now: number): EspEvent[] {
  let e: unknown
  try {
    e = JSON.parse(message)
  } catch {
    return []
  }
  if (!isObject(e) || !isObject(e.mail)) return []
  const type = str(e.notificationType) ?? str(e.eventType)
  const mail = e.mail
  const ids = {
    providerIds: [str(mail.messageId)].filter((x): x is string => x !== null),
    rfcMessageId: rfcIdOf(mail),
  }
  if (type === 'Bounce' && isObject(e.bounce)) {
    const b = e.bounce
    const first =
      Array.isArray(b.bouncedRecipients) && isObject(b.bouncedRecipients[0]) ? b.bouncedRecipients[0] : {}
    return [
      {
        kind: 'bounce',
        bounce: {
          type: b.bounceType === 'Permanent' ? 'hard' : 'soft',
          statusCode: str(first.status),
          diagnostic: str(first.diagnosticCode) ?? str(b.bounceSubType),
        },
        ...ids,
        at: timeOf(b.timestamp, now),
      },
    ]
  }
  if (type === 'Complaint' && isObject(e.complaint)) {
    // A recipient's "this is not spam" report is no complaint.
    if (e.complaint.complaintFeedbackType === 'not-spam') return []
    return [{ kind: 'complaint', ...ids, at: timeOf(e.complaint.timestamp, now) }]
  }
  if (type === 'Delivery' && isObject(e.delivery))
    return [{ kind: 'delivery', ...ids, at: timeOf(e.delivery.timestamp, now) }]
  return []
}
