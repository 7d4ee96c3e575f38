import { and, eq, sql } from 'drizzle-orm'
import type { Config } from '../../config'
import type { AppContext } from '../../context'
import { type DomainWarmupRow, domains, domainWarmups } from '../../db/schema'
import { DAY_MS, dayOf, iso } from '../../lib/time'

// Warm-up of a new sending domain: mailbox providers distrust a domain that starts
// sending in volume, so from its first send on its mail is capped per UTC day on a schedule that
// roughly doubles; what is over the day's cap waits for the next day (deferred, not failed).
// Only mail that reaches real inboxes warms up: the plan asks for it when the provider signs
// with the domain's DKIM key (SMTP), never for capture or the simulator. Each domain has its own
// switch (PATCH /domains/{id} {warmup: false} for one that arrives with its reputation);
// HERALD_WARMUP is the switch of new domains, and of older ones that never set theirs.

/** Daily caps of days 1, 2, 3… since the first send; from day 16 on no cap. */
export const WARMUP_SCHEDULE = [
  50, 100, 200, 400, 800, 1_500, 3_000, 5_000, 8_000, 12_000, 20_000, 30_000, 50_000, 75_000, 100_000,
] as const

export interface WarmupPlan {
  domainId: string
  domain: string
  startedAt: number
}

/** The cap of the UTC day of `now`, or null once the schedule is over. */
export function warmupCap(startedAt: number, now: number): number | null {
  const day = Math.floor((dayOf(now) - dayOf(startedAt)) / DAY_MS)
  return WARMUP_SCHEDULE[Math.max(0, day)] ?? null
}

/** Whether a domain's mail is under warm-up: its own switch, else the instance's. */
export const warmupOn = (config: Pick<Config, 'warmup'>, flag: boolean | null) => flag ?? config.warmup

/**
 * The warm-up a send from `domainName` (a verified domain of the client) is under, starting it
 * with this first send; null when it is over or off.
 */
export async function warmupFor(
  app: AppContext,
  clientId: string,
  domainName: string,
): Promise<WarmupPlan | null> {
  const domain = (
    await app.db
      .select({ id: domains.id, warmup: domains.warmup })
      .from(domains)
      .where(and(eq(domains.clientId, clientId), eq(domains.domain, domainName)))
      .limit(1)
  )[0]
  if (!domain || !warmupOn(app.config, domain.warmup)) return null
  const now = app.clock.now()
  await app.db
    .insert(domainWarmups)
    .values({ domainId: domain.id, clientId, domain: domainName, startedAt: now, day: dayOf(now), sent: 0 })
    .onConflictDoNothing()
  const row = (
    await app.db.select().from(domainWarmups).where(eq(domainWarmups.domainId, domain.id)).limit(1)
  )[0]!
  if (warmupCap(row.startedAt, now) === null) return null
  return { domainId: row.domainId, domain: row.domain, startedAt: row.startedAt }
}

/** Sends already counted for the domain on `day` (a restart keeps the day's count). */
export async function warmupSentOn(app: AppContext, domainId: string, day: number): Promise<number> {
  const row = (
    await app.db
      .select({ day: domainWarmups.day, sent: domainWarmups.sent })
      .from(domainWarmups)
      .where(eq(domainWarmups.domainId, domainId))
      .limit(1)
  )[0]
  return row && row.day === day ? row.sent : 0
}

export async function saveWarmupCount(
  app: AppContext,
  domainId: string,
  day: number,
  sent: number,
): Promise<void> {
  // Never lower within a day: with several processes, counts may be saved out of order.
  await app.db
    .update(domainWarmups)
    .set({
      day,
      sent: sql`CASE WHEN ${domainWarmups.day} = ${day} AND ${domainWarmups.sent} > ${sent} THEN ${domainWarmups.sent} ELSE ${sent} END`,
    })
    .where(eq(domainWarmups.domainId, domainId))
}

/** Each warming domain of a client: where it stands today (the score and the portal). */
export async function warmupStatus(app: AppContext, clientId: string) {
  const now = app.clock.now()
  return (
    await app.db
      .select({ w: domainWarmups, on: domains.warmup })
      .from(domainWarmups)
      .innerJoin(domains, eq(domains.id, domainWarmups.domainId))
      .where(eq(domainWarmups.clientId, clientId))
  ).map(({ w, on }) => presentWarmup(w, warmupOn(app.config, on), now))
}

/** Where one domain's warm-up stands on the UTC day of `now`; off or over: no cap, complete. */
export function presentWarmup(w: DomainWarmupRow, on: boolean, now: number) {
  const cap = on ? warmupCap(w.startedAt, now) : null
  return {
    domain_id: w.domainId,
    domain: w.domain,
    started_at: iso(w.startedAt),
    day: Math.floor((dayOf(now) - dayOf(w.startedAt)) / DAY_MS) + 1,
    daily_cap: cap,
    sent_today: w.day === dayOf(now) ? w.sent : 0,
    complete: cap === null,
    completes_on: iso(dayOf(w.startedAt) + WARMUP_SCHEDULE.length * DAY_MS).slice(0, 10),
  }
}
