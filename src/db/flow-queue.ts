import type { Database } from 'bun:sqlite'
import type { FlowKind } from '../lib/enums'
import type { Db } from './client'
import { DIALECT } from './dialect'
import type { DueRun, FlowQueue, QueuedMessage, StepRecord } from './flow-queue-types'
import { pgFlowQueue } from './postgres/flow-queue'
import { perConnection } from './prepared'

// The flow executor's statements: due rows of `flow_runs` per flow, the step writes (history
// appended to the enrollment, the next row, a message in the one outbox), the daily counts, the
// ends a contact's events cause, and the flow lane of the send queue. Prepared once per
// connection; the executor calls them inside its step transactions.

export type { DueRun, FlowQueue, QueuedMessage, StepRecord } from './flow-queue-types'

/**
 * The ids (and kinds) of the flows of both tables whose status meets `condition`: one query over
 * the journeys and sequences that define them.
 */
export const flowsWhere = (condition: string) =>
  `SELECT id, 'journey' AS kind FROM journeys WHERE ${condition}
  UNION ALL SELECT id, 'sequence' AS kind FROM sequences WHERE ${condition}`

const ACTIVE = flowsWhere("status = 'active'")

// A chunked enrollment's contacts (their seqs), matched once when the worker first takes the job
// and then entered in chunks: a TEMP table of the connection. After a restart it is empty and
// the job's audience is matched again from its cursor, so nothing depends on it surviving.
const SCRATCH = 'temp.flow_enroll_scratch'

const statements = perConnection((sqlite: Database) => {
  sqlite.run(
    'CREATE TEMP TABLE IF NOT EXISTS flow_enroll_scratch (job_id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (job_id, seq)) WITHOUT ROWID',
  )
  return {
    scratchNth: sqlite.prepare<{ seq: number }, [string, number]>(
      `SELECT seq FROM ${SCRATCH} WHERE job_id = ?1 ORDER BY seq LIMIT 1 OFFSET ?2`,
    ),
    scratchLast: sqlite.prepare<{ seq: number | null }, [string]>(
      `SELECT max(seq) AS seq FROM ${SCRATCH} WHERE job_id = ?1`,
    ),
    scratchDrop: sqlite.prepare<never, [string, number]>(
      `DELETE FROM ${SCRATCH} WHERE job_id = ?1 AND seq <= ?2`,
    ),
    scratchClear: sqlite.prepare<never, [string]>(`DELETE FROM ${SCRATCH} WHERE job_id = ?1`),
    activeFlows: sqlite.prepare<{ id: string; kind: FlowKind }, []>(`${ACTIVE} ORDER BY id`),
    status: sqlite.prepare<{ status: string }, [string]>(
      'SELECT status FROM journeys WHERE id = ?1 UNION ALL SELECT status FROM sequences WHERE id = ?1',
    ),
    // Due rows of one flow, oldest due first, through flow_runs_due_idx.
    due: sqlite.prepare<DueRun, [string, number, number]>(
      `SELECT seq, enrollment_seq, flow_id, contact_id, node_id, next_run_at, wait_event, wait_since
     FROM flow_runs WHERE flow_id = ?1 AND next_run_at <= ?2 ORDER BY next_run_at, seq LIMIT ?3`,
    ),
    nextDue: sqlite.prepare<{ at: number | null }, [string]>(
      'SELECT min(next_run_at) AS at FROM flow_runs WHERE flow_id = ?1',
    ),
    moveRun: sqlite.prepare<never, [number, string, number, string | null, number | null]>(
      'UPDATE flow_runs SET node_id = ?2, next_run_at = ?3, wait_event = ?4, wait_since = ?5, claimed = 0 WHERE seq = ?1',
    ),
    deleteRun: sqlite.prepare<never, [number]>('DELETE FROM flow_runs WHERE seq = ?1'),
    historyOf: sqlite.prepare<{ history: string }, [number]>(
      'SELECT history FROM flow_enrollments WHERE seq = ?1',
    ),
    bumpNode: sqlite.prepare<never, [string, string, number]>(
      `INSERT INTO flow_node_counts (flow_id, node_id, passed) VALUES (?1, ?2, ?3)
     ON CONFLICT (flow_id, node_id) DO UPDATE SET passed = passed + excluded.passed`,
    ),
    queueMessage: sqlite.prepare<
      { seq: number },
      [string, string, string, string, string, string, string, string, number]
    >(
      `INSERT INTO messages (id, client_id, source_kind, source_id, source_step, contact_id, channel, to_address, status, next_attempt_at, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'queued', ?9, ?9) RETURNING seq`,
    ),
    storeThread: sqlite.prepare<never, [number, string]>(
      'INSERT INTO message_threads (message_seq, thread) VALUES (?1, ?2)',
    ),
    threadOf: sqlite.prepare<{ thread: string }, [number]>(
      'SELECT thread FROM message_threads WHERE message_seq = ?1',
    ),
    eventSince: sqlite.prepare<{ one: number }, [string, string, number]>(
      'SELECT 1 AS one FROM events WHERE contact_id = ?1 AND type = ?2 AND occurred_at >= ?3 LIMIT 1',
    ),
    dailyCount: sqlite.prepare<{ n: number }, [string, string, number]>(
      'SELECT queued AS n FROM flow_daily_counts WHERE client_id = ?1 AND sender_key = ?2 AND day = ?3',
    ),
    bumpDaily: sqlite.prepare<never, [string, string, number, number]>(
      `INSERT INTO flow_daily_counts (client_id, sender_key, day, queued) VALUES (?1, ?2, ?3, ?4)
     ON CONFLICT (client_id, sender_key, day) DO UPDATE SET queued = queued + excluded.queued`,
    ),
    // The send queue's flow lane: queued messages of active flows, by due time.
    laneDue: sqlite.prepare<{ id: string; at: number | null }, []>(
      `SELECT f.id AS id, (SELECT min(m.next_attempt_at) FROM messages m
       WHERE m.source_id = f.id AND m.status = 'queued') AS at
     FROM (${ACTIVE}) f ORDER BY f.id`,
    ),
    claimMessages: sqlite.prepare<{ seq: number }, [number, string, number, number]>(
      `UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
     WHERE seq IN (
       SELECT seq FROM messages WHERE source_id = ?2 AND status = 'queued' AND next_attempt_at <= ?3
       ORDER BY next_attempt_at LIMIT ?4
     ) RETURNING seq`,
    ),
    cancelQueued: sqlite.prepare<never, [string, string]>(
      "UPDATE messages SET status = 'cancelled', error = ?2 WHERE source_id = ?1 AND status = 'queued'",
    ),
    cancelContact: sqlite.prepare<never, [string, string, string]>(
      "UPDATE messages SET status = 'cancelled', error = ?3 WHERE source_id = ?1 AND contact_id = ?2 AND status = 'queued'",
    ),
    // Wakes runs waiting for this event of this contact (wait_for_event).
    wakeWaiting: sqlite.prepare<never, [string, string, number]>(
      'UPDATE flow_runs SET next_run_at = ?3 WHERE contact_id = ?1 AND wait_event = ?2 AND next_run_at > ?3',
    ),
    // Ends a contact's active enrollments of one kind (`stopOnReplyOnly`: in sequences that stop
    // on a reply), dropping their runs; the flows and enrollments ended.
    endContact: sqlite.prepare<
      { seq: number; flow_id: string },
      [string, FlowKind, string, string | null, number, number]
    >(
      `UPDATE flow_enrollments SET status = ?3, end_reason = ?4, ended_at = ?5, updated_at = ?5
     WHERE contact_id = ?1 AND flow_kind = ?2 AND status = 'active'
       AND (?6 = 0 OR flow_id IN (SELECT id FROM sequences WHERE stop_on_reply = 1))
     RETURNING seq, flow_id`,
    ),
    deleteRunOf: sqlite.prepare<never, [number]>('DELETE FROM flow_runs WHERE enrollment_seq = ?1'),
    endEnrollment: sqlite.prepare<never, [number, string, string | null, number]>(
      `UPDATE flow_enrollments SET status = ?2, end_reason = ?3, ended_at = ?4, updated_at = ?4
     WHERE seq = ?1 AND status = 'active'`,
    ),
    maxEnrollmentSeq: sqlite.prepare<{ s: number | null }, []>('SELECT max(seq) AS s FROM flow_enrollments'),
    maxContactSeq: sqlite.prepare<{ s: number | null }, []>('SELECT max(seq) AS s FROM contacts'),
  }
})

/**
 * One statement per step for its enrollment: the history entries appended (one prepared
 * statement per count), the current node, and the end when it ended.
 */
const recorders = perConnection((sqlite: Database) => {
  const byCount = new Map<number, ReturnType<Database['prepare']>>()
  return (n: number) => {
    let st = byCount.get(n)
    if (!st) {
      const appends = Array.from({ length: n }, (_, i) => `'$[#]', json(?${i + 7})`).join(', ')
      st = sqlite.prepare(
        `UPDATE flow_enrollments SET history = ${n > 0 ? `json_insert(history, ${appends})` : 'history'},
           current_node = coalesce(?2, current_node), status = coalesce(?3, status),
           end_reason = coalesce(?4, end_reason), ended_at = coalesce(?5, ended_at), updated_at = ?6
         WHERE seq = ?1`,
      )
      byCount.set(n, st)
    }
    return st
  }
})

const sqliteFlowQueue = (sqlite: Database): FlowQueue => {
  const s = statements(sqlite)
  const recorder = recorders(sqlite)
  return {
    /** The scratch table's name (enrollment fills it with one INSERT … SELECT of the audience). */
    scratch: SCRATCH,
    /** The seq ending the job's next chunk of `size` contacts, or null when none is left. */
    scratchChunkEnd: async (jobId: string, size: number) =>
      (await s.scratchNth.get(jobId, size - 1))?.seq ?? (await s.scratchLast.get(jobId))?.seq ?? null,
    scratchDrop: async (jobId: string, upTo: number) => void s.scratchDrop.run(jobId, upTo),
    scratchClear: async (jobId: string) => {
      await s.scratchClear.run(jobId)
    },
    activeFlows: async () => await s.activeFlows.all(),
    status: async (flowId: string) => (await s.status.get(flowId))?.status ?? null,
    due: async (flowId: string, now: number, limit: number) => await s.due.all(flowId, now, limit),
    nextDue: async (flowId: string) => (await s.nextDue.get(flowId))?.at ?? null,
    moveRun: async (
      seq: number,
      nodeId: string,
      at: number,
      waitEvent: string | null = null,
      waitSince: number | null = null,
    ) => void s.moveRun.run(seq, nodeId, at, waitEvent, waitSince),
    deleteRun: async (seq: number) => void s.deleteRun.run(seq),
    historyOf: async (enrollmentSeq: number) =>
      JSON.parse((await s.historyOf.get(enrollmentSeq))?.history ?? '[]') as Record<string, unknown>[],
    /** A step's effect on its enrollment, in one statement. */
    record: async (enrollmentSeq: number, r: StepRecord, now: number) =>
      void recorder(r.entries.length).run(
        enrollmentSeq,
        r.current,
        r.end?.status ?? null,
        r.end?.reason ?? null,
        r.end ? now : null,
        now,
        ...r.entries,
      ),
    bumpNode: async (flowId: string, nodeId: string, n: number) => void s.bumpNode.run(flowId, nodeId, n),
    /** A message of a send node in the outbox; its thread kept beside it when it continues one. */
    queueMessage: async (m: QueuedMessage, now: number) => {
      const seq = (await s.queueMessage.get(
        m.id,
        m.clientId,
        m.kind,
        m.flowId,
        m.nodeId,
        m.contactId,
        m.channel,
        m.to,
        now,
      ))!.seq
      if (m.thread.length > 0) await s.storeThread.run(seq, JSON.stringify(m.thread))
      return seq
    },
    threadOf: async (messageSeq: number) => {
      const r = await s.threadOf.get(messageSeq)
      return r ? (JSON.parse(r.thread) as string[]) : []
    },
    eventSince: async (contactId: string, type: string, since: number) =>
      (await s.eventSince.get(contactId, type, since)) !== null,
    dailyCount: async (clientId: string, senderKey: string, day: number) =>
      (await s.dailyCount.get(clientId, senderKey, day))?.n ?? 0,
    bumpDaily: async (clientId: string, senderKey: string, day: number, n: number) =>
      void s.bumpDaily.run(clientId, senderKey, day, n),
    laneDue: async () => await s.laneDue.all(),
    claimMessages: async (flowId: string, now: number, leaseUntil: number, limit: number) =>
      (await s.claimMessages.all(leaseUntil, flowId, now, limit)).map((r) => r.seq),
    cancelQueued: async (flowId: string, reason: string) => void s.cancelQueued.run(flowId, reason),
    cancelContact: async (flowId: string, contactId: string, reason: string) =>
      void s.cancelContact.run(flowId, contactId, reason),
    wakeWaiting: async (contactId: string, eventType: string, now: number) =>
      void s.wakeWaiting.run(contactId, eventType, now),
    /** Ends a contact's active enrollments of a kind and drops their runs; the flows ended. */
    endContact: async (
      contactId: string,
      kind: FlowKind,
      end: { status: 'exited' | 'stopped'; reason: string | null },
      now: number,
      stopOnReplyOnly = false,
    ) => {
      const ended = await s.endContact.all(
        contactId,
        kind,
        end.status,
        end.reason,
        now,
        stopOnReplyOnly ? 1 : 0,
      )
      for (const e of ended) await s.deleteRunOf.run(e.seq)
      return [...new Set(ended.map((e) => e.flow_id))]
    },
    /** Ends one enrollment (a manual stop) and drops its run. */
    endEnrollment: async (seq: number, status: 'exited' | 'stopped', reason: string | null, now: number) => {
      await s.endEnrollment.run(seq, status, reason, now)
      await s.deleteRunOf.run(seq)
    },
    /** The newest enrollment's seq (runs for the ones an INSERT … SELECT adds come after it). */
    maxEnrollmentSeq: async () => (await s.maxEnrollmentSeq.get())?.s ?? 0,
    /** The newest contact's seq: a chunked enrollment takes the contacts up to it. */
    maxContactSeq: async () => (await s.maxContactSeq.get())?.s ?? 0,
  }
}

/** The flow queue of the store `db` is on (on SQLite, its connection's prepared statements). */
export const flowQueue = (db: Db): FlowQueue =>
  DIALECT === 'postgres' ? pgFlowQueue(db) : sqliteFlowQueue(db.$client)
