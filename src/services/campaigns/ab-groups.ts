import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import type { Outbox } from '../../db/outbox'
import { type CampaignRow, campaigns } from '../../db/schema'
import { unitOf } from '../../lib/seeded'
import { noteDecisionDue } from './ab-schedule'
import { decidesAt } from './ab-test'

/**
 * Where an A/B campaign's messages wait while the test runs: past any real time, so the claim
 * (which takes messages due by now) leaves them until the decision releases them.
 */
export const HELD_FOR_DECISION = 8_640_000_000_000_000

/**
 * Draws the test groups once the whole audience is in the outbox (in the transaction of the
 * copy's last chunk): recipients are ranked by a draw from the campaign and contact ids (seeded,
 * so the same audience always splits the same way), the first `test_share` of them take the
 * variants in turn — equal parts, give or take one, no one in two — and become due now. The rest
 * stay held for the winner.
 */
export async function drawTestGroups(
  app: AppContext,
  outbox: Outbox,
  c: CampaignRow,
  now: number,
): Promise<void> {
  if (!c.abTest || !c.variants) return
  const k = c.variants.length
  const rows = (await outbox.campaignQueued(c.id))
    .map((r) => ({ seq: r.seq, u: unitOf(`${c.id}:${r.contact_id}`) }))
    .sort((a, b) => a.u - b.u || a.seq - b.seq)
  const testSize = Math.min(rows.length, Math.max(k, Math.round(rows.length * c.abTest.test_share)))
  for (let rank = 0; rank < testSize; rank++) await outbox.setVariant(rows[rank]!.seq, rank % k, now)
  const started = (
    await app.db.update(campaigns).set({ abStartedAt: now }).where(eq(campaigns.id, c.id)).returning()
  )[0]!
  noteDecisionDue(app, decidesAt(started))
}
