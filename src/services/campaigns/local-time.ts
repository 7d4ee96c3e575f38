import { eq } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { type CampaignRow, campaigns } from '../../db/schema'
import { countAudience } from './audience'
import type { CountedAudience } from './audience-size'
import { firstDueAt } from './local-due'
import { SCHEDULED, SENDING } from './states'

// Local-time delivery (`send_at_local: "09:00"`): each recipient gets the campaign at that wall
// time in their zone (the contact's, else the client's, else UTC), on the local date of
// scheduled_at when given, else at the next occurrence after the launch.
//
// How it runs: the launch copies the audience at once, as any launch does, but the campaign stays
// `scheduled`; each message is queued due at its recipient's instant, and the claim never takes a
// message before its due time. When the copy is done, scheduled_at becomes the earliest of those
// instants and the scheduler job starts the campaign then (`sending`); it completes when the last
// zone's messages are out. Paused and resumed late, the recipients whose time has passed are sent
// at once.

/**
 * launch of a local-time campaign: the audience is counted and copied now, each recipient due at
 * their hour, the campaign `scheduled` until the first of them. Launched again while scheduled it
 * changes nothing; resumed after a pause it is `sending` if it had started or its first recipient
 * is due, else `scheduled` again.
 */
export async function launchAtLocalTime(
  app: AppContext,
  c: CampaignRow,
  now: number,
  counted: CountedAudience,
): Promise<CampaignRow> {
  const set = async (values: Partial<CampaignRow>) =>
    (
      await app.db
        .update(campaigns)
        .set({ ...values, updatedAt: now })
        .where(eq(campaigns.id, c.id))
        .returning()
    )[0]!
  if (c.launchedAt === null) {
    if (counted && 'refused' in counted) throw counted.refused
    return await set({
      status: SCHEDULED,
      launchedAt: now,
      totalRecipients: counted ? counted.total : await countAudience(app, c),
      snapshotCursor: null,
      snapshotDone: false,
    })
  }
  if (c.status === SCHEDULED) return c
  const first = c.snapshotDone ? ((await firstDueAt(app, c.id)) ?? now) : null
  if (c.startedAt !== null || (first !== null && first <= now))
    return await set({ status: SENDING, startedAt: c.startedAt ?? now })
  return await set({ status: SCHEDULED, ...(first !== null ? { scheduledAt: first } : {}) })
}

/**
 * The scheduler's turn on a local-time campaign whose scheduled_at has come: launched then (it
 * was scheduled before it had a local time), or started once its copy is done.
 */
export async function startAtLocalTime(app: AppContext, c: CampaignRow, now: number): Promise<void> {
  if (c.launchedAt === null) {
    await launchAtLocalTime(app, c, now, null)
    return
  }
  if (!c.snapshotDone) return
  await app.db
    .update(campaigns)
    .set({ status: SENDING, startedAt: now, updatedAt: now })
    .where(eq(campaigns.id, c.id))
}
