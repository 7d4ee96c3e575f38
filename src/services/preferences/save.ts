import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { contacts } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import type { ConsentOrigin } from '../consents/record'
import { optOutContact } from '../contacts/unsubscribe'
import { addMembers, confirmMemberships, unsubscribeMembers } from '../lists/membership'
import { preferenceListsOf } from './read'

// What a person chose in their preference centre, applied in one transaction. Lists they tick
// are joined as confirmed members, double opt-in lists included: the link came in a message to
// them, which proves what a confirmation link proves. Lists they untick are left (the row stays
// `unsubscribed`, so no import brings them back). Only the client's public lists are touched.

export interface PreferenceChoices {
  /** Undefined: the form did not carry the field, the name stays. */
  firstName?: string | null
  lastName?: string | null
  /** The public lists ticked. */
  listIds: ReadonlySet<string>
  /** "Unsubscribe from everything": the lists are then left as they are. */
  everything: boolean
}

export interface SavedPreferences {
  unsubscribedEverything: boolean
  joined: string[]
  left: string[]
}

export async function savePreferences(
  app: AppContext,
  contactId: string,
  choices: PreferenceChoices,
  origin: Omit<ConsentOrigin, 'source'>,
  at: number,
): Promise<SavedPreferences> {
  return await inTransaction(app.sqlite, async () => {
    const saved: SavedPreferences = { unsubscribedEverything: false, joined: [], left: [] }
    const contact = (await app.db.select().from(contacts).where(eq(contacts.id, contactId)).limit(1))[0]
    if (!contact) return saved
    const consent: ConsentOrigin = { ...origin, source: 'preferences' }
    const firstName = choices.firstName === undefined ? contact.firstName : choices.firstName
    const lastName = choices.lastName === undefined ? contact.lastName : choices.lastName
    if (firstName !== contact.firstName || lastName !== contact.lastName)
      await app.db
        .update(contacts)
        .set({ firstName, lastName, updatedAt: at })
        .where(eq(contacts.id, contactId))
    if (choices.everything) {
      saved.unsubscribedEverything = await optOutContact(app, contact, { source: 'preferences', consent, at })
      return saved
    }
    for (const list of await preferenceListsOf(app.db, contact)) {
      const wanted = choices.listIds.has(list.id)
      if (wanted && list.status === 'unconfirmed')
        saved.joined.push(...(await confirmMemberships(app, contactId, [list.id], at, consent)))
      else if (wanted && list.status !== 'confirmed') {
        if (
          (await addMembers(app, list.id, [contactId], at, { status: 'confirmed', revive: true, consent }))
            .length
        )
          saved.joined.push(list.id)
      } else if (!wanted && (list.status === 'confirmed' || list.status === 'unconfirmed')) {
        if ((await unsubscribeMembers(app.db, list.id, [contactId], at, consent)).length)
          saved.left.push(list.id)
      }
    }
    return saved
  })
}
