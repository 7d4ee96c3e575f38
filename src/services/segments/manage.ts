import { and, count, desc, eq, sql } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import type { Db } from '../../db/client'
import { type PageRequest, paginate } from '../../db/paginate'
import { contacts, lists, type SegmentRow, segments } from '../../db/schema'
import { findVisible, listFilter, ownerForCreate } from '../../db/tenant'
import { notFound, validationFailed } from '../../errors'
import { newId } from '../../lib/ids'
import { iso, isoOrNull } from '../../lib/time'
import { presentContact } from '../contacts/present'
import type { EstimateSegmentInput, SegmentInput } from './inputs'
import { compileSegment, type RuleGroup } from './rules'

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

export function createSegment(ctx: Ctx, input: SegmentInput, clientIdParam?: string) {
  const clientId = ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const now = ctx.clock.now()
  const match = input.match ?? 'all'
  const size = estimateSize(ctx.db, clientId, match, input.rule_groups, now)
  const row = ctx.db
    .insert(segments)
    .values({
      id: newId(),
      clientId,
      name: input.name,
      match,
      ruleGroups: input.rule_groups,
      estimatedSize: size,
      estimatedAt: now,
      createdAt: now,
      updatedAt: now,
    })
    .returning()
    .get()
  return presentSegment(row)
}

export function updateSegment(ctx: Ctx, id: string, patch: Partial<SegmentInput>) {
  const current = findSegmentRow(ctx, id)
  const now = ctx.clock.now()
  const match = patch.match ?? current.match
  const groups = patch.rule_groups ?? (current.ruleGroups as RuleGroup[])
  const size = estimateSize(ctx.db, current.clientId, match, groups, now)
  const row = ctx.db
    .update(segments)
    .set({
      name: patch.name ?? current.name,
      match,
      ruleGroups: groups,
      estimatedSize: size,
      estimatedAt: now,
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

/** The contacts the segment matches now (preview), paginated like any list. */
export function segmentContacts(ctx: Ctx, id: string, page: PageRequest) {
  const s = findSegmentRow(ctx, id)
  const where = segmentCondition(ctx.db, s.clientId, s.match, s.ruleGroups as RuleGroup[], ctx.clock.now())
  return paginate(ctx.db, ctx.secretKey, contacts, contacts.id, where, page, presentContact)
}

/** Scheduled job: recompute every segment's estimated_size. One segment per transaction. */
export function refreshSegmentSizes(ctx: AppContext): number {
  const all = ctx.db
    .select({
      id: segments.id,
      clientId: segments.clientId,
      match: segments.match,
      ruleGroups: segments.ruleGroups,
    })
    .from(segments)
    .all()
  for (const s of all) {
    const now = ctx.clock.now()
    try {
      const size = estimateSize(ctx.db, s.clientId, s.match, s.ruleGroups as RuleGroup[], now)
      ctx.db
        .update(segments)
        .set({ estimatedSize: size, estimatedAt: now })
        .where(eq(segments.id, s.id))
        .run()
    } catch (err) {
      // A segment whose list was deleted no longer compiles; keep its last estimate.
      ctx.log.warn('segment refresh skipped', { segment_id: s.id, error: (err as Error).message })
    }
  }
  return all.length
}

/**
 * The size of rules not saved yet (the portal's live estimate while editing) and the newest few
 * contacts they match: the same compiled condition as create and the refresh job.
 */
export function estimateSegment(ctx: Ctx, input: EstimateSegmentInput, sampleSize = 5) {
  const clientId = ownerForCreate(ctx.db, ctx.actor, input.client_id)
  const where = segmentCondition(ctx.db, clientId, input.match ?? 'all', input.rule_groups, ctx.clock.now())
  const estimated = ctx.db.select({ n: count() }).from(contacts).where(where).get()?.n ?? 0
  const sample = ctx.db
    .select()
    .from(contacts)
    .where(where)
    .orderBy(desc(contacts.id))
    .limit(sampleSize)
    .all()
  return { estimated_size: estimated, sample: sample.map(presentContact) }
}
