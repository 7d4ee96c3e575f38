import type { Ctx } from '../../context'
import { ServiceError } from '../../errors'
import { countSegment } from '../segments/count'
import type { RuleGroup } from '../segments/rules'
import { countAudience, segmentOf } from './audience'
import { findCampaignRow } from './manage'

/**
 * The audience a launch would count now: a list's maintained member count, or the segment's
 * rules counted on a read thread within the segment time budget (a count too slow is a problem
 * shown on the page, like a missing audience). A campaign without an audience, or whose list or
 * segment is gone, answers null with the reason instead of failing the confirmation page.
 */
export async function campaignAudience(ctx: Ctx, id: string) {
  const c = findCampaignRow(ctx, id)
  if (!c.listId && !c.segmentId)
    return { id: c.id, total_recipients: null, problem: 'choose a list or a segment first' }
  try {
    if (c.listId) return { id: c.id, total_recipients: countAudience(ctx, c), problem: null }
    const s = segmentOf(ctx, c)
    const rules = {
      clientId: c.clientId,
      match: s.match,
      groups: s.ruleGroups as RuleGroup[],
      now: ctx.clock.now(),
    }
    return { id: c.id, total_recipients: await countSegment(ctx, rules), problem: null }
  } catch (err) {
    if (err instanceof ServiceError) return { id: c.id, total_recipients: null, problem: err.message }
    throw err
  }
}
