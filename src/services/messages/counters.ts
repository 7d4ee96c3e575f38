import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'
import { rawRun } from '../../db/raw'

export type CampaignCounter =
  | 'sent'
  | 'skipped'
  | 'failed'
  | 'delivered'
  | 'opened'
  | 'machine_opened'
  | 'clicked'
  | 'replied'
  | 'bounced'
  | 'unsubscribed'

/** The counters an A/B test compares its variants on. */
const VARIANT_COUNTERS = ['sent', 'delivered', 'opened', 'clicked'] as const

/**
 * Adds to a campaign's running totals, and to its variant's when the message has one (an A/B
 * test); call it in the transaction that writes the events.
 */
export async function bumpCampaign(
  db: Db,
  campaignId: string | null,
  deltas: Partial<Record<CampaignCounter, number>>,
  variant: number | null = null,
): Promise<void> {
  if (!campaignId) return
  const sets = Object.entries(deltas)
    .filter(([, n]) => n)
    .map(([column, n]) => sql`${sql.identifier(column)} = ${sql.identifier(column)} + ${n}`)
  if (sets.length === 0) return
  await rawRun(db, sql`UPDATE campaigns SET ${sql.join(sets, sql`, `)} WHERE id = ${campaignId}`)
  if (variant === null) return
  const d = VARIANT_COUNTERS.map((k) => deltas[k] ?? 0)
  if (d.every((n) => n === 0)) return
  // The existing row is named (v): PostgreSQL finds a bare column ambiguous beside excluded.
  await rawRun(
    db,
    sql`INSERT INTO campaign_variant_counts AS v (campaign_id, variant, sent, delivered, opened, clicked)
        VALUES (${campaignId}, ${variant}, ${d[0]}, ${d[1]}, ${d[2]}, ${d[3]})
        ON CONFLICT (campaign_id, variant) DO UPDATE SET sent = v.sent + excluded.sent,
          delivered = v.delivered + excluded.delivered, opened = v.opened + excluded.opened,
          clicked = v.clicked + excluded.clicked`,
  )
}
