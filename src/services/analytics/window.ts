import type { Ctx } from '../../context'
import { QUARTER_MS, quarterOf, type RollupFilter } from '../../db/rollups'
import { ownerForCreate } from '../../db/tenant'
import { invalidField } from '../../errors'
import type { Awaitable } from '../../lib/awaitable'
import { DAY_MS, iso, parseIsoDateTime } from '../../lib/time'
import { instantOfWall, localDate } from '../../lib/zoned-time'
import { isTimeZone } from '../contacts/normalize'
import { idFilter } from '../id-filter'
import type { FunnelQuery } from './inputs'

// The window and filters of an analytics read. Dates are whole local days in `timezone` (UTC by
// default), `to` inclusive; date-times are instants, taken to the rollups' quarter-hour (`from`
// down, `to` up). Without `from`/`to` the window is the last 30 days (today included), or, when
// a campaign, journey or sequence is named, everything since its first recorded activity.

export const DEFAULT_DAYS = 30
const DATE = /^\d{4}-\d{2}-\d{2}$/

export interface AnalyticsWindow {
  clientId: string
  timezone: string
  /** [from, to), quarter-aligned UTC ms. */
  from: number
  to: number
  filter: RollupFilter
}

/** A platform-wide caller names the client (422 without it); a tenant reads its own. */
export const clientOf = async (ctx: Ctx, requested: string | undefined) =>
  await ownerForCreate(ctx.db, ctx.actor, requested)

export const timezoneErrors = (input: { timezone?: string }) =>
  input.timezone !== undefined && !isTimeZone(input.timezone)
    ? [{ field: 'timezone', message: 'must be an IANA time zone such as Europe/Paris' }]
    : []

function parseEdge(field: 'from' | 'to', value: string, tz: string): number {
  if (DATE.test(value)) {
    const wall = Date.parse(`${value}T00:00:00Z`)
    if (Number.isNaN(wall) || new Date(wall).toISOString().slice(0, 10) !== value)
      throw invalidField(field, 'is not a calendar date')
    // `to` is inclusive: its day ends at the next local midnight.
    return instantOfWall(field === 'to' ? wall + DAY_MS : wall, tz)
  }
  const ms = parseIsoDateTime(value)
  if (ms === null) throw invalidField(field, 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time')
  return field === 'from' ? quarterOf(ms) : quarterOf(ms) + QUARTER_MS
}

export async function windowOf(
  ctx: Ctx,
  q: FunnelQuery,
  firstActivity: (clientId: string, filter: RollupFilter) => Awaitable<number | null>,
): Promise<AnalyticsWindow> {
  const clientId = await clientOf(ctx, q.client_id)
  const timezone = q.timezone ?? 'UTC'
  const filter: RollupFilter = {
    campaignId: idFilter('campaign_id', 'campaign', q.campaign_id),
    journeyId: idFilter('journey_id', 'journey', q.journey_id),
    sequenceId: idFilter('sequence_id', 'sequence', q.sequence_id),
    channel: q.channel,
  }
  const named = [filter.campaignId, filter.journeyId, filter.sequenceId].filter((v) => v !== undefined)
  if (named.length > 1)
    throw invalidField('campaign_id', 'name at most one of campaign_id, journey_id, sequence_id')
  for (const k of Object.keys(filter) as (keyof RollupFilter)[]) if (filter[k] === undefined) delete filter[k]
  const now = ctx.clock.now()
  const today = localDate(now, timezone)
  const to = q.to !== undefined ? parseEdge('to', q.to, timezone) : instantOfWall(today + DAY_MS, timezone)
  let from: number
  if (q.from !== undefined) from = parseEdge('from', q.from, timezone)
  else {
    const first = named.length ? await firstActivity(clientId, filter) : null
    from =
      first !== null
        ? instantOfWall(localDate(first, timezone), timezone)
        : q.to !== undefined
          ? // Only `to`: the 30 days that end with it, not the 30 days before today.
            instantOfWall(localDate(to - 1, timezone) - (DEFAULT_DAYS - 1) * DAY_MS, timezone)
          : instantOfWall(today - (DEFAULT_DAYS - 1) * DAY_MS, timezone)
  }
  if (from >= to) throw invalidField('from', `must be before to (${iso(to)}, exclusive)`)
  return { clientId, timezone, from, to, filter }
}
