import type { Database } from 'bun:sqlite'
import { and, eq, isNull } from 'drizzle-orm'
import type { DeliveryStatus, DisabledReason } from '../lib/enums'
import type { Db, Store } from './client'
import { pgWebhookQueue } from './postgres/webhook-queue'
import { perConnection } from './prepared'
import { type WebhookDeliveryRow, type WebhookRow, webhookDeliveries, webhooks } from './schema'
import type { AttemptCounters, WebhookQueue } from './webhook-queue-api'

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
  pastMark: sqlite.prepare<{ waiting: number }, [string]>(
    'SELECT EXISTS (SELECT 1 FROM events WHERE seq > coalesce((SELECT last_event_seq FROM webhook_dispatch WHERE name = ?1), -1)) AS waiting',
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
  // One process at a time holds an endpoint's lane. Only an endpoint with a delivery due is
  // written, so idle polls stay reads; a lane another holder keeps is rewritten unchanged, which
  // answers its lease end in the same statement.
  takeLane: sqlite.prepare<{ held: number; until: number }, [string, string, number, number]>(
    `INSERT INTO webhook_lanes (webhook_id, holder, until)
     SELECT ?1, ?2, ?4 WHERE EXISTS (
       SELECT 1 FROM webhook_deliveries WHERE webhook_id = ?1 AND status = ${PENDING} AND next_attempt_at <= ?3
     )
     ON CONFLICT (webhook_id) DO UPDATE SET
       holder = CASE WHEN holder = excluded.holder OR until <= ?3 THEN excluded.holder ELSE holder END,
       until = CASE WHEN holder = excluded.holder OR until <= ?3 THEN excluded.until ELSE until END
     RETURNING holder = ?2 AS held, until`,
  ),
  releaseLane: sqlite.prepare<unknown, [string, string]>(
    'DELETE FROM webhook_lanes WHERE webhook_id = ?1 AND holder = ?2',
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
  release: sqlite.prepare<unknown, [number, string, number]>(
    `UPDATE webhook_deliveries SET status = ${PENDING}, next_attempt_at = ?1
     WHERE id = ?2 AND status = ${SENDING} AND next_attempt_at = ?3`,
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

function sqliteQueue(sqlite: Database): WebhookQueue {
  const s = statements(sqlite)
  return {
    async dispatchMark() {
      const row = await s.mark.get(DISPATCH)
      if (!row) throw new Error('webhook_dispatch has no "events" row (migration 0009 creates it)')
      return row.m
    },
    eventsPastMark: async () => (await s.pastMark.get(DISPATCH))?.waiting === 1,
    advanceDispatchMark: async (from, to) => (await s.advanceMark.run(DISPATCH, from, to)).changes === 1,
    activeHooksOf: async (clientId) => await s.activeHooksOf.all(clientId),
    async insertDeliveries(ds) {
      for (const d of ds)
        await s.insertDelivery.run(d.id, d.webhookId, d.clientId, d.eventId, d.eventType, d.now)
    },
    async expireLeases(now) {
      await s.expireLeases.run(now)
    },
    idleHooks: async (busy) => (await s.idleHooks.all(JSON.stringify(busy))).map((r) => r.id),
    async takeLane(webhookId, holder, now, until) {
      const row = await s.takeLane.get(webhookId, holder, now, until)
      return row ? { held: row.held === 1, until: row.until } : null
    },
    async releaseLane(webhookId, holder) {
      await s.releaseLane.run(webhookId, holder)
    },
    claimForHook: async (webhookId, now, leaseEnd, limit) =>
      (await s.claimForHook.all(leaseEnd, webhookId, now, limit)).map(toDeliveryRow),
    nextDueAt: async (busy) => (await s.nextDue.get(JSON.stringify(busy)))?.t ?? null,
    async releaseDelivery(id, at, leasedUntil) {
      await s.release.run(at, id, leasedUntil)
    },
    isHookActive: async (webhookId) => Boolean((await s.isActive.get(webhookId))?.active),
    async logAttempt(a) {
      await s.logAttempt.run(
        Bun.randomUUIDv7(),
        a.deliveryId,
        a.at,
        a.status,
        a.durationMs,
        a.excerpt,
        a.error,
      )
    },
    async markDeliverySucceeded(id, c) {
      await s.succeeded.run(id, c.attempts, c.lastStatus, c.lastError, c.at)
    },
    async clearHookFailing(id) {
      await s.clearFailing.run(id)
    },
  }
}

const built = new WeakMap<Database, WebhookQueue>()

/** The webhook queue of a store: prepared statements on SQLite, their drizzle twin on PostgreSQL. */
export function webhookQueueOf(store: Store): WebhookQueue {
  let q = built.get(store.sqlite)
  if (!q) {
    q = store.dialect === 'postgres' ? pgWebhookQueue(store.db) : sqliteQueue(store.sqlite)
    built.set(store.sqlite, q)
  }
  return q
}

// ── outcomes ─────────────────────────────────────────────────────────────────────────────────

export async function webhookById(db: Db, id: string): Promise<WebhookRow | undefined> {
  return (await db.select().from(webhooks).where(eq(webhooks.id, id)).limit(1))[0]
}

/**
 * The delivery failed for good (`retryAt` null) or waits for its next attempt, if it is still
 * under the lease its attempt was made in (`leasedUntil`; null for a test delivery). Once that
 * lease has run out another claim may have sent it again, or be sending it: a late failure must
 * not put it back in the queue over that attempt.
 */
export async function markDeliveryFailed(
  db: Db,
  id: string,
  c: AttemptCounters,
  retryAt: number | null,
  leasedUntil: number | null,
): Promise<void> {
  const common = { attempts: c.attempts, lastStatus: c.lastStatus, lastError: c.lastError, updatedAt: c.at }
  await db
    .update(webhookDeliveries)
    .set(
      retryAt === null
        ? { ...common, status: 'failed', nextAttemptAt: null, completedAt: c.at }
        : { ...common, status: 'pending', nextAttemptAt: retryAt },
    )
    .where(
      and(
        eq(webhookDeliveries.id, id),
        eq(webhookDeliveries.status, 'sending'),
        leasedUntil === null
          ? isNull(webhookDeliveries.nextAttemptAt)
          : eq(webhookDeliveries.nextAttemptAt, leasedUntil),
      ),
    )
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

export type { AttemptCounters, AttemptLog, LaneTake, NewDelivery, WebhookQueue } from './webhook-queue-api'
