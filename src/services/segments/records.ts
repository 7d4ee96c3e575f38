import { and, count, eq, inArray, sql } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import type { Db } from '../../db/client'
import { DEFAULT_LIMIT, type PageRequest, pageFrom, paginate } from '../../db/paginate'
import { type ContactRow, contacts, lists, type SegmentRow, segments } from '../../db/schema'
import { findVisible, listFilter, ownerForCreate } from '../../db/tenant'
import { notFound, validationFailed } from '../../errors'
import { newId } from '../../lib/ids'
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
export function segmentCondition(
  db: Db,
  clientId: string,
  match: 'all' | 'any',
  groups: RuleGroup[],
  now: number,
) {
  const listExists = (id: string) =>
    db
      .select({ id: lists.id })
      .from(lists)
      .where(and(eq(lists.id, id), eq(lists.clientId, clientId)))
      .get() !== undefined
  const compiled = compileSegment(match, groups, { now, listExists })
  if (!compiled.sql) throw validationFailed(compiled.errors)
  return and(eq(contacts.clientId, clientId), sql`(${compiled.sql})`)!
}

export function estimateSize(
  db: Db,
  clientId: string,
  match: 'all' | 'any',
  groups: RuleGroup[],
  now: number,
): number {
  const where = segmentCondition(db, clientId, match, groups, now)
  return db.select({ n: count() }).from(contacts).where(where).get()?.n ?? 0
}

export function findSegmentRow(ctx: Ctx, id: string) {
  const row = findVisible(ctx.db, ctx.actor, segments, id)
  if (!row) throw notFound('Segment')
  return row
}

/** Stores a new segment with the size counted before (./sizing.ts). */
export function createSegment(ctx: Ctx, input: SegmentInput, sized: Sized, clientIdParam?: string) {
  const clientId = ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const now = ctx.clock.now()
  const match = input.match ?? 'all'
  const row = ctx.db
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
    .get()
  return presentSegment(row)
}

/** Updates a segment; `sized` is the new size when its rules changed, null when they did not. */
export function updateSegment(ctx: Ctx, id: string, patch: Partial<SegmentInput>, sized: Sized | null) {
  const current = findSegmentRow(ctx, id)
  const now = ctx.clock.now()
  const match = patch.match ?? current.match
  const groups = patch.rule_groups ?? (current.ruleGroups as RuleGroup[])
  const row = ctx.db
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
    .get()
  return presentSegment(row)
}

export const getSegment = (ctx: Ctx, id: string) => presentSegment(findSegmentRow(ctx, id))

export function listSegments(ctx: Ctx, page: PageRequest & { client_id?: string }) {
  const where = listFilter(ctx.actor, segments.clientId, page.client_id)
  return paginate(ctx.db, ctx.secretKey, segments, segments.id, where, page, presentSegment)
}

export function deleteSegment(ctx: Ctx, id: string) {
  findSegmentRow(ctx, id)
  ctx.db.delete(segments).where(eq(segments.id, id)).run()
  return { id, deleted: true }
}

/** One page of the contacts the segment matches now (preview), from ids read by ./sizing.ts. */
export function segmentContacts(ctx: Ctx, page: PageRequest, found: { ids: string[]; total: number }) {
  const rows = contactsByIds(ctx, found.ids)
  return pageFrom(ctx.secretKey, rows, page.limit ?? DEFAULT_LIMIT, {
    collection: 'contacts',
    position: (row) => row.id,
    present: presentContact,
    total: found.total,
    query: page,
  })
}

/** Stores the sizes the refresh job counted (./sizing.ts); a segment deleted since is skipped. */
export function storeSegmentSizes(ctx: AppContext, sizes: Map<string, Sized>): number {
  for (const [id, sized] of sizes)
    ctx.db
      .update(segments)
      .set({ estimatedSize: sized.size, estimatedAt: sized.at })
      .where(eq(segments.id, id))
      .run()
  return sizes.size
}

/** The live estimate's answer: the size and the sample contacts, counted by ./sizing.ts. */
export function estimateSegment(ctx: Ctx, found: { size: number; ids: string[] }) {
  return { estimated_size: found.size, sample: contactsByIds(ctx, found.ids).map(presentContact) }
}

/** The contacts of `ids` (by primary key), in the order given. */
function contactsByIds(ctx: Ctx, ids: string[]): ContactRow[] {
  if (ids.length === 0) return []
  const byId = new Map(
    ctx.db
      .select()
      .from(contacts)
      .where(inArray(contacts.id, ids))
      .all()
      .map((r) => [r.id, r]),
  )
  return ids.flatMap((id) => byId.get(id) ?? [])
}
