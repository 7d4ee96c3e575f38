import { and, eq, isNotNull, isNull, type SQL } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import { DIALECT } from '../../db/dialect'
import { paginate } from '../../db/paginate'
import { recentWindow, recentWindowOf } from '../../db/rollups'
import { campaigns, type DeliverabilityAlertRow, deliverabilityAlerts } from '../../db/schema'
import { listFilter } from '../../db/tenant'
import { newId } from '../../lib/ids'
import { iso, isoOrNull } from '../../lib/time'
import { pct } from './format'
import type { ListAlertsQuery } from './inputs'

// The protection of a client's reputation: after each first bounce or complaint of a
// message, its rates over the last 1,000 sends are checked in the same transaction. Crossing
// 0.1 % complaints or 2 % bounces records an alert (one open alert per kind, resolved when the
// rate falls back under); 0.3 % complaints — where Gmail and Yahoo start rejecting bulk mail —
// also pauses the client's sending campaigns. No webhook event: the spec's seven stay as they are.

export const ALERT_WINDOW_SENDS = 1000
export const ALERT_THRESHOLDS = {
  complaint_rate: 0.001,
  bounce_rate: 0.02,
  /** Complaint rate at which the client's sending campaigns are paused. */
  pause: 0.003,
} as const

export type AlertKind = 'complaint_rate' | 'bounce_rate' | 'campaigns_paused'

/**
 * The window's rate: bounces (or complaints) over its sends, counting at least 1,000 sends — a
 * client that sent fewer has the sends it did not make counted as clean, so 2 complaints in
 * its first 50 sends are 0.2 %, not 4 %.
 */
export const windowRate = (n: number, sent: number) => n / Math.max(sent, ALERT_WINDOW_SENDS)

const openAlert = async (app: AppContext, clientId: string, kind: AlertKind) =>
  (
    await app.db
      .select()
      .from(deliverabilityAlerts)
      .where(
        and(
          eq(deliverabilityAlerts.clientId, clientId),
          eq(deliverabilityAlerts.kind, kind),
          isNull(deliverabilityAlerts.resolvedAt),
        ),
      )
      .limit(1)
  )[0]

async function track(
  app: AppContext,
  clientId: string,
  kind: 'complaint_rate' | 'bounce_rate',
  n: number,
  sent: number,
  at: number,
): Promise<void> {
  const rate = windowRate(n, sent)
  const threshold = ALERT_THRESHOLDS[kind]
  const open = await openAlert(app, clientId, kind)
  if (rate < threshold) {
    if (open)
      await app.db
        .update(deliverabilityAlerts)
        .set({ resolvedAt: at })
        .where(eq(deliverabilityAlerts.id, open.id))
    return
  }
  const level = kind === 'complaint_rate' && rate >= ALERT_THRESHOLDS.pause ? 'bad' : 'warn'
  const what = kind === 'complaint_rate' ? 'Complaint' : 'Bounce'
  const unit = kind === 'complaint_rate' ? 'complaints' : 'bounces'
  const message =
    `${what} rate ${pct(rate)} over the last ${Math.max(sent, ALERT_WINDOW_SENDS).toLocaleString('en-US')} sends ` +
    `(${n} ${unit}) is at or above ${pct(threshold)}` +
    (kind === 'complaint_rate'
      ? `: Gmail and Yahoo reject bulk mail above ${pct(ALERT_THRESHOLDS.pause)}. Find the campaign behind it in the deliverability score.`
      : ': remove the addresses that bounced and re-confirm the list behind the campaign that bounces most.')
  if (open) {
    await app.db
      .update(deliverabilityAlerts)
      .set({ level, value: rate, windowSends: sent, message })
      .where(eq(deliverabilityAlerts.id, open.id))
    return
  }
  await app.db.insert(deliverabilityAlerts).values({
    id: newId(),
    clientId,
    kind,
    level,
    value: rate,
    threshold,
    windowSends: sent,
    message,
    campaignIds: [],
    createdAt: at,
  })
}

/** Pauses the client's sending campaigns; their ids. */
async function pauseSending(app: AppContext, clientId: string, at: number): Promise<string[]> {
  return (
    await app.db
      .update(campaigns)
      .set({ status: 'paused', updatedAt: at })
      .where(and(eq(campaigns.clientId, clientId), eq(campaigns.status, 'sending')))
      .returning({ id: campaigns.id })
  ).map((r) => r.id)
}

/**
 * Checks a client's bounce and complaint rates over its last 1,000 sends (rollups, newest
 * quarters first). Call it in the transaction that recorded the bounce or complaint.
 */
export async function checkSendingHealth(app: AppContext, clientId: string, at: number): Promise<void> {
  // SQLite's walk is synchronous (it stops at the window's edge); PostgreSQL's is one query.
  const w =
    DIALECT === 'postgres'
      ? await recentWindowOf(app, clientId, ALERT_WINDOW_SENDS)
      : recentWindow(app.sqlite, clientId, ALERT_WINDOW_SENDS)
  await track(app, clientId, 'complaint_rate', w.complained, w.sent, at)
  await track(app, clientId, 'bounce_rate', w.bounced, w.sent, at)
  const rate = windowRate(w.complained, w.sent)
  if (rate < ALERT_THRESHOLDS.pause) return
  const paused = await pauseSending(app, clientId, at)
  if (paused.length === 0) return
  await app.db.insert(deliverabilityAlerts).values({
    id: newId(),
    clientId,
    kind: 'campaigns_paused',
    level: 'bad',
    value: rate,
    threshold: ALERT_THRESHOLDS.pause,
    windowSends: w.sent,
    message:
      `Paused ${paused.length} sending campaign(s): complaint rate ${pct(rate)} over the last ` +
      `${Math.max(w.sent, ALERT_WINDOW_SENDS).toLocaleString('en-US')} sends reached ${pct(ALERT_THRESHOLDS.pause)}. ` +
      'Find the cause before launching them again.',
    campaignIds: paused,
    createdAt: at,
    // A record of what was done, not a condition that lasts.
    resolvedAt: at,
  })
}

export function presentAlert(row: DeliverabilityAlertRow) {
  return {
    id: row.id,
    client_id: row.clientId,
    kind: row.kind as AlertKind,
    level: row.level as 'warn' | 'bad',
    active: row.resolvedAt === null,
    value: row.value,
    threshold: row.threshold,
    window_sends: row.windowSends,
    message: row.message,
    campaign_ids: row.campaignIds,
    created_at: iso(row.createdAt),
    resolved_at: isoOrNull(row.resolvedAt),
  }
}

/** Alerts newest first; a platform-wide key sees every client's unless it names one. */
export async function listAlerts(ctx: Ctx, q: ListAlertsQuery) {
  const conds: (SQL | undefined)[] = [listFilter(ctx.actor, deliverabilityAlerts.clientId, q.client_id)]
  if (q.active !== undefined)
    conds.push(
      q.active ? isNull(deliverabilityAlerts.resolvedAt) : isNotNull(deliverabilityAlerts.resolvedAt),
    )
  return await paginate(
    ctx.db,
    ctx.secretKey,
    deliverabilityAlerts,
    deliverabilityAlerts.id,
    and(...conds),
    q,
    presentAlert,
  )
}

/** A client's open alerts (the score's factor and the portal banner). */
export async function activeAlerts(app: AppContext, clientId: string) {
  return (
    await app.db
      .select()
      .from(deliverabilityAlerts)
      .where(and(eq(deliverabilityAlerts.clientId, clientId), isNull(deliverabilityAlerts.resolvedAt)))
  ).map(presentAlert)
}
