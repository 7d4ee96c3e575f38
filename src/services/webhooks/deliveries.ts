import { and, eq, inArray } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type PageRequest, paginate } from '../../db/paginate'
import { type WebhookDeliveryRow, type WebhookRow, webhookAttempts, webhookDeliveries } from '../../db/schema'
import { invalidState, notFound } from '../../errors'
import { toPrefixedId } from '../../lib/ids'
import { iso, isoOrNull } from '../../lib/time'
import type { AttemptResult } from '../../webhooks/attempt'
import { DEFAULT_SCHEDULE, DEFAULT_TIMEOUT_MS, recordOutcome, send } from '../../webhooks/deliver'
import type { EventType } from '../events/record'
import { findWebhookRow } from './records'

type AttemptLog = {
  attempted_at: string
  status: number | null
  duration_ms: number
  response_excerpt: string | null
  error: string | null
}

function present(row: WebhookDeliveryRow, log: AttemptLog[]) {
  return {
    id: row.id,
    webhook_id: row.webhookId,
    client_id: row.clientId,
    event_id: toPrefixedId('event', row.eventId),
    event_type: row.eventType,
    test: row.test,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? isoOrNull(row.nextAttemptAt) : null,
    last_status: row.lastStatus,
    last_error: row.lastError,
    attempt_log: log,
    created_at: iso(row.createdAt),
    updated_at: iso(row.updatedAt),
    completed_at: isoOrNull(row.completedAt),
  }
}

async function attemptLogs(ctx: Ctx, deliveryIds: string[]) {
  const byDelivery = new Map<string, AttemptLog[]>()
  if (deliveryIds.length === 0) return byDelivery
  const rows = await ctx.db
    .select()
    .from(webhookAttempts)
    .where(inArray(webhookAttempts.deliveryId, deliveryIds))
    .orderBy(webhookAttempts.id)
  for (const a of rows) {
    const list = byDelivery.get(a.deliveryId) ?? []
    list.push({
      attempted_at: iso(a.attemptedAt),
      status: a.status,
      duration_ms: a.durationMs,
      response_excerpt: a.responseExcerpt,
      error: a.error,
    })
    byDelivery.set(a.deliveryId, list)
  }
  return byDelivery
}

/** A webhook's deliveries, newest first, each with its attempt log. */
export async function listDeliveries(ctx: Ctx, webhookId: string, page: PageRequest) {
  await findWebhookRow(ctx, webhookId)
  const result = await paginate(
    ctx.db,
    ctx.secretKey,
    webhookDeliveries,
    webhookDeliveries.id,
    eq(webhookDeliveries.webhookId, webhookId),
    page,
    (row) => row,
  )
  const logs = await attemptLogs(
    ctx,
    result.data.map((d) => d.id),
  )
  return { ...result, data: result.data.map((d) => present(d, logs.get(d.id) ?? [])) }
}

async function findDelivery(ctx: Ctx, webhookId: string, deliveryId: string) {
  const row = (
    await ctx.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, deliveryId), eq(webhookDeliveries.webhookId, webhookId)))
      .limit(1)
  )[0]
  if (!row) throw notFound('Delivery')
  return row
}

/** Makes a delivery due now (one more attempt; the schedule continues if it fails again). */
export async function retryDelivery(ctx: Ctx, webhookId: string, deliveryId: string) {
  const hook = await findWebhookRow(ctx, webhookId)
  const row = await findDelivery(ctx, webhookId, deliveryId)
  if (!hook.active)
    throw invalidState('The webhook is disabled; re-enable it (PATCH active: true) first', 'disabled', [
      'active',
    ])
  if (row.status === 'sending')
    throw invalidState('The delivery is being attempted right now', 'sending', [
      'pending',
      'succeeded',
      'failed',
    ])
  const now = ctx.clock.now()
  const updated = (
    await ctx.db
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now, completedAt: null, updatedAt: now })
      .where(eq(webhookDeliveries.id, deliveryId))
      .returning()
  )[0]!
  ctx.workers.wake('webhooks')
  return present(updated, (await attemptLogs(ctx, [deliveryId])).get(deliveryId) ?? [])
}

function sampleData(type: EventType, now: string): Record<string, unknown> {
  const id = (kind: Parameters<typeof toPrefixedId>[0]) => toPrefixedId(kind, Bun.randomUUIDv7())
  const email = 'ada@example.com'
  const base = { message_id: id('message'), campaign_id: id('campaign'), contact_id: id('contact'), email }
  switch (type) {
    case 'email.delivered':
      return { ...base, channel: 'email', delivered_at: now }
    case 'email.opened':
      return { ...base, opened_at: now, user_agent: 'Mozilla/5.0' }
    case 'email.clicked':
      return { ...base, url: 'https://example.com/', clicked_at: now, user_agent: 'Mozilla/5.0' }
    case 'email.bounced':
      return {
        ...base,
        bounce_type: 'hard',
        status_code: '5.1.1',
        diagnostic: 'user unknown',
        bounced_at: now,
      }
    case 'contact.unsubscribed':
      return { ...base, source: 'api', unsubscribed_at: now }
    case 'campaign.complete':
      return {
        campaign_id: base.campaign_id,
        name: 'Sample campaign',
        channel: 'email',
        total_recipients: 1,
        total_sent: 1,
        skipped: 0,
        delivered: 1,
        bounced: 0,
        failed: 0,
        completed_at: now,
      }
    case 'reply.received':
      return {
        reply_id: id('reply'),
        message_id: base.message_id,
        campaign_id: base.campaign_id,
        contact_id: base.contact_id,
        from: email,
        subject: 'Re: Sample',
        snippet: 'Thanks!',
        received_at: now,
      }
  }
}

export interface TestAttempt {
  hook: WebhookRow
  delivery: WebhookDeliveryRow
  result: AttemptResult
}

const TEST_POLICY = { schedule: DEFAULT_SCHEDULE, timeoutMs: DEFAULT_TIMEOUT_MS }

/**
 * webhooks.test, the I/O: sends one signed sample of `event` now, whether subscribed or not
 * (once, not retried). The delivery is built here but written by recordTest, with its outcome.
 */
export async function attemptTest(
  ctx: Ctx,
  webhookId: string,
  requested: EventType | undefined,
): Promise<TestAttempt> {
  const hook = await findWebhookRow(ctx, webhookId)
  const event = requested ?? (hook.events[0] as EventType)
  const now = ctx.clock.now()
  const eventId = Bun.randomUUIDv7()
  const payload = JSON.stringify({
    id: toPrefixedId('event', eventId),
    type: event,
    created_at: iso(now),
    data: { ...sampleData(event, iso(now)), test: true },
  })
  const delivery: WebhookDeliveryRow = {
    id: Bun.randomUUIDv7(),
    webhookId: hook.id,
    clientId: hook.clientId,
    eventId,
    eventType: event,
    test: true,
    payload,
    status: 'sending',
    attempts: 0,
    nextAttemptAt: null,
    lastStatus: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  }
  return { hook, delivery, result: await send(ctx, hook, delivery, TEST_POLICY) }
}

/** webhooks.test, the write: the test delivery and its one attempt, logged like any other. */
export async function recordTest(ctx: Ctx, { hook, delivery, result }: TestAttempt) {
  // The webhook may have been deleted while the attempt ran: its log would have no owner.
  await findWebhookRow(ctx, hook.id)
  await ctx.db.insert(webhookDeliveries).values(delivery)
  await recordOutcome(ctx, hook, delivery, result, TEST_POLICY)
  return {
    delivery_id: delivery.id,
    event_id: toPrefixedId('event', delivery.eventId),
    delivered: result.status !== null && result.status >= 200 && result.status < 300,
    status: result.status,
    duration_ms: result.durationMs,
    error: result.error,
  }
}
