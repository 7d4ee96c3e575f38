import type { Ctx } from '../../context'
import { firstBucket, rollupTotals } from '../../db/rollups'
import { iso } from '../../lib/time'
import type { FunnelQuery } from './inputs'
import { type AnalyticsWindow, windowOf } from './window'

// The funnel sent → delivered → opened → clicked → replied over a window, from the rollups:
// each message counts once per step (its first open, click, reply), in the quarter-hour it
// happened; opens by mail privacy proxies are left out of `opened` and reported apart.

export const FUNNEL_STEPS = ['sent', 'delivered', 'opened', 'clicked', 'replied'] as const

const ratio = (n: number, d: number) => (d > 0 ? Math.round((n / d) * 10_000) / 10_000 : 0)

export function describeWindow(w: AnalyticsWindow) {
  return {
    client_id: w.clientId,
    from: iso(w.from),
    to: iso(w.to - 1),
    timezone: w.timezone,
    campaign_id: w.filter.campaignId ?? null,
    journey_id: w.filter.journeyId ?? null,
    sequence_id: w.filter.sequenceId ?? null,
    channel: w.filter.channel ?? null,
  }
}

export async function funnel(ctx: Ctx, q: FunnelQuery) {
  const w = await windowOf(ctx, q, async (clientId, filter) => await firstBucket(ctx, clientId, filter))
  const totals = await rollupTotals(ctx, w.clientId, w.from, w.to, w.filter)
  const sent = totals.sent
  let previous = sent
  const steps = FUNNEL_STEPS.map((name) => {
    const count = totals[name]
    const step = {
      name,
      count,
      rate_from_previous: name === 'sent' ? (sent > 0 ? 1 : 0) : ratio(count, previous),
      rate_from_sent: name === 'sent' ? (sent > 0 ? 1 : 0) : ratio(count, sent),
    }
    previous = count
    return step
  })
  return {
    ...describeWindow(w),
    steps,
    machine_opened: totals.machine_opened,
    bounced: totals.bounced,
    unsubscribed: totals.unsubscribed,
    complained: totals.complained,
  }
}
