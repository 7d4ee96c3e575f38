import type { Ctx } from '../../context'
import { variantStats } from './ab-decide'
import { presentStats } from './present'
import { findCampaignRow } from './records'

/**
 * One row read: the counters are kept with the events as they are written. An A/B campaign adds
 * each variant's figures (one grouped read of its messages).
 */
export async function campaignStats(ctx: Ctx, id: string) {
  const row = await findCampaignRow(ctx, id)
  const variants = await variantStats(ctx, row)
  return variants ? { ...presentStats(row), variants } : presentStats(row)
}
