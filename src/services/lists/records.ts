import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type PageRequest, paginate } from '../../db/paginate'
import { type ListRow, listMembers, lists } from '../../db/schema'
import { listFilter, ownerForCreate, visibleTo } from '../../db/tenant'
import { notFound } from '../../errors'
import { newId } from '../../lib/ids'
import { iso } from '../../lib/time'
import type { ListFields, ListPatch } from './inputs'

export function presentList(row: ListRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    description: row.description,
    opt_in: row.optIn,
    public: row.public,
    public_name: row.publicName,
    member_count: row.memberCount,
    unconfirmed_count: row.unconfirmedCount,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

export async function findListRow(ctx: Ctx, id: string) {
  const row = (
    await ctx.db
      .select()
      .from(lists)
      .where(and(eq(lists.id, id), visibleTo(ctx.actor, lists.clientId)))
      .limit(1)
  )[0]
  if (!row) throw notFound('List')
  return row
}

export async function createList(ctx: Ctx, input: ListFields, clientIdParam?: string) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const now = ctx.clock.now()
  const row = (
    await ctx.db
      .insert(lists)
      .values({
        id: newId(),
        clientId,
        name: input.name,
        description: input.description ?? null,
        optIn: input.opt_in ?? 'single',
        public: input.public ?? false,
        publicName: input.public_name ?? null,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return presentList(row)
}

export async function updateList(ctx: Ctx, id: string, patch: ListPatch) {
  const current = await findListRow(ctx, id)
  const row = (
    await ctx.db
      .update(lists)
      .set({
        name: patch.name ?? current.name,
        description: patch.description === undefined ? current.description : patch.description,
        optIn: patch.opt_in ?? current.optIn,
        public: patch.public ?? current.public,
        publicName: patch.public_name === undefined ? current.publicName : patch.public_name,
        updatedAt: ctx.clock.now(),
      })
      .where(eq(lists.id, id))
      .returning()
  )[0]!
  return presentList(row)
}

export const getList = async (ctx: Ctx, id: string) => presentList(await findListRow(ctx, id))

export async function listLists(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  return await paginate(
    ctx.db,
    ctx.secretKey,
    lists,
    lists.id,
    listFilter(ctx.actor, lists.clientId, page.client_id),
    page,
    presentList,
  )
}

export async function deleteList(ctx: Ctx, id: string) {
  await findListRow(ctx, id)
  await ctx.db.delete(listMembers).where(eq(listMembers.listId, id))
  await ctx.db.delete(lists).where(eq(lists.id, id))
  return { id, deleted: true }
}
