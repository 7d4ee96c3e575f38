import type { Bounce } from '../messages/activity'
import type { EspEvent } from './types'
import { isObject, str, timeOf } from './types'

// Postmark's bounce, spam complaint and delivery webhooks: one record per POST, authenticated by
// the HTTP Basic credentials written into the webhook URL in Postmark's console. `MessageID` is
// Postmark's own id for the message.

/** Bounce types that say the address is gone; the rest of the undeliverable ones are soft. */
const HARD = new Set(['HardBounce', 'BadEmailAddress', 'ManuallyDeactivated'])
const SOFT = new Set(['SoftBounce', 'Transient', 'DnsError', 'Blocked', 'DMARCPolicy', 'Undeliverable'])

/** `Authorization: Basic …` split into user and password, or null. */
export function basicCredentials(header: string | null): { user: string; password: string } | null {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '')
  if (!m) return null
  const decoded = Buffer.from(m[1]!, 'base64').toString('utf8')
  const colon = decoded.indexOf(':')
  return colon < 0 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) }
}

export function postmarkEvents(body: unknown, now: number): EspEvent[] {
  if (!isObject(body)) return []
  const record = str(body.RecordType)
  const providerIds = [str(body.MessageID)].filter((x): x is string => x !== null)
  const base = { providerIds, rfcMessageId: messageIdHeader(body) }
  const type = str(body.Type) ?? ''
  if (record === 'SpamComplaint' || (record === 'Bounce' && type === 'SpamComplaint'))
    return [{ kind: 'complaint', ...base, at: timeOf(body.BouncedAt, now) }]
  if (record === 'Bounce' && (HARD.has(type) || SOFT.has(type))) {
    const bounce: Bounce = {
      type: HARD.has(type) ? 'hard' : 'soft',
      statusCode: null,
      diagnostic: str(body.Details) ?? str(body.Description) ?? type,
    }
    return [{ kind: 'bounce', bounce, ...base, at: timeOf(body.BouncedAt, now) }]
  }
  if (record === 'Delivery') return [{ kind: 'delivery', ...base, at: timeOf(body.DeliveredAt, now) }]
  // Auto-responders, (un)subscribe requests, challenge mails: nothing to record.
  return []
}

/** Our Message-ID, when the record carries the message's headers. */
function messageIdHeader(body: Record<string, unknown>): string | null {
  const headers = Array.isArray(body.Headers) ? body.Headers : []
  for (const h of headers)
    if (isObject(h) && String(h.Name).toLowerCase() === 'message-id') return str(h.Value)
  return null
}
