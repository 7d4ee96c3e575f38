import { sql } from 'drizzle-orm'
import type { Db } from '../../db/client'

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

/** Adds to a campaign's running totals; call it in the transaction that writes the events. */
export function bumpCampaign(
  db: Db,
  campaignId: string | null,
  deltas: Partial<Record<CampaignCounter, number>>,
): void {
  if (!campaignId) return
  const sets = Object.entries(deltas)
    .filter(([, n]) => n)
    .map(([column, n]) => sql`${sql.identifier(column)} = ${sql.identifier(column)} + ${n}`)
  if (sets.length === 0) return
  db.run(sql`UPDATE campaigns SET ${sql.join(sets, sql`, `)} WHERE id = ${campaignId}`)
}
