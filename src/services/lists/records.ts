import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type PageRequest, paginate } from '../../db/paginate'
import { type ListRow, listMembers, lists } from '../../db/schema'
import { listFilter, ownerForCreate, visibleTo } from '../../db/tenant'
import { notFound } from '../../errors'
import { newId } from '../../lib/ids'
import { iso } from '../../lib/time'
import type { ListFields } from './inputs'

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
