import type { Db } from '../../db/client'
import { sequenceQueue } from '../../db/sequence-queue'

// A reply, a bounce or an unsubscribe stops the contact's runs, in the
// transaction that writes the event; their queued messages are cancelled. A reply stops only
// the runs of sequences that stop on a reply (the default).

const REASONS: Record<string, 'replied' | 'bounced' | 'unsubscribed'> = {
  'reply.received': 'replied',
  'email.bounced': 'bounced',
  'contact.unsubscribed': 'unsubscribed',
}

/** A spam complaint is the strongest opt-out: the contact's runs stop as for an unsubscribe. */
export function onSequenceComplaint(db: Db, contactId: string, at: number): void {
  sequenceQueue(db.$client).stopContact(contactId, 'unsubscribed', at, false)
}

export function onSequenceEvent(
  db: Db,
  e: { type: string; contactId?: string | null; occurredAt: number },
): void {
  const reason = REASONS[e.type]
  if (!reason || !e.contactId) return
  sequenceQueue(db.$client).stopContact(e.contactId, reason, e.occurredAt, reason === 'replied')
}
