import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { type ContactRow, contacts } from '../../db/schema'
import { decodeLinkToken } from '../../lib/tracking-token'
import { trackingKeyOf } from '../tracking/resolve'

// The preference centre's link names a contact, signed for its client with the instance's
// tracking key. It does not expire: it sits in messages people keep, like the unsubscribe link,
// and gives no more power than that link (its own lists and name). A new instance key voids it.

/** The contact a preference-centre token names, when its signature holds for the contact's client. */
export async function resolvePreferencesToken(app: AppContext, token: string): Promise<ContactRow | null> {
  const decoded = decodeLinkToken(token)
  if (!decoded || decoded.kind !== 'preferences') return null
  const contact = (await app.db.select().from(contacts).where(eq(contacts.id, decoded.messageId)).limit(1))[0]
  if (!contact || !decoded.verify(trackingKeyOf(app), contact.clientId)) return null
  return contact
}
