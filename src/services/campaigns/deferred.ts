import { and, count, inArray, min, sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { type CampaignRow, messages } from '../../db/schema'
import type { DeferReason } from '../../lib/enums'
import { iso } from '../../lib/time'

// Why a sending campaign is held back: its queued messages that a sending limit (warm-up, a
// throttle, the hourly cap) deferred, read from the partial index of deferred messages.

export interface CampaignDeferral {
  count: number
  /** The limit holding back the most of its messages. */
  reason: DeferReason
  /** When the first of them is due again. */
  until: string
}

// Literal, not bound: SQLite uses a partial index only when the query's terms name its condition.
const WAITING = sql.raw(`"messages"."status" = 'queued' AND "messages"."defer_reason" IS NOT NULL`)

/** The deferral of each campaign of `ids` that has one; the others are absent. */
export async function deferralsOf(db: Db, ids: readonly string[]): Promise<Map<string, CampaignDeferral>> {
  const out = new Map<string, CampaignDeferral>()
  if (ids.length === 0) return out
  const groups = await db
    .select({
      campaignId: messages.campaignId,
      reason: messages.deferReason,
      n: count(),
      until: min(messages.nextAttemptAt),
    })
    .from(messages)
    .where(and(inArray(messages.campaignId, [...ids]), WAITING))
    .groupBy(messages.campaignId, messages.deferReason)
  const sums = new Map<string, { count: number; most: number; reason: DeferReason; until: number }>()
  for (const g of groups) {
    const s = sums.get(g.campaignId!)
    if (!s) sums.set(g.campaignId!, { count: g.n, most: g.n, reason: g.reason!, until: g.until! })
    else {
      s.count += g.n
      s.until = Math.min(s.until, g.until!)
      if (g.n > s.most) Object.assign(s, { most: g.n, reason: g.reason! })
    }
  }
  for (const [id, s] of sums) out.set(id, { count: s.count, reason: s.reason, until: iso(s.until) })
  return out
}

/** Only a sending campaign is held back by a limit; a paused one waits for its resume. */
export const deferralOf = async (db: Db, c: Pick<CampaignRow, 'id' | 'status'>) =>
  c.status === 'sending' ? ((await deferralsOf(db, [c.id])).get(c.id) ?? null) : null
