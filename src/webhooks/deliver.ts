import { eq } from 'drizzle-orm'
import type { AppContext } from '../context'
import { type WebhookDeliveryRow, type WebhookRow, webhookDeliveries, webhooks } from '../db/schema'
import { decryptSecret } from '../lib/crypto'
import { toPrefixedId } from '../lib/ids'
import { iso } from '../lib/time'
import { type AttemptResult, attemptDelivery } from './attempt'
import { signedHeaders } from './signing'

export const SECOND = 1000
export const MINUTE = 60 * SECOND
export const HOUR = 60 * MINUTE
/** Delay before each attempt: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (DESIGN.md §8). */
export const DEFAULT_SCHEDULE = [
  0,
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
]
export const DEFAULT_TIMEOUT_MS = 15 * SECOND
/** An endpoint failing this long (no success in between) is disabled. */
export const DISABLE_AFTER_MS = 5 * 24 * HOUR

export interface DeliveryPolicy {
  schedule: readonly number[]
  timeoutMs: number
}

/** The secrets that sign now: the current one, and the previous one during its overlap. */
export function signingSecrets(app: AppContext, hook: WebhookRow): string[] {
  const secrets = [decryptSecret(app.secretKey, hook.secret)]
  if (hook.previousSecret && (hook.previousSecretExpiresAt ?? 0) > app.clock.now())
    secrets.push(decryptSecret(app.secretKey, hook.previousSecret))
  return secrets
}

/** The JSON body: the stored test payload, or the envelope built from the event row. */
export function bodyOf(app: AppContext, delivery: WebhookDeliveryRow): string | null {
  if (delivery.payload !== null) return delivery.payload
  // A prepared statement: this runs once per delivery on the hot path.
  const event = app.sqlite
    .query<{ id: string; type: string; occurred_at: number; data: string }, [string]>(
      'SELECT id, type, occurred_at, data FROM events WHERE id = ?1',
    )
    .get(delivery.eventId)
  if (!event) return null
  return `{"id":${JSON.stringify(toPrefixedId('event', event.id))},"type":${JSON.stringify(event.type)},"created_at":"${iso(event.occurred_at)}","data":${event.data}}`
}

/** Sends one attempt of a delivery (same webhook-id on every attempt) and returns the result. */
export async function send(
  app: AppContext,
  hook: WebhookRow,
  delivery: WebhookDeliveryRow,
  policy: DeliveryPolicy,
  secrets: readonly string[] = signingSecrets(app, hook),
) {
  const body = bodyOf(app, delivery)
  if (body === null)
    return {
      status: null,
      durationMs: 0,
      excerpt: null,
      error: 'the event no longer exists',
    } as AttemptResult
  const headers = signedHeaders(secrets, toPrefixedId('event', delivery.eventId), app.clock.now(), body)
  return attemptDelivery(hook.url, headers, body, {
    allowPrivate: app.config.webhookAllowPrivate,
    timeoutMs: policy.timeoutMs,
  })
}

const ok = (r: AttemptResult) => r.status !== null && r.status >= 200 && r.status < 300

/**
 * Logs the attempt and writes its consequences in one transaction: done on 2xx; 410 disables
 * the endpoint; otherwise the next attempt per the schedule, or failed when it is used up.
 * Test deliveries are never retried.
 */
export function recordOutcome(
  app: AppContext,
  hook: WebhookRow,
  delivery: WebhookDeliveryRow,
  result: AttemptResult,
  policy: DeliveryPolicy,
): void {
  const now = app.clock.now()
  app.sqlite.transaction(() => {
    // Prepared statements for the common path (one attempt and its delivery per send).
    app.sqlite
      .query(
        `INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status, duration_ms, response_excerpt, error)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
      )
      .run(
        Bun.randomUUIDv7(),
        delivery.id,
        now,
        result.status,
        result.durationMs,
        result.excerpt,
        result.error,
      )
    const attempts = delivery.attempts + 1
    const common = { attempts, lastStatus: result.status, lastError: result.error, updatedAt: now }
    if (ok(result)) {
      app.sqlite
        .query(
          `UPDATE webhook_deliveries SET attempts = ?2, last_status = ?3, last_error = ?4, updated_at = ?5,
             status = 'succeeded', next_attempt_at = NULL, completed_at = ?5 WHERE id = ?1`,
        )
        .run(delivery.id, attempts, result.status, result.error, now)
      if (!delivery.test && hook.failingSince !== null)
        app.db.update(webhooks).set({ failingSince: null }).where(eq(webhooks.id, hook.id)).run()
      return
    }
    const gone = result.status === 410
    const exhausted = delivery.test || gone || attempts >= policy.schedule.length
    app.db
      .update(webhookDeliveries)
      .set(
        exhausted
          ? { ...common, status: 'failed', nextAttemptAt: null, completedAt: now }
          : { ...common, status: 'pending', nextAttemptAt: now + policy.schedule[attempts]! },
      )
      .where(eq(webhookDeliveries.id, delivery.id))
      .run()
    if (delivery.test) return
    const current = app.db.select().from(webhooks).where(eq(webhooks.id, hook.id)).get()
    if (!current) return
    const failingSince = current.failingSince ?? now
    const disable = gone ? 'gone' : now - failingSince >= DISABLE_AFTER_MS ? 'failing' : null
    app.db
      .update(webhooks)
      .set(
        disable && current.active
          ? { failingSince, active: false, disabledReason: disable, updatedAt: now }
          : { failingSince },
      )
      .where(eq(webhooks.id, hook.id))
      .run()
    if (disable) app.log.warn('webhook disabled', { webhook_id: hook.id, reason: disable })
  })()
}
