import { and, eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { outboxOf } from '../../db/outbox'
import { campaigns } from '../../db/schema'
import { inTransaction } from '../../db/transaction'
import { toPrefixedId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { recordEvent } from '../events/record'
import { OUTBOX_RULES, SENDING } from './states'

/**
 * sending → sent once the audience is copied and no message is queued or in flight; records
 * campaign.complete in the same transaction. Returns true when it completed the campaign.
 */
export async function completeIfDone(app: AppContext, campaignId: string): Promise<boolean> {
  return await inTransaction(app.sqlite, async () => {
    const c = (await app.db.select().from(campaigns).where(eq(campaigns.id, campaignId)).limit(1))[0]
    if (!c || c.status !== SENDING || !c.snapshotDone) return false
    if (await outboxOf(app.store, OUTBOX_RULES).campaignHasOpenMessages(campaignId)) return false
    const now = app.clock.now()
    // Still sending when the row is changed: another process finishing the same campaign at the
    // same moment completes it (and records campaign.complete) once. Its counters as written.
    const [done] = await app.db
      .update(campaigns)
      .set({ status: 'sent', completedAt: now, updatedAt: now })
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.status, SENDING)))
      .returning()
    if (!done) return false
    await recordEvent(app, {
      clientId: c.clientId,
      type: 'campaign.complete',
      campaignId: c.id,
      occurredAt: now,
      data: {
        campaign_id: toPrefixedId('campaign', c.id),
        name: c.name,
        channel: c.channel,
        total_recipients: done.totalRecipients ?? 0,
        total_sent: done.sent,
        skipped: done.skipped,
        delivered: done.delivered,
        bounced: done.bounced,
        failed: done.failed,
        completed_at: iso(now),
      },
    })
    return true
  })
}
