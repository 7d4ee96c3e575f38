import type { Db } from '../../db/client'
import { consents } from '../../db/schema'
import type { ConsentAction, ConsentSource } from '../../lib/enums'
import type { Actor } from '../actors/actor'

/** Where a consent came from and what the person saw; copied onto every row it makes. */
export interface ConsentOrigin {
  source: ConsentSource
  formId?: string | null
  ip?: string | null
  userAgent?: string | null
  consentText?: string | null
}

export interface ConsentEntry {
  clientId: string
  contactId: string
  listId?: string | null
  action: ConsentAction
  at: number
}

const CHUNK = 400

/** Writes one consent row per entry, in the caller's transaction. */
export async function recordConsents(
  db: Db,
  origin: ConsentOrigin,
  entries: readonly ConsentEntry[],
): Promise<void> {
  for (let i = 0; i < entries.length; i += CHUNK)
    await db.insert(consents).values(
      entries.slice(i, i + CHUNK).map((e) => ({
        clientId: e.clientId,
        contactId: e.contactId,
        listId: e.listId ?? null,
        action: e.action,
        source: origin.source,
        formId: origin.formId ?? null,
        ip: origin.ip ?? null,
        // A user agent is evidence, not content: a long one is cut rather than stored whole.
        userAgent: origin.userAgent ? origin.userAgent.slice(0, 512) : null,
        consentText: origin.consentText ?? null,
        at: e.at,
      })),
    )
}

/** A change made by a person in the portal is `admin`; any other credential is `api`. */
export const consentSourceOf = (actor: Actor): ConsentSource => (actor.kind === 'user' ? 'admin' : 'api')
