import { type SQL, sql } from 'drizzle-orm'
import type { FlowKind } from '../../lib/enums'
import type { Db } from '../client'
import type { DueRun, FlowQueue, QueuedMessage, StepRecord } from '../flow-queue-types'
import { rawRows, rawRun } from '../raw'

// The flow executor's statements on PostgreSQL: the same interface as the SQLite module, written
// as drizzle `sql` through the store's db, so each joins the caller's transaction. Numbers read
// back are cast to double precision (a raw bigint arrives as a string); history and threads are
// jsonb, written as text cast to jsonb (a parameter typed jsonb would be JSON-encoded again by the
// client) and read as text, parsed as on SQLite.

/** The active flows of both tables (a subquery in FROM needs its alias on PostgreSQL 15). */
const ACTIVE = sql.raw(`SELECT id, 'journey' AS kind FROM journeys WHERE status = 'active'
  UNION ALL SELECT id, 'sequence' AS kind FROM sequences WHERE status = 'active'`)

const noScratch = (): never => {
  throw new Error('flow queue: PostgreSQL has no scratch table; chunks match their audience (enroll.ts)')
}

/**
 * The seq of the `offset`-th contact (from 0, by seq) meeting `where` over `contacts`, else the
 * last one's, else null: where a chunked enrollment's next chunk ends. SQLite keeps the matched
 * contacts in a TEMP table of its one writer; a pool's connections share none, so on
 * PostgreSQL each chunk matches the audience again.
 */
export async function audienceChunkEnd(db: Db, where: SQL, offset: number): Promise<number | null> {
  const nth = await rawRows<{ seq: number }>(
    db,
    sql`SELECT contacts.seq::double precision AS seq FROM contacts WHERE ${where}
        ORDER BY contacts.seq LIMIT 1 OFFSET ${offset}`,
  )
  if (nth[0]) return nth[0].seq
  const last = await rawRows<{ seq: number | null }>(
    db,
    sql`SELECT max(contacts.seq)::double precision AS seq FROM contacts WHERE ${where}`,
  )
  return last[0]?.seq ?? null
}

export function pgFlowQueue(db: Db): FlowQueue {
  const one = async <T>(query: SQL) => (await rawRows<T>(db, query))[0]
  return {
    scratch: '',
    scratchChunkEnd: async () => noScratch(),
    scratchDrop: async () => noScratch(),
    // Nothing is kept between chunks: nothing to clear.
    scratchClear: async () => {},
    activeFlows: async () =>
      await rawRows<{ id: string; kind: FlowKind }>(db, sql`SELECT id, kind FROM (${ACTIVE}) f ORDER BY id`),
    status: async (flowId: string) =>
      (
        await one<{ status: string }>(
          sql`SELECT status FROM journeys WHERE id = ${flowId} UNION ALL SELECT status FROM sequences WHERE id = ${flowId}`,
        )
      )?.status ?? null,
    due: async (flowId: string, now: number, limit: number) =>
      await rawRows<DueRun>(
        db,
        sql`SELECT seq::double precision AS seq, enrollment_seq::double precision AS enrollment_seq, flow_id,
              contact_id, node_id, next_run_at::double precision AS next_run_at, wait_event,
              wait_since::double precision AS wait_since
            FROM flow_runs WHERE flow_id = ${flowId} AND next_run_at <= ${now}
            ORDER BY next_run_at, seq LIMIT ${limit} FOR UPDATE SKIP LOCKED`,
      ),
    nextDue: async (flowId: string) =>
      (
        await one<{ at: number | null }>(
          sql`SELECT min(next_run_at)::double precision AS at FROM flow_runs WHERE flow_id = ${flowId}`,
        )
      )?.at ?? null,
    moveRun: async (
      seq: number,
      nodeId: string,
      at: number,
      waitEvent: string | null = null,
      waitSince: number | null = null,
    ) =>
      void (await rawRun(
        db,
        sql`UPDATE flow_runs SET node_id = ${nodeId}, next_run_at = ${at}, wait_event = ${waitEvent},
              wait_since = ${waitSince}::bigint, claimed = 0 WHERE seq = ${seq}`,
      )),
    deleteRun: async (seq: number) => void (await rawRun(db, sql`DELETE FROM flow_runs WHERE seq = ${seq}`)),
    historyOf: async (enrollmentSeq: number) =>
      JSON.parse(
        (
          await one<{ history: string }>(
            sql`SELECT history::text AS history FROM flow_enrollments WHERE seq = ${enrollmentSeq}`,
          )
        )?.history ?? '[]',
      ) as Record<string, unknown>[],
    // The entries are JSON texts: one jsonb array of them appended to the history.
    record: async (enrollmentSeq: number, r: StepRecord, now: number) =>
      void (await rawRun(
        db,
        sql`UPDATE flow_enrollments SET
              history = ${r.entries.length > 0 ? sql`history || ${`[${r.entries.join(',')}]`}::text::jsonb` : sql`history`},
              current_node = coalesce(${r.current}::text, current_node),
              status = coalesce(${r.end?.status ?? null}::text, status),
              end_reason = coalesce(${r.end?.reason ?? null}::text, end_reason),
              ended_at = coalesce(${r.end ? now : null}::bigint, ended_at), updated_at = ${now}
            WHERE seq = ${enrollmentSeq}`,
      )),
    bumpNode: async (flowId: string, nodeId: string, n: number) =>
      void (await rawRun(
        db,
        sql`INSERT INTO flow_node_counts (flow_id, node_id, passed) VALUES (${flowId}, ${nodeId}, ${n})
            ON CONFLICT (flow_id, node_id) DO UPDATE SET passed = flow_node_counts.passed + excluded.passed`,
      )),
    queueMessage: async (m: QueuedMessage, now: number) => {
      const seq = (await one<{ seq: number }>(
        sql`INSERT INTO messages (id, client_id, source_kind, source_id, source_step, contact_id, channel, to_address, status, next_attempt_at, created_at)
            VALUES (${m.id}, ${m.clientId}, ${m.kind}, ${m.flowId}, ${m.nodeId}, ${m.contactId}, ${m.channel}, ${m.to}, 'queued', ${now}, ${now})
            RETURNING seq::double precision AS seq`,
      ))!.seq
      if (m.thread.length > 0)
        await rawRun(
          db,
          sql`INSERT INTO message_threads (message_seq, thread) VALUES (${seq}, ${JSON.stringify(m.thread)}::text::jsonb)`,
        )
      return seq
    },
    threadOf: async (messageSeq: number) => {
      const r = await one<{ thread: string }>(
        sql`SELECT thread::text AS thread FROM message_threads WHERE message_seq = ${messageSeq}`,
      )
      return r ? (JSON.parse(r.thread) as string[]) : []
    },
    eventSince: async (contactId: string, type: string, since: number) =>
      (await one(
        sql`SELECT 1 AS one FROM events WHERE contact_id = ${contactId} AND type = ${type} AND occurred_at >= ${since} LIMIT 1`,
      )) !== undefined,
    dailyCount: async (clientId: string, senderKey: string, day: number) =>
      (
        await one<{ n: number }>(
          sql`SELECT queued::double precision AS n FROM flow_daily_counts
              WHERE client_id = ${clientId} AND sender_key = ${senderKey} AND day = ${day}`,
        )
      )?.n ?? 0,
    bumpDaily: async (clientId: string, senderKey: string, day: number, n: number) =>
      void (await rawRun(
        db,
        sql`INSERT INTO flow_daily_counts (client_id, sender_key, day, queued) VALUES (${clientId}, ${senderKey}, ${day}, ${n})
            ON CONFLICT (client_id, sender_key, day) DO UPDATE SET queued = flow_daily_counts.queued + excluded.queued`,
      )),
    laneDue: async () =>
      await rawRows<{ id: string; at: number | null }>(
        db,
        sql`SELECT f.id AS id, (SELECT min(m.next_attempt_at)::double precision FROM messages m
              WHERE m.source_id = f.id AND m.status = 'queued') AS at
            FROM (${ACTIVE}) f ORDER BY f.id`,
      ),
    // SKIP LOCKED: a claim never waits on, nor takes, rows another claim is taking.
    claimMessages: async (flowId: string, now: number, leaseUntil: number, limit: number) =>
      (
        await rawRows<{ seq: number }>(
          db,
          sql`UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ${leaseUntil}
              WHERE seq IN (
                SELECT seq FROM messages WHERE source_id = ${flowId} AND status = 'queued' AND next_attempt_at <= ${now}
                ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED
              ) RETURNING seq::double precision AS seq`,
        )
      ).map((r) => r.seq),
    cancelQueued: async (flowId: string, reason: string) =>
      void (await rawRun(
        db,
        sql`UPDATE messages SET status = 'cancelled', error = ${reason} WHERE source_id = ${flowId} AND status = 'queued'`,
      )),
    cancelContact: async (flowId: string, contactId: string, reason: string) =>
      void (await rawRun(
        db,
        sql`UPDATE messages SET status = 'cancelled', error = ${reason}
            WHERE source_id = ${flowId} AND contact_id = ${contactId} AND status = 'queued'`,
      )),
    wakeWaiting: async (contactId: string, eventType: string, now: number) =>
      void (await rawRun(
        db,
        sql`UPDATE flow_runs SET next_run_at = ${now}
            WHERE contact_id = ${contactId} AND wait_event = ${eventType} AND next_run_at > ${now}`,
      )),
    endContact: async (
      contactId: string,
      kind: FlowKind,
      end: { status: 'exited' | 'stopped'; reason: string | null },
      now: number,
      stopOnReplyOnly = false,
    ) => {
      const ended = await rawRows<{ seq: number; flow_id: string }>(
        db,
        sql`UPDATE flow_enrollments SET status = ${end.status}, end_reason = ${end.reason}::text, ended_at = ${now}, updated_at = ${now}
            WHERE contact_id = ${contactId} AND flow_kind = ${kind} AND status = 'active'
              ${stopOnReplyOnly ? sql`AND flow_id IN (SELECT id FROM sequences WHERE stop_on_reply)` : sql``}
            RETURNING seq::double precision AS seq, flow_id`,
      )
      for (const e of ended) await rawRun(db, sql`DELETE FROM flow_runs WHERE enrollment_seq = ${e.seq}`)
      return [...new Set(ended.map((e) => e.flow_id))]
    },
    endEnrollment: async (seq: number, status: 'exited' | 'stopped', reason: string | null, now: number) => {
      await rawRun(
        db,
        sql`UPDATE flow_enrollments SET status = ${status}, end_reason = ${reason}::text, ended_at = ${now}, updated_at = ${now}
            WHERE seq = ${seq} AND status = 'active'`,
      )
      await rawRun(db, sql`DELETE FROM flow_runs WHERE enrollment_seq = ${seq}`)
    },
    maxEnrollmentSeq: async () =>
      (await one<{ s: number | null }>(sql`SELECT max(seq)::double precision AS s FROM flow_enrollments`))
        ?.s ?? 0,
    maxContactSeq: async () =>
      (await one<{ s: number | null }>(sql`SELECT max(seq)::double precision AS s FROM contacts`))?.s ?? 0,
  }
}
