import type { Ctx } from '../../context'
import { ServiceError } from '../../errors'
import { countSegment } from '../segments/count'
import type { RuleGroup } from '../segments/rules'
import { countAudience, segmentOf } from './audience'
import { findCampaignRow } from './records'

/**
 * The audience a launch would count now: a list's maintained member count, or the segment's
 * rules counted on a read thread within the segment time budget (a count too slow is a problem
 * shown on the page, like a missing audience). A campaign without an audience, or whose list or
 * segment is gone, answers null with the reason instead of failing the confirmation page.
 */
export async function campaignAudience(ctx: Ctx, id: string) {
  const c = await findCampaignRow(ctx, id)
  if (!c.listId && !c.segmentId)
    return { id: c.id, total_recipients: null, problem: 'choose a list or a segment first' }
  try {
    if (c.listId) return { id: c.id, total_recipients: await countAudience(ctx, c), problem: null }
    return { id: c.id, total_recipients: await countSegmentAudience(ctx, c), problem: null }
  } catch (err) {
    if (err instanceof ServiceError) return { id: c.id, total_recipients: null, problem: err.message }
    throw err
  }
}

/** A segment audience counted before a launch: the count, or the refusal to raise where it is used. */
export type CountedAudience = { total: number } | { refused: ServiceError } | null

/**
 * A segment campaign's audience counted on a read thread within the segment time budget, before
 * the launch's transaction (null for a list campaign: its count is a maintained counter). A
 * refusal (gone, too slow) is kept for the launch to raise after its own state checks.
 */
export async function countLaunchAudience(ctx: Ctx, id: string): Promise<CountedAudience> {
  const c = await findCampaignRow(ctx, id)
  if (c.listId || !c.segmentId) return null
  try {
    return { total: await countSegmentAudience(ctx, c) }
  } catch (err) {
    if (err instanceof ServiceError) return { refused: err }
    throw err
  }
}

/** The campaign's segment counted now, on a read thread within the segment time budget. */
async function countSegmentAudience(
  ctx: Ctx,
  c: Awaited<ReturnType<typeof findCampaignRow>>,
): Promise<number> {
  const s = await segmentOf(ctx, c)
  return await countSegment(ctx, {
    clientId: c.clientId,
    match: s.match,
    groups: s.ruleGroups as RuleGroup[],
    now: ctx.clock.now(),
  })
}
