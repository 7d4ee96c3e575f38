import type { AppContext, Ctx } from '../../context'
import { cursorPosition, DEFAULT_LIMIT, type PageRequest } from '../../db/paginate'
import { segments } from '../../db/schema'
import { ownerForCreate } from '../../db/tenant'
import { countSegment, matchingIds, type SegmentRules } from './count'
import type { EstimateSegmentInput, SegmentInput } from './inputs'
import { findSegmentRow, type Sized } from './records'
import type { RuleGroup } from './rules'

// What the segment verbs read before they write (their `prepare`): the counts, on a read thread
// within the time budget (./count.ts), so the verbs' synchronous parts only store and present.

export async function sizeNewSegment(
  ctx: Ctx,
  input: Pick<SegmentInput, 'match' | 'rule_groups'>,
  clientIdParam?: string,
): Promise<Sized> {
  const clientId = await ownerForCreate(ctx.db, ctx.actor, clientIdParam)
  const at = ctx.clock.now()
  return {
    size: await countSegment(ctx, {
      clientId,
      match: input.match ?? 'all',
      groups: input.rule_groups,
      now: at,
    }),
    at,
  }
}

/** The new size when the rules or their match change; null when they do not (the estimate stands). */
export async function sizeSegmentUpdate(
  ctx: Ctx,
  id: string,
  patch: Partial<SegmentInput>,
): Promise<Sized | null> {
  if (patch.rule_groups === undefined && patch.match === undefined) return null
  const current = await findSegmentRow(ctx, id)
  const at = ctx.clock.now()
  const rules: SegmentRules = {
    clientId: current.clientId,
    match: patch.match ?? current.match,
    groups: patch.rule_groups ?? (current.ruleGroups as RuleGroup[]),
    now: at,
  }
  return { size: await countSegment(ctx, rules), at }
}

/** The live estimate's count and the ids of a few newest matches. */
export async function sizeUnsaved(ctx: Ctx, input: EstimateSegmentInput, sampleSize: number) {
  const rules: SegmentRules = {
    clientId: await ownerForCreate(ctx.db, ctx.actor, input.client_id),
    match: input.match ?? 'all',
    groups: input.rule_groups,
    now: ctx.clock.now(),
  }
  const [size, ids] = await Promise.all([
    await countSegment(ctx, rules),
    await matchingIds(ctx, rules, sampleSize, null),
  ])
  return { size, ids }
}

/** One preview page of a saved segment: the ids of the page (one more than asked) and the total. */
export async function previewPage(ctx: Ctx, id: string, page: PageRequest) {
  const s = await findSegmentRow(ctx, id)
  const limit = page.limit ?? DEFAULT_LIMIT
  const after = cursorPosition(ctx.secretKey, page.cursor, 'contacts', undefined, page)
  const rules: SegmentRules = {
    clientId: s.clientId,
    match: s.match,
    groups: s.ruleGroups as RuleGroup[],
    now: ctx.clock.now(),
  }
  const [ids, total] = await Promise.all([
    await matchingIds(ctx, rules, limit + 1, after),
    await countSegment(ctx, rules),
  ])
  return { ids, total }
}

/**
 * Every segment's size now, one count at a time. A segment that no longer compiles (its list
 * was deleted) or that takes longer than the budget keeps its last estimate.
 */
export async function sizeAllSegments(ctx: AppContext): Promise<Map<string, Sized>> {
  const all = await ctx.db
    .select({
      id: segments.id,
      clientId: segments.clientId,
      match: segments.match,
      ruleGroups: segments.ruleGroups,
    })
    .from(segments)
  const sizes = new Map<string, Sized>()
  for (const s of all) {
    const at = ctx.clock.now()
    try {
      const size = await countSegment(ctx, {
        clientId: s.clientId,
        match: s.match,
        groups: s.ruleGroups as RuleGroup[],
        now: at,
      })
      sizes.set(s.id, { size, at })
    } catch (err) {
      ctx.log.warn('segment refresh skipped', { segment_id: s.id, error: (err as Error).message })
    }
  }
  return sizes
}
