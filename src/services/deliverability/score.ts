import { and, count, eq, inArray } from 'drizzle-orm'
import type { Ctx } from '../../context'
import {
  campaignTotals,
  dailyTotals,
  QUARTER_MS,
  quarterOf,
  ROLLUP_COUNTERS,
  type RollupTotals,
} from '../../db/rollups'
import { campaigns, clients, contacts, domains, lists } from '../../db/schema'
import { DAY_MS, iso, isoOrNull } from '../../lib/time'
import { clientOf } from '../analytics/window'
import { contactCount } from '../contacts/counts'
import { dmarcName } from '../domains/records'
import { activeAlerts } from './alerts'
import { num, pct } from './format'
import { warmupStatus } from './warmup'

// The deliverability score: 0–100 and a grade from weighted factors over the
// last 30 days of rollups, each with its value, status and one advice sentence that carries the
// numbers and names what to do (and, for bounces and complaints, which campaign to look at).
// A client with no sends in the window is scored on authentication alone, and says so.

export const WINDOW_DAYS = 30

type Status = 'ok' | 'warn' | 'bad'

export interface Factor {
  name: string
  value: number | null
  weight: number
  score: number | null
  status: Status
  advice: string
}

/** Thresholds of the rate factors (lower is better): warn at or above `warn`, bad at or above `bad`. */
export const THRESHOLDS = {
  bounce_rate: { warn: 0.02, bad: 0.05 },
  complaint_rate: { warn: 0.001, bad: 0.003 },
  unsubscribe_rate: { warn: 0.005, bad: 0.01 },
  list_hygiene: { warn: 0.05, bad: 0.15 },
  /** Busiest day ÷ the average sending day. */
  volume_consistency: { warn: 3, bad: 6 },
  /** Open rate (higher is better): warn below `warn`, bad below `bad`. */
  engagement: { warn: 0.15, bad: 0.05 },
} as const

export const WEIGHTS = {
  bounce_rate: 20,
  complaint_rate: 25,
  authentication: 20,
  unsubscribe_rate: 5,
  engagement: 10,
  list_hygiene: 10,
  volume_consistency: 10,
  alerts: 0,
} as const

/**
 * A factor's 0–100 from its value when lower is better: 100 under `warn`, 80 → 50 between
 * `warn` and `bad`, 50 → 0 between `bad` and twice `bad`.
 */
export function lowerIsBetter(
  value: number,
  t: { warn: number; bad: number },
): { score: number; status: Status } {
  if (value < t.warn) return { score: 100, status: 'ok' }
  if (value < t.bad)
    return { score: Math.round(80 - (30 * (value - t.warn)) / (t.bad - t.warn)), status: 'warn' }
  return { score: Math.max(0, Math.round(50 - (50 * (value - t.bad)) / t.bad)), status: 'bad' }
}

/** The same when higher is better: 100 at or above `warn`, 80 → 50 down to `bad`, 50 → 0 below. */
function higherIsBetter(value: number, t: { warn: number; bad: number }): { score: number; status: Status } {
  if (value >= t.warn) return { score: 100, status: 'ok' }
  if (value >= t.bad)
    return { score: Math.round(50 + (30 * (value - t.bad)) / (t.warn - t.bad)), status: 'warn' }
  return { score: Math.round((50 * value) / t.bad), status: 'bad' }
}

export function gradeOf(score: number): 'A' | 'B' | 'C' | 'D' | 'F' {
  return score >= 90 ? 'A' : score >= 80 ? 'B' : score >= 70 ? 'C' : score >= 60 ? 'D' : 'F'
}

const rate = (n: number, d: number) => (d > 0 ? n / d : 0)
const round4 = (n: number) => Math.round(n * 10_000) / 10_000

interface CampaignLine {
  campaign_id: string
  name: string
  list_id: string | null
  list_name: string | null
  list_created_at: string | null
  sent: number
  delivered: number
  bounced: number
  bounce_rate: number
  complained: number
  complaint_rate: number
  unsubscribed: number
}

async function campaignBreakdown(
  ctx: Ctx,
  clientId: string,
  from: number,
  to: number,
): Promise<CampaignLine[]> {
  const rows = await campaignTotals(ctx, clientId, from, to)
  if (rows.length === 0) return []
  const ids = rows.map((r) => r.campaign_id)
  const meta = new Map(
    (
      await ctx.db
        .select({ id: campaigns.id, name: campaigns.name, listId: campaigns.listId })
        .from(campaigns)
        .where(inArray(campaigns.id, ids))
    ).map((c) => [c.id, c]),
  )
  const listIds = [
    ...new Set([...meta.values()].map((c) => c.listId).filter((id): id is string => id !== null)),
  ]
  const listMeta = new Map(
    listIds.length === 0
      ? []
      : (
          await ctx.db
            .select({ id: lists.id, name: lists.name, createdAt: lists.createdAt })
            .from(lists)
            .where(inArray(lists.id, listIds))
        ).map((l) => [l.id, l]),
  )
  return rows
    .map((r) => {
      const c = meta.get(r.campaign_id)
      const list = c?.listId ? listMeta.get(c.listId) : undefined
      return {
        campaign_id: r.campaign_id,
        name: c?.name ?? '(deleted campaign)',
        list_id: c?.listId ?? null,
        list_name: list?.name ?? null,
        list_created_at: isoOrNull(list?.createdAt),
        sent: r.sent,
        delivered: r.delivered,
        bounced: r.bounced,
        bounce_rate: round4(rate(r.bounced, r.sent)),
        complained: r.complained,
        complaint_rate: round4(rate(r.complained, r.delivered || r.sent)),
        unsubscribed: r.unsubscribed,
      }
    })
    .sort((a, b) => b.complained - a.complained || b.bounced - a.bounced || b.sent - a.sent)
}

/** "campaign "Spring sale" (7.3 % of 1,200 sends; list "Fair leads", created 2026-11-02)". */
function culprit(c: CampaignLine, what: 'bounce' | 'complaint'): string {
  const r = what === 'bounce' ? c.bounce_rate : c.complaint_rate
  const list = c.list_name ? `; list "${c.list_name}", created ${c.list_created_at!.slice(0, 10)}` : ''
  return `campaign "${c.name}" (${pct(r)} of ${num(what === 'bounce' ? c.sent : c.delivered || c.sent)} ${what === 'bounce' ? 'sends' : 'deliveries'}${list})`
}

async function authenticationFactor(ctx: Ctx, clientId: string) {
  const rows = await ctx.db.select().from(domains).where(eq(domains.clientId, clientId))
  const out = rows.map((d) => ({
    domain_id: d.id,
    domain: d.domain,
    status: d.status,
    dkim: d.dkimVerified,
    spf: d.spfVerified,
    dmarc: d.dmarcVerified,
    checked_at: isoOrNull(d.checks?.checked_at),
  }))
  if (rows.length === 0)
    return {
      domains: out,
      factor: {
        name: 'authentication',
        value: 0,
        weight: WEIGHTS.authentication,
        score: 0,
        status: 'bad' as Status,
        advice:
          'No sending domain: add your domain (POST /api/v1/domains), publish its DKIM, SPF and DMARC records and verify it; Gmail and Yahoo reject unauthenticated bulk mail.',
      },
    }
  const passing = out.reduce((n, d) => n + Number(d.dkim) + Number(d.spf) + Number(d.dmarc), 0)
  const value = round4(passing / (3 * out.length))
  const broken = out.filter((d) => !d.dkim || !d.spf)
  const noDmarc = out.filter((d) => d.dkim && d.spf && !d.dmarc)
  const status: Status = broken.length > 0 ? 'bad' : noDmarc.length > 0 ? 'warn' : 'ok'
  const when = (d: (typeof out)[number]) =>
    d.checked_at ? `checked ${d.checked_at.slice(0, 10)}` : 'never checked'
  const problems = [
    ...broken.map(
      (d) =>
        `${d.domain}: ${[!d.dkim && 'DKIM', !d.spf && 'SPF', !d.dmarc && 'DMARC'].filter(Boolean).join(', ')} failing (${when(d)})`,
    ),
    ...noDmarc.map((d) => `${d.domain}: no DMARC record at ${dmarcName(d.domain)} (${when(d)})`),
  ]
  const advice =
    status === 'ok'
      ? `DKIM, SPF and DMARC pass on all ${out.length} sending domain(s) at their last verification.`
      : `${problems.join('; ')}. Publish the records shown for the domain and verify it again (POST /api/v1/domains/{id}/verify); Gmail and Yahoo require DKIM and SPF alignment and a DMARC record for bulk mail.`
  return {
    domains: out,
    factor: {
      name: 'authentication',
      value,
      weight: WEIGHTS.authentication,
      score: Math.round(value * 100),
      status,
      advice,
    },
  }
}

/**
 * The list_hygiene factor, the share of unreachable contacts: contacts bounced hard, complained or whose
 * address is suppressed for any reason, each once — clients.unreachable_count, kept by triggers
 * (migration 0030; counting it here probed every suppression, ~1.5 µs of CPU each). The bounced
 * and complained counts for the advice come from the (client, status) index; the rest of the
 * union are contacts suppressed for another reason (unsubscribed, added by the API or an operator).
 */
async function hygieneCounts(ctx: Ctx, clientId: string) {
  const rows = await ctx.db
    .select({ status: contacts.status, n: count() })
    .from(contacts)
    .where(and(eq(contacts.clientId, clientId), inArray(contacts.status, ['bounced', 'complained'])))
    .groupBy(contacts.status)
  const of = (s: string) => rows.find((r) => r.status === s)?.n ?? 0
  const unreachable =
    (
      await ctx.db
        .select({ n: clients.unreachableCount })
        .from(clients)
        .where(eq(clients.id, clientId))
        .limit(1)
    )[0]?.n ?? 0
  const bounced = of('bounced')
  const complained = of('complained')
  return {
    bounced,
    complained,
    suppressed: Math.max(0, unreachable - bounced - complained),
    unreachable,
    contacts: await contactCount(ctx.db, clientId),
  }
}

export async function deliverabilityScore(ctx: Ctx, requested: string | undefined) {
  const clientId = await clientOf(ctx, requested)
  const now = ctx.clock.now()
  const to = quarterOf(now) + QUARTER_MS
  const from = to - WINDOW_DAYS * DAY_MS
  // One read of the client's 30 days, per day: the window's totals and each day's volume.
  const days = await dailyTotals(ctx, clientId, from, to)
  const t = Object.fromEntries(ROLLUP_COUNTERS.map((c) => [c, 0])) as RollupTotals
  for (const d of days) for (const c of ROLLUP_COUNTERS) t[c] += d[c]
  const breakdown = await campaignBreakdown(ctx, clientId, from, to)
  const auth = await authenticationFactor(ctx, clientId)
  const alerts = await activeAlerts(ctx, clientId)
  const factors: Factor[] = []
  const hasSends = t.sent > 0

  const notScored = (name: keyof typeof WEIGHTS, what: string): Factor => ({
    name,
    value: null,
    weight: 0,
    score: null,
    status: 'ok',
    advice: `No sends in the last ${WINDOW_DAYS} days: ${what} is not scored until there are.`,
  })

  // Bounces over sends.
  if (hasSends) {
    const v = rate(t.bounced, t.sent)
    const s = lowerIsBetter(v, THRESHOLDS.bounce_rate)
    const worst = breakdown.filter((c) => c.bounced > 0).sort((a, b) => b.bounce_rate - a.bounce_rate)[0]
    const head = `Bounce rate ${pct(v)} over ${WINDOW_DAYS} days (${num(t.bounced)} of ${num(t.sent)} sends)`
    factors.push({
      name: 'bounce_rate',
      value: round4(v),
      weight: WEIGHTS.bounce_rate,
      ...s,
      advice:
        s.status === 'ok'
          ? `${head}: under the ${pct(THRESHOLDS.bounce_rate.warn)} warning line; hard bounces are suppressed automatically.`
          : `${head}: remove addresses that bounced; re-confirm the list${worst ? ` behind ${culprit(worst, 'bounce')}` : ''} before sending to it again. Mailbox providers slow or block senders above ${pct(THRESHOLDS.bounce_rate.warn)}.`,
    })
  } else factors.push(notScored('bounce_rate', 'the bounce rate'))

  // Complaints over deliveries (Gmail's and Yahoo's definition).
  if (hasSends) {
    const base = t.delivered || t.sent
    const v = rate(t.complained, base)
    const s = lowerIsBetter(v, THRESHOLDS.complaint_rate)
    const worst = breakdown.find((c) => c.complained > 0)
    const head = `Complaint rate ${pct(v)} over ${WINDOW_DAYS} days (${num(t.complained)} of ${num(base)} delivered)`
    factors.push({
      name: 'complaint_rate',
      value: Math.round(v * 1e6) / 1e6,
      weight: WEIGHTS.complaint_rate,
      ...s,
      advice:
        s.status === 'ok'
          ? `${head}: under Gmail and Yahoo's ${pct(THRESHOLDS.complaint_rate.warn)} guideline.`
          : `${head}: Gmail and Yahoo reject bulk senders above ${pct(THRESHOLDS.complaint_rate.bad)}. ${worst ? `Most complaints come from ${culprit(worst, 'complaint')}. ` : ''}Send only to people who opted in, make the unsubscribe link prominent and lower the frequency.`,
    })
  } else factors.push(notScored('complaint_rate', 'the complaint rate'))

  factors.push(auth.factor)

  if (hasSends) {
    const base = t.delivered || t.sent
    const v = rate(t.unsubscribed, base)
    const s = lowerIsBetter(v, THRESHOLDS.unsubscribe_rate)
    const head = `Unsubscribe rate ${pct(v)} over ${WINDOW_DAYS} days (${num(t.unsubscribed)} of ${num(base)} delivered)`
    factors.push({
      name: 'unsubscribe_rate',
      value: round4(v),
      weight: WEIGHTS.unsubscribe_rate,
      ...s,
      advice:
        s.status === 'ok'
          ? `${head}: under ${pct(THRESHOLDS.unsubscribe_rate.warn)}.`
          : `${head}: readers are leaving; send less often or segment by interest, and check that the content matches what people signed up for.`,
    })
  } else factors.push(notScored('unsubscribe_rate', 'the unsubscribe rate'))

  if (hasSends) {
    const base = t.delivered || t.sent
    const v = rate(t.opened, base)
    const clicks = rate(t.clicked, base)
    const s = higherIsBetter(v, THRESHOLDS.engagement)
    const head =
      `Open rate ${pct(v)} and click rate ${pct(clicks)} over ${WINDOW_DAYS} days (${num(t.opened)} opens, ` +
      `${num(t.clicked)} clicks of ${num(base)} delivered; ${num(t.machine_opened)} machine opens left out)`
    factors.push({
      name: 'engagement',
      value: round4(v),
      weight: WEIGHTS.engagement,
      ...s,
      advice:
        s.status === 'ok'
          ? `${head}: healthy.`
          : `${head}: low engagement tells mailbox providers the mail is unwanted; stop sending to contacts who have not opened in 90 days and improve subject lines.`,
    })
  } else factors.push(notScored('engagement', 'engagement'))

  if (hasSends) {
    const h = await hygieneCounts(ctx, clientId)
    const v = rate(h.unreachable, h.contacts)
    const s = lowerIsBetter(v, THRESHOLDS.list_hygiene)
    const head = `${pct(v)} of ${num(h.contacts)} contacts are suppressed or bounced: ${num(h.bounced)} bounced hard, ${num(h.complained)} complained, ${num(h.suppressed)} suppressed for another reason (unsubscribed, or added to the suppression list)`
    factors.push({
      name: 'list_hygiene',
      value: round4(v),
      weight: WEIGHTS.list_hygiene,
      ...s,
      advice:
        s.status === 'ok'
          ? `${head}: the list is clean.`
          : `${head}: the list has aged or was bought; verify addresses before importing and re-confirm old segments.`,
    })
  } else factors.push(notScored('list_hygiene', 'list hygiene'))

  if (hasSends) {
    const sends = days.map((d) => d.sent).filter((n) => n > 0)
    const mean = sends.reduce((a, b) => a + b, 0) / sends.length
    const peak = Math.max(...sends)
    const v = mean > 0 ? peak / mean : 1
    const judged = sends.length >= 3
    const s = judged
      ? lowerIsBetter(v, THRESHOLDS.volume_consistency)
      : { score: 100, status: 'ok' as Status }
    const head = `Busiest day ${num(peak)} sends, ${v.toFixed(1)}× the average sending day (${num(Math.round(mean))} over ${sends.length} day(s))`
    factors.push({
      name: 'volume_consistency',
      value: Math.round(v * 100) / 100,
      weight: WEIGHTS.volume_consistency,
      ...s,
      advice: !judged
        ? `${head}: fewer than 3 sending days in ${WINDOW_DAYS} days, too few to judge.`
        : s.status === 'ok'
          ? `${head}: steady volume.`
          : `${head}: sudden spikes look like a compromised or spamming sender; spread large sends over several days.`,
    })
  } else factors.push(notScored('volume_consistency', 'volume consistency'))

  const worstAlert: Status = alerts.some((a) => a.level === 'bad') ? 'bad' : alerts.length ? 'warn' : 'ok'
  factors.push({
    name: 'alerts',
    value: alerts.length,
    weight: WEIGHTS.alerts,
    score: null,
    status: worstAlert,
    advice:
      alerts.length === 0
        ? 'No open alert: complaints and bounces over the last 1,000 sends are under 0.1 % and 2 %.'
        : alerts.map((a) => a.message).join(' '),
  })

  const weighted = factors.filter((f) => f.weight > 0 && f.score !== null)
  const totalWeight = weighted.reduce((n, f) => n + f.weight, 0)
  const score =
    totalWeight > 0 ? Math.round(weighted.reduce((n, f) => n + f.weight * f.score!, 0) / totalWeight) : 0
  return {
    client_id: clientId,
    score,
    grade: gradeOf(score),
    window_days: WINDOW_DAYS,
    computed_at: iso(now),
    scored_on: hasSends ? ('all_factors' as const) : ('authentication_only' as const),
    note: hasSends
      ? null
      : `No sends in the last ${WINDOW_DAYS} days: the score is the authentication factor alone.`,
    totals: {
      sent: t.sent,
      delivered: t.delivered,
      opened: t.opened,
      machine_opened: t.machine_opened,
      clicked: t.clicked,
      bounced: t.bounced,
      complained: t.complained,
      unsubscribed: t.unsubscribed,
    },
    factors,
    domains: auth.domains,
    warmup: await warmupStatus(ctx, clientId),
    campaigns: breakdown.slice(0, 20),
    alerts,
  }
}
