import { and, asc, eq, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { type ContactRow, listMembers, lists } from '../../db/schema'
import type { MembershipStatus } from '../../lib/enums'

/** A public list as the preference centre offers it, with the contact's membership if any. */
export interface PreferenceList {
  id: string
  /** `public_name`, else the list's name. */
  name: string
  status: MembershipStatus | null
}

/** What the preference centre shows of the person. */
export type PreferenceContact = Pick<ContactRow, 'email' | 'firstName' | 'lastName' | 'status'>

/** More than this many public lists is not a choice a person can make on one page. */
const MAX_LISTS = 200

/** The client's public lists, by name, with the contact's membership of each. */
export async function preferenceListsOf(
  db: Db,
  contact: Pick<ContactRow, 'id' | 'clientId'>,
): Promise<PreferenceList[]> {
  return await db
    .select({
      id: lists.id,
      name: sql<string>`coalesce(${lists.publicName}, ${lists.name})`,
      status: listMembers.status,
    })
    .from(lists)
    .leftJoin(listMembers, and(eq(listMembers.listId, lists.id), eq(listMembers.contactId, contact.id)))
    .where(and(eq(lists.clientId, contact.clientId), eq(lists.public, true)))
    // Bytewise on both stores (PostgreSQL's default collation follows the locale).
    .orderBy(
      asc(
        DIALECT === 'postgres'
          ? sql`coalesce(${lists.publicName}, ${lists.name}) COLLATE "C"`
          : sql`coalesce(${lists.publicName}, ${lists.name})`,
      ),
      asc(lists.id),
    )
    .limit(MAX_LISTS)
}
