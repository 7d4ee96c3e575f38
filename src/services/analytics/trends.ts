import type { Ctx } from '../../context'
import { firstBucket, rollupSeries } from '../../db/rollups'
import { invalidField } from '../../errors'
import { iso } from '../../lib/time'
import { bucketsOf, QUARTER } from '../../lib/zoned-time'
import { describeWindow } from './funnel'
import type { TrendsQuery } from './inputs'
import { windowOf } from './window'

// One metric over time in hour, day or ISO-week buckets of a time zone (DST included: a
// spring-forward day has 23 hours), zero-filled. Each local bucket is the sum of the rollups'
// UTC quarter-hours inside it.

/** At most this many quarter-hours (~417 days) per request. */
const MAX_QUARTERS = 40_000

export async function trends(ctx: Ctx, q: TrendsQuery) {
  const metric = q.metric ?? 'sent'
  const interval = q.interval ?? 'day'
  const w = await windowOf(ctx, q, async (clientId, filter) => await firstBucket(ctx, clientId, filter))
  if ((w.to - w.from) / QUARTER > MAX_QUARTERS)
    throw invalidField('from', `the window may span at most ${Math.floor(MAX_QUARTERS / 96)} days`)
  const buckets = bucketsOf(interval, w.timezone, w.from, w.to)
  const series = await rollupSeries(ctx, w.clientId, metric, w.from, w.to, w.filter)
  const values = new Array<number>(buckets.length).fill(0)
  let i = 0
  for (const { bucket, n } of series) {
    while (i + 1 < buckets.length && buckets[i + 1]!.start <= bucket) i++
    values[i]! += n
  }
  let total = 0
  const points = buckets.map((b, k) => {
    total += values[k]!
    return { t: iso(b.start), local: b.local, value: values[k]! }
  })
  return { metric, interval, ...describeWindow(w), total, points }
}
