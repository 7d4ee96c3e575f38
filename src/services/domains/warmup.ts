import { inArray } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type DomainRow, domainWarmups } from '../../db/schema'
import { presentWarmup, warmupOn } from '../deliverability/warmup'
import { presentDomain, type WarmupProgress } from './present'

// What a domain's answer says of its warm-up: the day, the day's cap and what went out today,
// read in one query for a page of domains.

/** Where each warming domain of `rows` stands today; domains not warming are absent. */
export async function warmupProgressOf(
  ctx: Ctx,
  rows: readonly DomainRow[],
): Promise<Map<string, WarmupProgress>> {
  const on = rows.filter((r) => warmupOn(ctx.config, r.warmup)).map((r) => r.id)
  const out = new Map<string, WarmupProgress>()
  if (on.length === 0) return out
  const now = ctx.clock.now()
  for (const w of await ctx.db.select().from(domainWarmups).where(inArray(domainWarmups.domainId, on))) {
    const p = presentWarmup(w, true, now)
    if (p.daily_cap !== null)
      out.set(w.domainId, {
        started_at: p.started_at,
        day: p.day,
        daily_cap: p.daily_cap,
        sent_today: p.sent_today,
      })
  }
  return out
}

/** A domain as its doors answer it, with its warm-up progress. */
export async function presentWithProgress(ctx: Ctx, row: DomainRow) {
  return presentDomain(row, ctx.config, (await warmupProgressOf(ctx, [row])).get(row.id) ?? null)
}
