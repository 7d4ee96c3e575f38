import { and, count, eq, inArray, sql } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import type { Db } from '../../db/client'
import { DEFAULT_LIMIT, type PageRequest, pageFrom, paginate } from '../../db/paginate'
import { type ContactRow, contacts, lists, type SegmentRow, segments } from '../../db/schema'
import { findVisible, listFilter, ownedIds, ownerForCreate } from '../../db/tenant'
import { notFound, validationFailed } from '../../errors'
import { newId, recordIdsIn } from '../../lib/ids'
import { iso, isoOrNull } from '../../lib/time'
import { presentContact } from '../contacts/present'
import type { SegmentInput } from './inputs'
import { compileSegment, type RuleGroup } from './rules'

/** A size and when it was taken (./sizing.ts takes it, the verbs store it). */
export interface Sized {
  size: number
  at: number
}

export function presentSegment(row: SegmentRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    name: row.name,
    match: row.match,
    rule_groups: row.ruleGroups,
    estimated_size: row.estimatedSize,
    estimated_at: isoOrNull(row.estimatedAt),
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
  }
}

/** The segment's condition over `contacts` (client included), or 422 naming each bad rule. */
export async function segmentCondition(
  db: Db,
  clientId: string,
  match: 'all' | 'any',
  groups: RuleGroup[],
  now: number,
) {
  const known = await ownedIds(db, lists, clientId, recordIdsIn(groups))
  const listExists = (id: string) => known.has(id)
  const compiled = compileSegment(match, groups, { now, listExists })
  if (!compiled.sql) throw validationFailed(compiled.errors)
  return and(eq(contacts.clientId, clientId), sql`(${compiled.sql})`)!
}

export async function estimateSize(
  db: Db,
  clientId: string,
  match: 'all' | 'any',
  groups: RuleGroup[],
  now: number,
): Promise<number> {
  const where = await segmentCondition(db, clientId, match, groups, now)
  return (await db.select({ n: count() }).from(contacts).where(where).limit(1))[0]?.n ?? 0
}

export async function findSegmentRow(ctx: Ctx, id: string) {
  const row = await findVisible(ctx.db, ctx.actor, segments, id)
  if (!row) throw notFound('Segment')
  return row
}

/** Stores a new segment with the size counted before (./sizing.ts). */
export async function createSegment(ctx: Ctx, input: SegmentInput, sized: Sized, clientIdParam?: string) {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const now = ctx.clock.now()
  const match = input.match ?? 'all'
  const row = (
    await ctx.db
      .insert(segments)
      .values({
        id: newId(),
        clientId,
        name: input.name,
        match,
        ruleGroups: input.rule_groups,
        estimatedSize: sized.size,
        estimatedAt: sized.at,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!
  return presentSegment(row)
}

/** Updates a segment; `sized` is the new size when its rules changed, null when they did not. */
export async function updateSegment(ctx: Ctx, id: string, patch: Partial<SegmentInput>, sized: Sized | null) {
  const current = await findSegmentRow(ctx, id)
  const now = ctx.clock.now()
  const match = patch.match ?? current.match
  const groups = patch.rule_groups ?? (current.ruleGroups as RuleGroup[])
  const row = (
    await ctx.db
      .update(segments)
      .set({
        name: patch.name ?? current.name,
        match,
        ruleGroups: groups,
        estimatedSize: sized ? sized.size : current.estimatedSize,
        estimatedAt: sized ? sized.at : current.estimatedAt,
        updatedAt: now,
      })
      .where(eq(segments.id, id))
      .returning()
  )[0]!
  return presentSegment(row)
}

export const getSegment = async (ctx: Ctx, id: string) => presentSegment(await findSegmentRow(ctx, id))

export async function listSegments(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  const where = listFilter(ctx.actor, segments.clientId, page.client_id)
  return await paginate(ctx.db, ctx.secretKey, segments, segments.id, where, page, presentSegment)
}

export async function deleteSegment(ctx: Ctx, id: string) {
  await findSegmentRow(ctx, id)
  await ctx.db.delete(segments).where(eq(segments.id, id))
  return { id, deleted: true }
}

/** One page of the contacts the segment matches now (preview), from ids read by ./sizing.ts. */
export async function segmentContacts(ctx: Ctx, page: PageRequest, found: { ids: string[]; total: number }) {
  const rows = await contactsByIds(ctx, found.ids)
  return pageFrom(ctx.secretKey, rows, page.limit ?? DEFAULT_LIMIT, {
    collection: 'contacts',
    position: (row) => row.id,
    present: presentContact,
    total: found.total,
    query: page,
  })
}

/** Stores the sizes the refresh job counted (./sizing.ts); a segment deleted since is skipped. */
export async function storeSegmentSizes(ctx: AppContext, sizes: Map<string, Sized>): Promise<number> {
  for (const [id, sized] of sizes)
    await ctx.db
      .update(segments)
      .set({ estimatedSize: sized.size, estimatedAt: sized.at })
      .where(eq(segments.id, id))
  return sizes.size
}

/** The live estimate's answer: the size and the sample contacts, counted by ./sizing.ts. */
export async function estimateSegment(ctx: Ctx, found: { size: number; ids: string[] }) {
  return { estimated_size: found.size, sample: (await contactsByIds(ctx, found.ids)).map(presentContact) }
}

/** The contacts of `ids` (by primary key), in the order given. */
async function contactsByIds(ctx: Ctx, ids: string[]): Promise<ContactRow[]> {
  if (ids.length === 0) return []
  const byId = new Map(
    (await ctx.db.select().from(contacts).where(inArray(contacts.id, ids))).map((r) => [r.id, r]),
  )
  return ids.flatMap((id) => byId.get(id) ?? [])
}
