import type { Database } from 'bun:sqlite'
import { eq } from 'drizzle-orm'
import type { DeliveryStatus, DisabledReason } from '../lib/enums'
import type { Db } from './client'
import { perConnection } from './prepared'
import { type WebhookDeliveryRow, type WebhookRow, webhookDeliveries, webhooks } from './schema'

// The webhook outbox's statements: fan-out's mark and inserts, the worker's lease
// claims, and the outcome of each attempt. SQLite-only constructs (json_each) stay behind these
// names. Statuses are the typed members of DELIVERY_STATUSES, spelled into the SQL once here.

const status = (s: DeliveryStatus) => `'${s}'`
const PENDING = status('pending')
const SENDING = status('sending')
const SUCCEEDED = status('succeeded')

/** The fan-out mark's row in webhook_dispatch (migration 0009 creates it). */
const DISPATCH = 'events'

const statements = perConnection((sqlite: Database) => ({
  mark: sqlite.prepare<{ m: number }, [string]>(
    'SELECT last_event_seq AS m FROM webhook_dispatch WHERE name = ?1',
  ),
  // Compare-and-set: a second fan-out that read the same mark changes nothing (and backs off).
  advanceMark: sqlite.prepare<unknown, [string, number, number]>(
    'UPDATE webhook_dispatch SET last_event_seq = ?3 WHERE name = ?1 AND last_event_seq = ?2',
  ),
  activeHooksOf: sqlite.prepare<{ id: string; events: string }, [string]>(
    'SELECT id, events FROM webhooks WHERE client_id = ?1 AND active = 1',
  ),
  insertDelivery: sqlite.prepare<unknown, [string, string, string, string, string, number]>(
    `INSERT INTO webhook_deliveries (id, webhook_id, client_id, event_id, event_type, test, status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, 0, ${PENDING}, 0, ?6, ?6, ?6)`,
  ),
  // A claim whose lease ran out (its process died mid-attempt) is pending again. Only those: a
  // live lease may be another process's, its request still in flight.
  expireLeases: sqlite.prepare<unknown, [number]>(
    `UPDATE webhook_deliveries SET status = ${PENDING} WHERE status = ${SENDING} AND next_attempt_at <= ?1`,
  ),
  idleHooks: sqlite.prepare<{ id: string }, [string]>(
    'SELECT id FROM webhooks WHERE active = 1 AND id NOT IN (SELECT value FROM json_each(?1)) ORDER BY id',
  ),
  // Per endpoint through webhook_deliveries_claim_idx, so a pass costs the same whatever the
  // backlog. Fan-out stamps one time per batch, so (next_attempt_at, id) is event order for new
  // deliveries; a retried one goes by its retry time instead (only retries leave event order).
  claimForHook: sqlite.prepare<Record<string, unknown>, [number, string, number, number]>(
    `UPDATE webhook_deliveries SET status = ${SENDING}, next_attempt_at = ?1
     WHERE id IN (
       SELECT id FROM webhook_deliveries
       WHERE webhook_id = ?2 AND status = ${PENDING} AND next_attempt_at <= ?3
       ORDER BY next_attempt_at, id LIMIT ?4
     ) RETURNING *`,
  ),
  nextDue: sqlite.prepare<{ t: number | null }, [string]>(
    `SELECT min(d.next_attempt_at) AS t FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
     WHERE d.status IN (${PENDING}, ${SENDING}) AND w.active = 1
       AND d.webhook_id NOT IN (SELECT value FROM json_each(?1))`,
  ),
  release: sqlite.prepare<unknown, [number, string]>(
    `UPDATE webhook_deliveries SET status = ${PENDING}, next_attempt_at = ?1 WHERE id = ?2 AND status = ${SENDING}`,
  ),
  isActive: sqlite.prepare<{ active: number }, [string]>('SELECT active FROM webhooks WHERE id = ?1'),
  // A success ends the endpoint's failing streak; a no-op (no write) when it was not failing.
  clearFailing: sqlite.prepare<unknown, [string]>(
    'UPDATE webhooks SET failing_since = NULL WHERE id = ?1 AND failing_since IS NOT NULL',
  ),
  logAttempt: sqlite.prepare<
    unknown,
    [string, string, number, number | null, number, string | null, string | null]
  >(
    `INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status, duration_ms, response_excerpt, error)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)`,
  ),
  succeeded: sqlite.prepare<unknown, [string, number, number | null, string | null, number]>(
    `UPDATE webhook_deliveries SET attempts = ?2, last_status = ?3, last_error = ?4, updated_at = ?5,
       status = ${SUCCEEDED}, next_attempt_at = NULL, completed_at = ?5 WHERE id = ?1`,
  ),
}))

/** RETURNING * gives column names; the delivery code works with drizzle's row shape. */
function toDeliveryRow(r: Record<string, unknown>): WebhookDeliveryRow {
  return {
    id: r.id as string,
    webhookId: r.webhook_id as string,
    clientId: r.client_id as string,
    eventId: r.event_id as string,
    eventType: r.event_type as string,
    test: Boolean(r.test),
    payload: (r.payload as string | null) ?? null,
    status: r.status as DeliveryStatus,
    attempts: r.attempts as number,
    nextAttemptAt: r.next_attempt_at as number | null,
    lastStatus: r.last_status as number | null,
    lastError: r.last_error as string | null,
    createdAt: r.created_at as number,
    updatedAt: r.updated_at as number,
    completedAt: r.completed_at as number | null,
  }
}

// ── fan-out ──────────────────────────────────────────────────────────────────────────────────

/** The last event seq fan-out has turned into deliveries. */
export async function dispatchMark(sqlite: Database): Promise<number> {
  const row = await statements(sqlite).mark.get(DISPATCH)
  if (!row) throw new Error('webhook_dispatch has no "events" row (migration 0009 creates it)')
  return row.m
}

/** Moves the mark from `from` to `to`; false when another fan-out moved it first. */
export async function advanceDispatchMark(sqlite: Database, from: number, to: number): Promise<boolean> {
  return (await statements(sqlite).advanceMark.run(DISPATCH, from, to)).changes === 1
}

/** A client's active endpoints and the event types each subscribes to (JSON text). */
export async function activeHooksOf(
  sqlite: Database,
  clientId: string,
): Promise<{ id: string; events: string }[]> {
  return await statements(sqlite).activeHooksOf.all(clientId)
}

/** One new pending delivery of an event to an endpoint, due at `now`. */
export async function insertDelivery(
  sqlite: Database,
  d: { id: string; webhookId: string; clientId: string; eventId: string; eventType: string; now: number },
): Promise<void> {
  await statements(sqlite).insertDelivery.run(d.id, d.webhookId, d.clientId, d.eventId, d.eventType, d.now)
}

// ── the worker's claims ──────────────────────────────────────────────────────────────────────

/** Deliveries whose lease ended before `now` are pending again. */
export async function expireLeases(sqlite: Database, now: number): Promise<void> {
  await statements(sqlite).expireLeases.run(now)
}

/** Active endpoints other than `busy`, in id order. */
export async function idleHooks(sqlite: Database, busy: readonly string[]): Promise<string[]> {
  return (await statements(sqlite).idleHooks.all(JSON.stringify(busy))).map((r) => r.id)
}

/** Leases up to `limit` of an endpoint's due deliveries until `leaseEnd`, oldest first. */
export async function claimForHook(
  sqlite: Database,
  webhookId: string,
  now: number,
  leaseEnd: number,
  limit: number,
): Promise<WebhookDeliveryRow[]> {
  return (await statements(sqlite).claimForHook.all(leaseEnd, webhookId, now, limit)).map(toDeliveryRow)
}

/** The earliest due time (or lease end) of any delivery to an active endpoint not in `busy`. */
export async function nextDueAt(sqlite: Database, busy: readonly string[]): Promise<number | null> {
  return (await statements(sqlite).nextDue.get(JSON.stringify(busy)))?.t ?? null
}

/** Gives a leased delivery back, due at `at` (same attempt count). */
export async function releaseDelivery(sqlite: Database, id: string, at: number): Promise<void> {
  await statements(sqlite).release.run(at, id)
}

/** Whether the endpoint exists and is active (read before each send of a chain). */
export async function isHookActive(sqlite: Database, webhookId: string): Promise<boolean> {
  return Boolean((await statements(sqlite).isActive.get(webhookId))?.active)
}

// ── outcomes ─────────────────────────────────────────────────────────────────────────────────

export async function webhookById(db: Db, id: string): Promise<WebhookRow | undefined> {
  return (await db.select().from(webhooks).where(eq(webhooks.id, id)).limit(1))[0]
}

/** Logs one attempt (status null when no response came back). */
export async function logAttempt(
  sqlite: Database,
  a: {
    deliveryId: string
    at: number
    status: number | null
    durationMs: number
    excerpt: string | null
    error: string | null
  },
): Promise<void> {
  await statements(sqlite).logAttempt.run(
    Bun.randomUUIDv7(),
    a.deliveryId,
    a.at,
    a.status,
    a.durationMs,
    a.excerpt,
    a.error,
  )
}

export interface AttemptCounters {
  attempts: number
  lastStatus: number | null
  lastError: string | null
  at: number
}

/** The delivery is done. */
export async function markDeliverySucceeded(sqlite: Database, id: string, c: AttemptCounters): Promise<void> {
  await statements(sqlite).succeeded.run(id, c.attempts, c.lastStatus, c.lastError, c.at)
}

/** The delivery failed for good (`retryAt` null) or waits for its next attempt. */
export async function markDeliveryFailed(
  db: Db,
  id: string,
  c: AttemptCounters,
  retryAt: number | null,
): Promise<void> {
  const common = { attempts: c.attempts, lastStatus: c.lastStatus, lastError: c.lastError, updatedAt: c.at }
  await db
    .update(webhookDeliveries)
    .set(
      retryAt === null
        ? { ...common, status: 'failed', nextAttemptAt: null, completedAt: c.at }
        : { ...common, status: 'pending', nextAttemptAt: retryAt },
    )
    .where(eq(webhookDeliveries.id, id))
}

/** The endpoint is not failing (any more). */
export async function clearHookFailing(sqlite: Database, id: string): Promise<void> {
  await statements(sqlite).clearFailing.run(id)
}

/** Sets (or clears) the endpoint's failing clock, disabling it when `disable` names a reason. */
export async function setHookFailing(
  db: Db,
  id: string,
  failingSince: number | null,
  disable?: { reason: DisabledReason; at: number },
): Promise<void> {
  await db
    .update(webhooks)
    .set(
      disable
        ? { failingSince, active: false, disabledReason: disable.reason, updatedAt: disable.at }
        : { failingSince },
    )
    .where(eq(webhooks.id, id))
}
