import type { Ctx } from '../../context'
import { presentStats } from './present'
import { findCampaignRow } from './records'

/** One row read: the counters are kept with the events as they are written. */
export const campaignStats = (ctx: Ctx, id: string) => presentStats(findCampaignRow(ctx, id))
