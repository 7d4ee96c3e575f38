import { and, eq, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type PageRequest, paginate } from '../../db/paginate'
import { type ListRow, listMembers, lists } from '../../db/schema'
import { listFilter, ownerForCreate, visibleTo } from '../../db/tenant'
import { notFound } from '../../errors'
import { newId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { listContacts } from '../contacts/read'
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

export function listMembersPage(ctx: Ctx, id: string, page: PageRequest) {
  const list = findListRow(ctx, id)
  const members = sql`id IN (SELECT contact_id FROM list_members WHERE list_id = ${id})`
  return listContacts(ctx, page, members, list.memberCount)
}

export function addListMembers(ctx: Ctx, id: string, contactIds: string[]) {
  const list = findListRow(ctx, id)
  const unique = [...new Set(contactIds)]
  assertContactsOfClient(ctx.db, list.clientId, unique, 'contact_ids')
  const added = addMembers(ctx.db, id, unique, ctx.clock.now())
  return { ...presentList(findListRow(ctx, id)), added }
}

export function removeListMembers(ctx: Ctx, id: string, contactIds: string[]) {
  findListRow(ctx, id)
  const removed = removeMembers(ctx.db, id, [...new Set(contactIds)], ctx.clock.now())
  return { ...presentList(findListRow(ctx, id)), removed }
}
