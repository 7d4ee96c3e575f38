import type { Db } from '../../db/client'
import { flowQueue } from '../../db/flow-queue'

// A reply, a bounce or an unsubscribe stops the contact's runs, in the transaction that writes
// the event; their queued messages are cancelled. A reply stops only the runs of sequences that
// stop on a reply (the default).

const REASONS: Record<string, 'replied' | 'bounced' | 'unsubscribed'> = {
  'reply.received': 'replied',
  'email.bounced': 'bounced',
  'contact.unsubscribed': 'unsubscribed',
}

async function stop(db: Db, contactId: string, reason: 'replied' | 'bounced' | 'unsubscribed', at: number) {
  const q = flowQueue(db)
  const stopped = await q.endContact(
    contactId,
    'sequence',
    { status: 'stopped', reason },
    at,
    reason === 'replied',
  )
  for (const id of stopped) await q.cancelContact(id, contactId, `sequence stopped: ${reason}`)
}

/** A spam complaint is the strongest opt-out: the contact's runs stop as for an unsubscribe. */
export async function onSequenceComplaint(db: Db, contactId: string, at: number): Promise<void> {
  await stop(db, contactId, 'unsubscribed', at)
}

export async function onSequenceEvent(
  db: Db,
  e: { type: string; contactId?: string | null; occurredAt: number },
): Promise<void> {
  const reason = REASONS[e.type]
  if (reason && e.contactId) await stop(db, e.contactId, reason, e.occurredAt)
}
