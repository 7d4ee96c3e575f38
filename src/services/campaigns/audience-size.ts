import type { Ctx } from '../../context'
import { ServiceError } from '../../errors'
import { countAudience } from './audience'
import { findCampaignRow } from './manage'

/**
 * The audience a launch would count now, from the same counter as the launch (a list's
 * maintained member count, a segment's estimate). A campaign without an audience, or whose list
 * or segment is gone, answers null with the reason instead of failing the confirmation page.
 */
export function campaignAudience(ctx: Ctx, id: string) {
  const c = findCampaignRow(ctx, id)
  if (!c.listId && !c.segmentId)
    return { id: c.id, total_recipients: null, problem: 'choose a list or a segment first' }
  try {
    return { id: c.id, total_recipients: countAudience(ctx, c), problem: null }
  } catch (err) {
    if (err instanceof ServiceError) return { id: c.id, total_recipients: null, problem: err.message }
    throw err
  }
}
