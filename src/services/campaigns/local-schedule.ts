import { sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { rawRows } from '../../db/raw'
import { mapInOrder } from '../../lib/in-order'
import { isKnownZone } from '../../lib/local-time-of-day'
import { iso } from '../../lib/time'
import { offsetAt, wallClock } from '../../lib/zoned-time'
import { zoneOfClient } from './local-due'
import { findCampaignRow } from './records'

// The next zones a local-time campaign reaches, read from its queue: the first due times of its
// queued messages (walked in the due-time index, so bounded however large the audience), each
// with how many recipients wait for it and one of the zones it is their hour in.

export interface ZoneDue {
  /** One zone whose recipients are due then (others may share the offset). */
  zone: string
  /** `UTC+09:00`: the offset every recipient due then has. */
  offset: string
  /** Their wall time then: the campaign's local time, or the end of a DST gap that skipped it. */
  local_time: string
  at: string
  waiting: number
}

const hhmm = (wall: number) => new Date(wall).toISOString().slice(11, 16)

function offsetText(ms: number): string {
  const m = Math.round(Math.abs(ms) / 60_000)
  return `UTC${ms < 0 ? '-' : '+'}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`
}

/** The next `limit` due times of a local-time campaign (empty for any other, or once all is out). */
export async function localSchedule(ctx: Ctx, id: string, limit = 6) {
  const c = await findCampaignRow(ctx, id)
  if (!c.sendAtLocal) return { send_at_local: null, zones: [] as ZoneDue[] }
  const pg = ctx.store.dialect === 'postgres'
  const groups = pg
    ? (
        await rawRows<{ at: string; n: number }>(
          ctx.db,
          sql`SELECT next_attempt_at AS at, count(*)::int AS n FROM messages
            WHERE campaign_id = ${c.id} AND status = 'queued' GROUP BY next_attempt_at ORDER BY next_attempt_at LIMIT ${limit}`,
        )
      ).map((g) => ({ at: Number(g.at), n: g.n }))
    : await ctx.sqlite
        .query<{ at: number; n: number }, [string, number]>(
          `SELECT next_attempt_at AS at, count(*) AS n FROM messages
       WHERE campaign_id = ?1 AND status = 'queued' GROUP BY next_attempt_at ORDER BY next_attempt_at LIMIT ?2`,
        )
        .all(c.id, limit)
  const sample = pg
    ? {
        get: async (campaignId: string, at: number) =>
          (
            await rawRows<{ tz: string | null }>(
              ctx.db,
              sql`SELECT c.timezone AS tz FROM messages m JOIN contacts c ON c.id = m.contact_id
                WHERE m.campaign_id = ${campaignId} AND m.status = 'queued' AND m.next_attempt_at = ${at} LIMIT 1`,
            )
          )[0] ?? null,
      }
    : ctx.sqlite.query<{ tz: string | null }, [string, number]>(
        `SELECT c.timezone AS tz FROM messages m JOIN contacts c ON c.id = m.contact_id
     WHERE m.campaign_id = ?1 AND m.status = 'queued' AND m.next_attempt_at = ?2 LIMIT 1`,
      )
  const fallback = await zoneOfClient(ctx, c.clientId)
  const zones = await mapInOrder(groups, async (g): Promise<ZoneDue> => {
    const tz = (await sample.get(c.id, g.at))?.tz
    const zone = tz && isKnownZone(tz) ? tz : fallback
    return {
      zone,
      offset: offsetText(offsetAt(g.at, zone)),
      local_time: hhmm(wallClock(g.at, zone)),
      at: iso(g.at),
      waiting: g.n,
    }
  })
  return { send_at_local: c.sendAtLocal, zones }
}
