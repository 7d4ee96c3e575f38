import { and, desc, eq, lt, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { cursorPosition, DEFAULT_LIMIT, type PageRequest, pageFrom, paginate } from '../../db/paginate'
import { type ContactRow, contacts, type ListRow, listMembers, lists } from '../../db/schema'
import { listFilter, ownerForCreate, visibleTo } from '../../db/tenant'
import { notFound } from '../../errors'
import { newId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { presentContact } from '../contacts/present'
import type { ListFields } from './inputs'
import { addMembers, assertContactsOfClient, removeMembers } from './members'

export function presentList(row: ListRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    description: row.description,
    member_count: row.memberCount,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export function findListRow(ctx: Ctx, id: string) {
  const row = ctx.db
    .select()
    .from(lists)
    .where(and(eq(lists.id, id), visibleTo(ctx.actor, lists.clientId)))
    .get()
  if (!row) throw notFound('List')
  return row
}

export function createList(ctx: Ctx, input: ListFields, clientIdParam?: string) {
  const clientId = ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const now = ctx.clock.now()
  const row = ctx.db
    .insert(lists)
    .values({
      id: newId(),
      clientId,
      name: input.name,
      description: input.description ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
  return presentList(row)
}

export const getList = (ctx: Ctx, id: string) => presentList(findListRow(ctx, id))

export function listLists(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  return paginate(
    ctx.db,
    ctx.secretKey,
    lists,
    lists.id,
    listFilter(ctx.actor, lists.clientId, page.client_id),
    page,
    presentList,
  )
}

export function deleteList(ctx: Ctx, id: string) {
  findListRow(ctx, id)
  ctx.db.delete(listMembers).where(eq(listMembers.listId, id)).run()
  ctx.db.delete(lists).where(eq(lists.id, id)).run()
  return { id, deleted: true }
}

/** Filtered totals are exact up to this many; above it the portal says "more than". */
export const FILTERED_COUNT_CAP = 10_000

export function listMembersPage(ctx: Ctx, id: string, page: PageRequest) {
  return membersPage(ctx, findListRow(ctx, id), page)
}

/**
 * A list's members, newest contact first, optionally of one status. Driven by the list's primary
 * key (list_id, contact_id) walked backwards from the cursor, each member joined to its contact:
 * a page reads about `limit` members, where `id IN (SELECT … list)` materialised every member
 * (200,000 for a fifth of a million contacts) on every page. The total is the maintained
 * member_count, or a capped count over the members when a status narrows it.
 */
export function membersPage(ctx: Ctx, list: ListRow, page: PageRequest, status?: string) {
  const limit = page.limit ?? DEFAULT_LIMIT
  const query = { ...page, status }
  const after = cursorPosition(ctx.secretKey, page.cursor, `list_members:${list.id}`, undefined, query)
  const where = and(
    eq(listMembers.listId, list.id),
    eq(contacts.clientId, list.clientId),
    status === undefined ? undefined : eq(contacts.status, status as ContactRow['status']),
  )
  const rows = ctx.db
    .select({ contact: contacts })
    .from(listMembers)
    .innerJoin(contacts, eq(contacts.id, listMembers.contactId))
    .where(and(where, after === null ? undefined : lt(listMembers.contactId, after)))
    .orderBy(desc(listMembers.contactId))
    .limit(limit + 1)
    .all()
  // A status narrows the members: counted up to FILTERED_COUNT_CAP + 1 (the page says "more
  // than …"), so a status of a 200,000-member list costs a bounded count, not a join of them all.
  const total =
    status === undefined
      ? list.memberCount
      : (ctx.db.all<{ n: number }>(
          sql`SELECT count(*) AS n FROM (SELECT 1 FROM list_members JOIN contacts ON contacts.id = list_members.contact_id WHERE list_members.list_id = ${list.id} AND contacts.client_id = ${list.clientId} AND contacts.status = ${status} LIMIT ${FILTERED_COUNT_CAP + 1})`,
        )[0]?.n ?? 0)
  return pageFrom(ctx.secretKey, rows, limit, {
    collection: `list_members:${list.id}`,
    position: (r) => r.contact.id,
    present: (r) => presentContact(r.contact),
    total,
    query,
  })
}

export function addListMembers(ctx: Ctx, id: string, contactIds: string[]) {
  const list = findListRow(ctx, id)
  const unique = [...new Set(contactIds)]
  assertContactsOfClient(ctx.db, list.clientId, unique, 'contact_ids')
  const added = addMembers(ctx.db, id, unique, ctx.clock.now())
  return { ...presentList(findListRow(ctx, id)), added }
}

export function removeListMembers(ctx: Ctx, id: string, contactIds: string[]) {
  const list = findListRow(ctx, id)
  const unique = [...new Set(contactIds)]
  // Not a member is not an error, but a contact the caller cannot see is (422), as on add.
  assertContactsOfClient(ctx.db, list.clientId, unique, 'contact_ids')
  const removed = removeMembers(ctx.db, id, unique, ctx.clock.now())
  return { ...presentList(findListRow(ctx, id)), removed }
}
