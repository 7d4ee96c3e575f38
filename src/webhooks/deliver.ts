import type { AppContext } from '../context'
import { eventBody } from '../db/events'
import type { WebhookDeliveryRow, WebhookRow } from '../db/schema'
import { inTransaction } from '../db/transaction'
import { markDeliveryFailed, setHookFailing, webhookById, webhookQueueOf } from '../db/webhook-queue'
import { afterCommit } from '../lib/after-transaction'
import { decryptSecret } from '../lib/crypto'
import { toPrefixedId } from '../lib/ids'
import { iso } from '../lib/time'
import type { WebhookOutcome } from '../services/metrics/registry'
import { type AttemptResult, attemptDelivery } from './attempt'
import { signedHeaders } from './signing'
import { type HostResolver, hostResolver } from './ssrf'

export const SECOND = 1000
export const MINUTE = 60 * SECOND
export const HOUR = 60 * MINUTE
/** Delay before each attempt: immediately, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
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
export async function bodyOf(app: AppContext, delivery: WebhookDeliveryRow): Promise<string | null> {
  if (delivery.payload !== null) return delivery.payload
  // The store's db, not its connection: this read runs outside any transaction, where the
  // PostgreSQL store's sqlite handle reaches nothing.
  const event = await eventBody(app.db, delivery.eventId)
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
  resolve: HostResolver = hostResolver(app.config.dnsServers),
) {
  const body = await bodyOf(app, delivery)
  if (body === null)
    return {
      status: null,
      durationMs: 0,
      excerpt: null,
      error: 'the event no longer exists',
    } as AttemptResult
  const headers = signedHeaders(secrets, toPrefixedId('event', delivery.eventId), app.clock.now(), body)
  const result = await attemptDelivery(hook.url, headers, body, {
    allowPrivate: app.config.webhookAllowPrivate,
    timeoutMs: policy.timeoutMs,
    resolve,
  })
  if (result.error?.startsWith('refused: '))
    app.log.warn('webhook target refused', { webhook_id: hook.id, reason: result.error.slice(9) })
  return result
}

export const succeeded = (r: AttemptResult) => r.status !== null && r.status >= 200 && r.status < 300

/** One attempt's result, to be written by recordOutcomes. */
export interface Outcome {
  hook: WebhookRow
  delivery: WebhookDeliveryRow
  result: AttemptResult
  /** When the answer came (clock ms): the attempt's logged time and the base of its retry. */
  at: number
}

/**
 * Logs the attempt and writes its consequences in one transaction: done on 2xx; 410 disables
 * the endpoint; otherwise the next attempt per the schedule, or failed when it is used up.
 * Test deliveries are never retried.
 */
export async function recordOutcome(
  app: AppContext,
  hook: WebhookRow,
  delivery: WebhookDeliveryRow,
  result: AttemptResult,
  policy: DeliveryPolicy,
): Promise<void> {
  await recordOutcomes(app, [{ hook, delivery, result, at: app.clock.now() }], policy)
}

/**
 * Several outcomes in one transaction, in the order given (the worker's outcomes of the last
 * few milliseconds: one commit instead of one per attempt). Each is written as recordOutcome
 * describes; the endpoint's failing clock is read inside the transaction, so the order of
 * successes and failures is the order they came back in.
 */
export async function recordOutcomes(
  app: AppContext,
  outcomes: readonly Outcome[],
  policy: DeliveryPolicy,
): Promise<void> {
  const { sqlite } = app
  const written: WebhookOutcome[] = []
  await inTransaction(sqlite, async () => {
    for (const o of outcomes) written.push(await writeOutcome(app, o, policy))
  })
  for (const outcome of written) app.metrics.webhookDeliveries.inc({ outcome })
}

async function writeOutcome(
  app: AppContext,
  { hook, delivery, result, at: now }: Outcome,
  policy: DeliveryPolicy,
): Promise<WebhookOutcome> {
  const q = webhookQueueOf(app.store)
  await q.logAttempt({
    deliveryId: delivery.id,
    at: now,
    status: result.status,
    durationMs: result.durationMs,
    excerpt: result.excerpt,
    error: result.error,
  })
  const counters = {
    attempts: delivery.attempts + 1,
    lastStatus: result.status,
    lastError: result.error,
    at: now,
  }
  if (succeeded(result)) {
    await q.markDeliverySucceeded(delivery.id, counters)
    if (!delivery.test) await q.clearHookFailing(hook.id)
    return 'succeeded'
  }
  const gone = result.status === 410
  const exhausted = delivery.test || gone || counters.attempts >= policy.schedule.length
  await markDeliveryFailed(
    app.db,
    delivery.id,
    counters,
    exhausted ? null : now + policy.schedule[counters.attempts]!,
    delivery.nextAttemptAt,
  )
  const outcome = exhausted ? 'failed' : 'retry'
  if (delivery.test) return outcome
  const current = await webhookById(app.db, hook.id)
  if (!current) return outcome
  const failingSince = current.failingSince ?? now
  const disable = gone ? 'gone' : now - failingSince >= DISABLE_AFTER_MS ? 'failing' : null
  await setHookFailing(
    app.db,
    hook.id,
    failingSince,
    disable && current.active ? { reason: disable, at: now } : undefined,
  )
  if (disable) afterCommit(() => app.log.warn('webhook disabled', { webhook_id: hook.id, reason: disable }))
  return outcome
}
