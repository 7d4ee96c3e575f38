import { type SQL, sql } from 'drizzle-orm'
import type { DeliveryStatus } from '../../lib/enums'
import type { Db } from '../client'
import { rawRows, rawRun } from '../raw'
import type { WebhookDeliveryRow } from '../schema'
import type { WebhookQueue } from '../webhook-queue-api'

// The webhook queue on PostgreSQL: the statements of ../webhook-queue.ts written as drizzle
// `sql`, so each joins the caller's transaction (fan-out and outcomes run in one). Raw bigint
// columns come back as strings here, hence the Number()s.

const DISPATCH = 'events'
/** Rows per INSERT: 8 parameters each, well under PostgreSQL's 65,535 per statement. */
const INSERT_CHUNK = 1000

const num = (v: unknown): number => Number(v)
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

/** RETURNING * gives column names and bigint strings; the delivery code works with drizzle's row. */
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
    attempts: num(r.attempts),
    nextAttemptAt: numOrNull(r.next_attempt_at),
    lastStatus: numOrNull(r.last_status),
    lastError: (r.last_error as string | null) ?? null,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    completedAt: numOrNull(r.completed_at),
  }
}

/**
 * The ids in `busy` as a set to exclude: one parameter, whatever their number. Sent as text and
 * cast: a string bound straight to jsonb would arrive as a JSON string, not the array it spells.
 */
const notIn = (column: SQL, busy: readonly string[]) =>
  sql`${column} NOT IN (SELECT jsonb_array_elements_text(${JSON.stringify(busy)}::text::jsonb))`

export function pgWebhookQueue(db: Db): WebhookQueue {
  const rows = <T>(q: SQL) => rawRows<T>(db, q)
  const run = (q: SQL) => rawRun(db, q)
  return {
    // Locked for the fan-out's transaction, skipped while another process's holds it: two
    // fan-outs would otherwise read the same events, and the second would wait on the first's
    // commit only to find the mark moved.
    async dispatchMark() {
      const [row] = await rows<{ m: string }>(
        sql`SELECT last_event_seq AS m FROM webhook_dispatch WHERE name = ${DISPATCH} FOR UPDATE SKIP LOCKED`,
      )
      if (row) return Number(row.m)
      const [seeded] = await rows<{ one: number }>(
        sql`SELECT 1 AS one FROM webhook_dispatch WHERE name = ${DISPATCH}`,
      )
      if (!seeded) throw new Error('webhook_dispatch has no "events" row (the seed migration creates it)')
      return null
    },
    eventsPastMark: async () =>
      (
        await rows<{ waiting: boolean }>(
          sql`SELECT EXISTS (SELECT 1 FROM events WHERE seq > coalesce((SELECT last_event_seq FROM webhook_dispatch WHERE name = ${DISPATCH}), -1)) AS waiting`,
        )
      )[0]?.waiting === true,
    advanceDispatchMark: async (from, to) =>
      (await run(
        sql`UPDATE webhook_dispatch SET last_event_seq = ${to} WHERE name = ${DISPATCH} AND last_event_seq = ${from}`,
      )) === 1,
    activeHooksOf: async (clientId) =>
      await rows<{ id: string; events: string }>(
        sql`SELECT id, events::text AS events FROM webhooks WHERE client_id = ${clientId} AND active`,
      ),
    // One statement per chunk, not per delivery: fan-out's transaction holds the process's turn
    // to write, and a round trip per row would hold it for a whole batch of them.
    async insertDeliveries(ds) {
      for (let i = 0; i < ds.length; i += INSERT_CHUNK) {
        const values = ds
          .slice(i, i + INSERT_CHUNK)
          .map(
            (d) =>
              sql`(${d.id}, ${d.webhookId}, ${d.clientId}, ${d.eventId}, ${d.eventType}, false, 'pending', 0, ${d.now}, ${d.now}, ${d.now})`,
          )
        await run(sql`INSERT INTO webhook_deliveries (id, webhook_id, client_id, event_id, event_type, test, status, attempts, next_attempt_at, created_at, updated_at)
          VALUES ${sql.join(values, sql`, `)}`)
      }
    },
    async expireLeases(now) {
      await run(
        sql`UPDATE webhook_deliveries SET status = 'pending' WHERE status = 'sending' AND next_attempt_at <= ${now}`,
      )
    },
    idleHooks: async (busy) =>
      (
        await rows<{ id: string }>(
          sql`SELECT id FROM webhooks WHERE active AND ${notIn(sql`id`, busy)} ORDER BY id COLLATE "C"`,
        )
      ).map((r) => r.id),
    // Two processes taking one lane at once: the second waits for the first's row, then sees it.
    async takeLane(webhookId, holder, now, until) {
      const [row] = await rows<{ held: boolean; until: string }>(
        sql`INSERT INTO webhook_lanes (webhook_id, holder, "until")
          SELECT ${webhookId}::text, ${holder}::text, ${until}::bigint WHERE EXISTS (
            SELECT 1 FROM webhook_deliveries
            WHERE webhook_id = ${webhookId} AND status = 'pending' AND next_attempt_at <= ${now}
          )
          ON CONFLICT (webhook_id) DO UPDATE SET
            holder = CASE WHEN webhook_lanes.holder = excluded.holder OR webhook_lanes."until" <= ${now}
              THEN excluded.holder ELSE webhook_lanes.holder END,
            "until" = CASE WHEN webhook_lanes.holder = excluded.holder OR webhook_lanes."until" <= ${now}
              THEN excluded."until" ELSE webhook_lanes."until" END
          RETURNING holder = ${holder} AS held, "until"`,
      )
      return row ? { held: row.held, until: num(row.until) } : null
    },
    async releaseLane(webhookId, holder) {
      await run(sql`DELETE FROM webhook_lanes WHERE webhook_id = ${webhookId} AND holder = ${holder}`)
    },
    // Several processes may claim at once here: SKIP LOCKED lets a claim pass over rows another
    // one is taking instead of waiting for it and then taking them again.
    claimForHook: async (webhookId, now, leaseEnd, limit) =>
      (
        await rows<
          Record<string, unknown>
        >(sql`UPDATE webhook_deliveries SET status = 'sending', next_attempt_at = ${leaseEnd}
          WHERE id IN (
            SELECT id FROM webhook_deliveries
            WHERE webhook_id = ${webhookId} AND status = 'pending' AND next_attempt_at <= ${now}
            ORDER BY next_attempt_at, id LIMIT ${limit} FOR UPDATE SKIP LOCKED
          ) RETURNING *`)
      ).map(toDeliveryRow),
    async nextDueAt(busy) {
      const [row] = await rows<{ t: string | null }>(
        sql`SELECT min(d.next_attempt_at) AS t FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
          WHERE d.status IN ('pending', 'sending') AND w.active AND ${notIn(sql`d.webhook_id`, busy)}`,
      )
      return numOrNull(row?.t)
    },
    async releaseDelivery(id, at, leasedUntil) {
      await run(
        sql`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${at}
          WHERE id = ${id} AND status = 'sending' AND next_attempt_at = ${leasedUntil}`,
      )
    },
    async isHookActive(webhookId) {
      const [row] = await rows<{ active: boolean }>(sql`SELECT active FROM webhooks WHERE id = ${webhookId}`)
      return Boolean(row?.active)
    },
    async logAttempt(a) {
      await run(sql`INSERT INTO webhook_attempts (id, delivery_id, attempted_at, status, duration_ms, response_excerpt, error)
        VALUES (${Bun.randomUUIDv7()}, ${a.deliveryId}, ${a.at}, ${a.status}, ${a.durationMs}, ${a.excerpt}, ${a.error})`)
    },
    async markDeliverySucceeded(id, c) {
      await run(sql`UPDATE webhook_deliveries SET attempts = ${c.attempts}, last_status = ${c.lastStatus}, last_error = ${c.lastError},
        updated_at = ${c.at}, status = 'succeeded', next_attempt_at = NULL, completed_at = ${c.at} WHERE id = ${id}`)
    },
    async clearHookFailing(id) {
      await run(sql`UPDATE webhooks SET failing_since = NULL WHERE id = ${id} AND failing_since IS NOT NULL`)
    },
  }
}
