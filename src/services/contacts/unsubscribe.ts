import { eq, sql } from 'drizzle-orm'
import { rawRows } from '../../db/raw'
import { forUpdate } from '../../db/row-lock'
import { type ContactRow, contacts } from '../../db/schema'
import type { HookedDb } from '../../hooks'
import { toPrefixedId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { type ConsentOrigin, recordConsents } from '../consents/record'
import type { EventInput } from '../events/record'
import { recordEvent } from '../events/record'
import { suppress } from '../suppressions/records'

// A person leaving everything, whichever door they used (a message's link, the preference centre,
// an operator's PATCH): one contact.unsubscribed event and one consent row, written the same way.

export interface UnsubscribeRecord {
  /** contact.unsubscribed's `source` (one_click, unsubscribe_page, preferences, api…). */
  source: string
  consent: ConsentOrigin
  at: number
  /** The message that carried the link: its ids on the event row and in the event's data. */
  refs?: Omit<EventInput, 'type' | 'clientId' | 'contactId' | 'occurredAt' | 'data'>
  data?: Record<string, unknown>
}

/** contact.unsubscribed and the consent row of an opt-out; the caller changed the status. */
export async function recordUnsubscribe(
  hdb: HookedDb,
  contact: Pick<ContactRow, 'id' | 'clientId' | 'email'>,
  r: UnsubscribeRecord,
): Promise<void> {
  await recordConsents(hdb.db, r.consent, [
    { clientId: contact.clientId, contactId: contact.id, action: 'unsubscribed', at: r.at },
  ])
  await recordEvent(hdb, {
    ...r.refs,
    clientId: contact.clientId,
    contactId: contact.id,
    type: 'contact.unsubscribed',
    occurredAt: r.at,
    data: {
      contact_id: toPrefixedId('contact', contact.id),
      email: contact.email,
      campaign_id: null,
      message_id: null,
      ...r.data,
      source: r.source,
      unsubscribed_at: iso(r.at),
    },
  })
}

/**
 * A person's own opt-out from everything: the address suppressed and, unless it already was, the
 * contact unsubscribed with its event and consent row. False when it already was (a repeat
 * changes nothing but the suppression, which is idempotent).
 */
export async function optOutContact(
  hdb: HookedDb,
  contact: ContactRow,
  r: UnsubscribeRecord,
): Promise<boolean> {
  await suppress(hdb.db, contact.clientId, contact.email, 'unsubscribe', `unsubscribed (${r.source})`, r.at)
  // Its status as it is now, held until the transaction ends: two opt-outs at once (a one-click
  // POST and a click on the link, in two processes) record one.
  const [held] = await rawRows<{ status: ContactRow['status'] }>(
    hdb.db,
    sql`SELECT status FROM contacts WHERE id = ${contact.id}${forUpdate()}`,
  )
  const status = held?.status ?? contact.status
  if (status === 'unsubscribed') return false
  // A bounced, complained or blocked contact keeps that status (it says more); the opt-out is
  // still recorded and the address suppressed.
  if (status === 'subscribed')
    await hdb.db
      .update(contacts)
      .set({ status: 'unsubscribed', updatedAt: r.at })
      .where(eq(contacts.id, contact.id))
  await recordUnsubscribe(hdb, contact, r)
  return true
}
