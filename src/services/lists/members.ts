import { and, desc, eq, inArray, lt, ne, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { cursorPosition, DEFAULT_LIMIT, type PageRequest, pageFrom } from '../../db/paginate'
import { rawRows } from '../../db/raw'
import { type ContactRow, contacts, type ListRow, listMembers, lists } from '../../db/schema'
import { eqUnindexed } from '../../db/tenant'
import { type FieldError, validationFailed } from '../../errors'
import { consentSourceOf } from '../consents/record'
import { presentContact } from '../contacts/present'
import { askListConfirmations } from '../forms/confirmation'
import { addMembers, removeMembers } from './membership'
import { findListRow, presentList } from './records'

const CHUNK = 500

/** Ids of `ids` that are contacts of `clientId`; the rest are reported as failures of `field`. */
export async function assertContactsOfClient(
  db: Db,
  clientId: string,
  ids: readonly string[],
  field: string,
): Promise<void> {
  const found = new Set<string>()
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK)
    for (const r of await db
      .select({ id: contacts.id })
      .from(contacts)
      .where(and(eq(contacts.clientId, clientId), inArray(contacts.id, chunk))))
      found.add(r.id)
  }
  const errors: FieldError[] = []
  ids.forEach((id, i) => {
    if (!found.has(id) && errors.length < 20)
      errors.push({ field: `${field}[${i}]`, message: 'no such contact' })
  })
  if (errors.length) throw validationFailed(errors)
}

/** Lists of `clientId` among `ids`; unknown or foreign ones fail as `field[i]` (or `field` when not indexed). */
export async function assertListsOfClient(
  db: Db,
  clientId: string,
  ids: readonly string[],
  field: string,
  indexed = true,
): Promise<void> {
  if (ids.length === 0) return
  const found = new Set(
    (
      await db
        .select({ id: lists.id })
        .from(lists)
        .where(and(eq(lists.clientId, clientId), inArray(lists.id, [...ids])))
    ).map((r) => r.id),
  )
  const errors = ids.flatMap((id, i) =>
    found.has(id) ? [] : [{ field: indexed ? `${field}[${i}]` : field, message: 'no such list' }],
  )
  if (errors.length) throw validationFailed(errors)
}

/** Filtered totals are exact up to this many; above it the portal says "more than". */
export const FILTERED_COUNT_CAP = 10_000

export async function listMembersPage(ctx: Ctx, id: string, page: PageRequest) {
  return await membersPage(ctx, await findListRow(ctx, id), page, undefined, true)
}

/**
 * A list's members (confirmed and unconfirmed; those who left are not members), newest contact
 * first, optionally of one contact status. Driven by the list's primary key (list_id,
 * contact_id) walked backwards from the cursor, each member joined to its contact: a page reads
 * about `limit` members, where `id IN (SELECT … list)` materialised every member (200,000 for a
 * fifth of a million contacts) on every page. The total is the maintained counts, or a capped
 * count over the members when a status narrows it.
 */
export async function membersPage(
  ctx: Ctx,
  list: ListRow,
  page: PageRequest,
  status?: string,
  withMembership = false,
) {
  const limit = page.limit ?? DEFAULT_LIMIT
  const query = { ...page, status }
  const after = cursorPosition(ctx.secretKey, page.cursor, `list_members:${list.id}`, undefined, query)
  // The list drives; its contacts' client is only checked (eqUnindexed).
  const where = and(
    eq(listMembers.listId, list.id),
    eqUnindexed(contacts.clientId, list.clientId),
    ne(listMembers.status, 'unsubscribed'),
    status === undefined ? undefined : eq(contacts.status, status as ContactRow['status']),
  )
  const rows = await ctx.db
    .select({ contact: contacts, membership: listMembers.status })
    .from(listMembers)
    .innerJoin(contacts, eq(contacts.id, listMembers.contactId))
    .where(and(where, after === null ? undefined : lt(listMembers.contactId, after)))
    .orderBy(desc(listMembers.contactId))
    .limit(limit + 1)
  // A status narrows the members: counted up to FILTERED_COUNT_CAP + 1 (the page says "more
  // than …"), so a status of a 200,000-member list costs a bounded count, not a join of them all.
  const total =
    status === undefined
      ? list.memberCount + list.unconfirmedCount
      : Number(
          (
            await rawRows<{ n: number }>(
              ctx.db,
              sql`SELECT count(*) AS n FROM (SELECT 1 FROM list_members JOIN contacts ON contacts.id = list_members.contact_id WHERE list_members.list_id = ${list.id} AND list_members.status != 'unsubscribed' AND ${eqUnindexed(contacts.clientId, list.clientId)} AND contacts.status = ${status} LIMIT ${FILTERED_COUNT_CAP + 1}) AS capped`,
            )
          )[0]?.n ?? 0,
        )
  return pageFrom(ctx.secretKey, rows, limit, {
    collection: `list_members:${list.id}`,
    position: (r) => r.contact.id,
    present: (r) =>
      withMembership
        ? { ...presentContact(r.contact), membership_status: r.membership }
        : presentContact(r.contact),
    total,
    query,
  })
}

export async function addListMembers(ctx: Ctx, id: string, contactIds: string[], doubleOptIn = false) {
  const list = await findListRow(ctx, id)
  const unique = [...new Set(contactIds)]
  await assertContactsOfClient(ctx.db, list.clientId, unique, 'contact_ids')
  const now = ctx.clock.now()
  const added = await addMembers(ctx, id, unique, now, {
    status: doubleOptIn ? 'unconfirmed' : 'confirmed',
    consent: { source: consentSourceOf(ctx.actor) },
  })
  // Double opt-in: each new member confirms through a link before anything else reaches them.
  if (doubleOptIn && (await askListConfirmations(ctx, list, added, now)) > 0) ctx.workers.wake('send')
  return { ...presentList(await findListRow(ctx, id)), added: added.length }
}

export async function removeListMembers(ctx: Ctx, id: string, contactIds: string[]) {
  const list = await findListRow(ctx, id)
  const unique = [...new Set(contactIds)]
  // Not a member is not an error, but a contact the caller cannot see is (422), as on add.
  await assertContactsOfClient(ctx.db, list.clientId, unique, 'contact_ids')
  const removed = (
    await removeMembers(ctx.db, id, unique, ctx.clock.now(), {
      source: consentSourceOf(ctx.actor),
    })
  ).length
  return { ...presentList(await findListRow(ctx, id)), removed }
}
