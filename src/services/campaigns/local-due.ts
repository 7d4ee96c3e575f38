import { eq, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { rawRows } from '../../db/raw'
import { type CampaignRow, clients } from '../../db/schema'
import { instantOnLocalDay, isKnownZone, minutesOf, nextLocalTimeOfDay } from '../../lib/local-time-of-day'
import { localDate } from '../../lib/zoned-time'

// When each recipient of a local-time campaign is due (the audience copy stamps its messages
// with it), and when the first of them is.

/** The client's zone, the fallback of contacts without one (UTC when it has none either). */
export async function zoneOfClient(app: AppContext, clientId: string): Promise<string> {
  const tz = (
    await app.db.select({ tz: clients.timezone }).from(clients).where(eq(clients.id, clientId)).limit(1)
  )[0]?.tz
  return tz && isKnownZone(tz) ? tz : 'UTC'
}

/**
 * Each recipient's due instant, from their zone (null: the client's); null for a campaign
 * without a local time. One computation per zone: a whole chunk shares a few dozen at most.
 */
export async function localDueTimes(
  app: AppContext,
  c: CampaignRow,
): Promise<((zone: string | null) => number) | null> {
  if (!c.sendAtLocal) return null
  const minutes = minutesOf(c.sendAtLocal)
  const fallback = await zoneOfClient(app, c.clientId)
  const from = c.launchedAt ?? app.clock.now()
  const day = c.scheduledAt
  const at = new Map<string, number>()
  return (zone) => {
    const tz = zone && isKnownZone(zone) ? zone : fallback
    let due = at.get(tz)
    if (due === undefined) {
      due =
        day !== null
          ? instantOnLocalDay(localDate(day, tz), minutes, tz)
          : nextLocalTimeOfDay(from, minutes, tz)
      at.set(tz, due)
    }
    return due
  }
}

/** When the campaign's first queued message is due; null when none is queued. */
export async function firstDueAt(app: AppContext, campaignId: string): Promise<number | null> {
  if (app.store.dialect === 'postgres') {
    const [r] = await rawRows<{ at: string | null }>(
      app.db,
      sql`SELECT min(next_attempt_at) AS at FROM messages WHERE campaign_id = ${campaignId} AND status = 'queued'`,
    )
    return r?.at == null ? null : Number(r.at)
  }
  return (
    (
      await app.sqlite
        .query<{ at: number | null }, [string]>(
          "SELECT min(next_attempt_at) AS at FROM messages WHERE campaign_id = ?1 AND status = 'queued'",
        )
        .get(campaignId)
    )?.at ?? null
  )
}

/** What the end of the copy sets on a local-time campaign: it starts when its first recipient is due. */
export const copiedAtLocalTime = async (app: AppContext, c: CampaignRow) =>
  c.sendAtLocal ? { scheduledAt: (await firstDueAt(app, c.id)) ?? app.clock.now() } : {}
