import type { Database } from 'bun:sqlite'
import { perConnection } from './prepared'

// The journey executor's statements: due rows of `journey_runs` per
// journey, the step writes (history appended to the enrollment, the next row, a message in the
// one outbox), and the journey lane of the send queue. Prepared once per connection; the
// executor calls them inside its step transactions.

export interface DueRun {
  seq: number
  enrollment_seq: number
  journey_id: string
  contact_id: string
  node_id: string
  next_run_at: number
  wait_event: string | null
  wait_since: number | null
}

// A large enrollment's contacts (their seqs), matched once when it starts and then taken in
// chunks: a TEMP table of the connection. After a restart it is empty and the next chunk
// matches again from the job's cursor, so nothing depends on it surviving.
const SCRATCH = 'temp.journey_enroll_scratch'

const statements = perConnection((sqlite: Database) => {
  sqlite.run(
    'CREATE TEMP TABLE IF NOT EXISTS journey_enroll_scratch (job_id TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (job_id, seq)) WITHOUT ROWID',
  )
  return {
    scratchNext: sqlite.prepare<{ seq: number }, [string, number]>(
      `SELECT seq FROM ${SCRATCH} WHERE job_id = ?1 ORDER BY seq LIMIT 1 OFFSET ?2`,
    ),
    scratchLast: sqlite.prepare<{ seq: number | null }, [string]>(
      `SELECT max(seq) AS seq FROM ${SCRATCH} WHERE job_id = ?1`,
    ),
    scratchDrop: sqlite.prepare<never, [string, number]>(
      `DELETE FROM ${SCRATCH} WHERE job_id = ?1 AND seq <= ?2`,
    ),
    scratchClear: sqlite.prepare<never, [string]>(`DELETE FROM ${SCRATCH} WHERE job_id = ?1`),
    activeJourneys: sqlite.prepare<{ id: string }, []>(
      "SELECT id FROM journeys WHERE status = 'active' ORDER BY id",
    ),
    // Due rows of one journey, oldest due first, through journey_runs_due_idx.
    due: sqlite.prepare<DueRun, [string, number, number]>(
      `SELECT seq, enrollment_seq, journey_id, contact_id, node_id, next_run_at, wait_event, wait_since
     FROM journey_runs WHERE journey_id = ?1 AND next_run_at <= ?2 ORDER BY next_run_at, seq LIMIT ?3`,
    ),
    nextDue: sqlite.prepare<{ at: number | null }, [string]>(
      'SELECT min(next_run_at) AS at FROM journey_runs WHERE journey_id = ?1',
    ),
    moveRun: sqlite.prepare<never, [number, string, number, string | null, number | null]>(
      'UPDATE journey_runs SET node_id = ?2, next_run_at = ?3, wait_event = ?4, wait_since = ?5, claimed = 0 WHERE seq = ?1',
    ),
    deleteRun: sqlite.prepare<never, [number]>('DELETE FROM journey_runs WHERE seq = ?1'),
    appendHistory: sqlite.prepare<never, [number, string, string, number]>(
      `UPDATE journey_enrollments SET history = json_insert(history, '$[#]', json(?2)), current_node = ?3, updated_at = ?4
     WHERE seq = ?1`,
    ),
    finish: sqlite.prepare<never, [number, string, string | null, number]>(
      "UPDATE journey_enrollments SET status = ?2, exit_reason = ?3, ended_at = ?4, updated_at = ?4 WHERE seq = ?1 AND status = 'active'",
    ),
    bumpNode: sqlite.prepare<never, [string, string, number]>(
      `INSERT INTO journey_node_counts (journey_id, node_id, passed) VALUES (?1, ?2, ?3)
     ON CONFLICT (journey_id, node_id) DO UPDATE SET passed = passed + excluded.passed`,
    ),
    queueMessage: sqlite.prepare<never, [string, string, string, string, string, string, string, number]>(
      `INSERT INTO messages (id, client_id, journey_id, journey_node, contact_id, channel, to_address, status, next_attempt_at, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 'queued', ?8, ?8)`,
    ),
    eventSince: sqlite.prepare<{ one: number }, [string, string, number]>(
      'SELECT 1 AS one FROM events WHERE contact_id = ?1 AND type = ?2 AND occurred_at >= ?3 LIMIT 1',
    ),
    // The send queue's journey lane: queued messages of active journeys, by due time.
    laneDue: sqlite.prepare<{ id: string; at: number | null }, []>(
      `SELECT j.id AS id, (SELECT min(m.next_attempt_at) FROM messages m
       WHERE m.journey_id = j.id AND m.status = 'queued') AS at
     FROM journeys j WHERE j.status = 'active' ORDER BY j.id`,
    ),
    claimMessages: sqlite.prepare<{ seq: number }, [number, string, number, number]>(
      `UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
     WHERE seq IN (
       SELECT seq FROM messages WHERE journey_id = ?2 AND status = 'queued' AND next_attempt_at <= ?3
       ORDER BY next_attempt_at LIMIT ?4
     ) RETURNING seq`,
    ),
    journeyStatus: sqlite.prepare<{ status: string }, [string]>('SELECT status FROM journeys WHERE id = ?1'),
    cancelQueued: sqlite.prepare<never, [string, string]>(
      "UPDATE messages SET status = 'cancelled', error = ?2 WHERE journey_id = ?1 AND status = 'queued'",
    ),
    // Wakes runs waiting for this event of this contact (wait_for_event).
    wakeWaiting: sqlite.prepare<never, [string, string, number]>(
      'UPDATE journey_runs SET next_run_at = ?3 WHERE contact_id = ?1 AND wait_event = ?2 AND next_run_at > ?3',
    ),
    contactEnrollments: sqlite.prepare<{ seq: number; journey_id: string }, [string]>(
      "SELECT seq, journey_id FROM journey_enrollments WHERE contact_id = ?1 AND status = 'active'",
    ),
    maxContactSeq: sqlite.prepare<{ s: number | null }, []>('SELECT max(seq) AS s FROM contacts'),
    // The seq that ends a chunk of `size` contacts of a client after `cursor` (or the bound).
    contactSeqAfter: sqlite.prepare<{ seq: number }, [string, number, number, number]>(
      'SELECT seq FROM contacts WHERE client_id = ?1 AND seq > ?2 AND seq <= ?3 ORDER BY seq LIMIT 1 OFFSET ?4',
    ),
    maxEnrollmentSeq: sqlite.prepare<{ s: number | null }, []>(
      'SELECT max(seq) AS s FROM journey_enrollments',
    ),
    deleteRunOf: sqlite.prepare<never, [number]>('DELETE FROM journey_runs WHERE enrollment_seq = ?1'),
  }
})

/** The jobs whose contacts this connection's scratch table holds. */
const filled = new WeakMap<Database, Set<string>>()

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
        `UPDATE journey_enrollments SET history = ${n > 0 ? `json_insert(history, ${appends})` : 'history'},
           current_node = coalesce(?2, current_node), status = coalesce(?3, status),
           exit_reason = coalesce(?4, exit_reason), ended_at = coalesce(?5, ended_at), updated_at = ?6
         WHERE seq = ?1`,
      )
      byCount.set(n, st)
    }
    return st
  }
})

export interface StepRecord {
  entries: string[]
  current: string | null
  end: { status: 'completed' | 'exited'; reason: string | null } | null
}

export const journeyQueue = (sqlite: Database) => {
  const s = statements(sqlite)
  const recorder = recorders(sqlite)
  return {
    /** The scratch table's name (services fill it with one INSERT … SELECT of the segment). */
    scratch: SCRATCH,
    /** Whether this connection's scratch holds the job's contacts (false after a restart). */
    isFilled: (jobId: string) => filled.get(sqlite)?.has(jobId) ?? false,
    markFilled: (jobId: string) => {
      const set = filled.get(sqlite) ?? new Set<string>()
      filled.set(sqlite, set)
      set.add(jobId)
    },
    /** The seq ending the job's next chunk of `size`, or null when none is left. */
    scratchChunkEnd: (jobId: string, size: number) =>
      s.scratchNext.get(jobId, size - 1)?.seq ?? s.scratchLast.get(jobId)?.seq ?? null,
    scratchDrop: (jobId: string, upTo: number) => void s.scratchDrop.run(jobId, upTo),
    scratchClear: (jobId: string) => {
      s.scratchClear.run(jobId)
      filled.get(sqlite)?.delete(jobId)
    },
    /** The newest enrollment's seq (runs for the ones an INSERT … SELECT adds come after it). */
    maxEnrollmentSeq: () => s.maxEnrollmentSeq.get()?.s ?? 0,
    /** The newest contact's seq: a large enrollment takes the contacts up to it. */
    maxContactSeq: () => s.maxContactSeq.get()?.s ?? 0,
    contactSeqAfter: (clientId: string, cursor: number, bound: number, size: number) =>
      s.contactSeqAfter.get(clientId, cursor, bound, size - 1)?.seq ?? bound,
    activeJourneys: () => s.activeJourneys.all().map((r) => r.id),
    due: (journeyId: string, now: number, limit: number) => s.due.all(journeyId, now, limit),
    nextDue: (journeyId: string) => s.nextDue.get(journeyId)?.at ?? null,
    moveRun: (
      seq: number,
      nodeId: string,
      at: number,
      waitEvent: string | null = null,
      waitSince: number | null = null,
    ) => void s.moveRun.run(seq, nodeId, at, waitEvent, waitSince),
    deleteRun: (seq: number) => void s.deleteRun.run(seq),
    appendHistory: (
      enrollmentSeq: number,
      entry: Record<string, unknown>,
      currentNode: string,
      now: number,
    ) => void s.appendHistory.run(enrollmentSeq, JSON.stringify(entry), currentNode, now),
    /** A step's effect on its enrollment, in one statement. */
    record: (enrollmentSeq: number, r: StepRecord, now: number) =>
      void recorder(r.entries.length).run(
        enrollmentSeq,
        r.current,
        r.end?.status ?? null,
        r.end?.reason ?? null,
        r.end ? now : null,
        now,
        ...r.entries,
      ),
    finish: (enrollmentSeq: number, status: 'completed' | 'exited', reason: string | null, now: number) =>
      void s.finish.run(enrollmentSeq, status, reason, now),
    bumpNode: (journeyId: string, nodeId: string, n: number) => void s.bumpNode.run(journeyId, nodeId, n),
    queueMessage: (
      id: string,
      clientId: string,
      journeyId: string,
      nodeId: string,
      contactId: string,
      channel: string,
      to: string,
      now: number,
    ) => void s.queueMessage.run(id, clientId, journeyId, nodeId, contactId, channel, to, now),
    eventSince: (contactId: string, type: string, since: number) =>
      s.eventSince.get(contactId, type, since) !== null,
    laneDue: () => s.laneDue.all(),
    claimMessages: (journeyId: string, now: number, leaseUntil: number, limit: number) =>
      s.claimMessages.all(leaseUntil, journeyId, now, limit).map((r) => r.seq),
    journeyStatus: (journeyId: string) => s.journeyStatus.get(journeyId)?.status ?? null,
    cancelQueued: (journeyId: string, reason: string) => void s.cancelQueued.run(journeyId, reason),
    wakeWaiting: (contactId: string, eventType: string, now: number) =>
      void s.wakeWaiting.run(contactId, eventType, now),
    /** Ends every active enrollment of a contact (hard bounce, complaint) and drops their runs. */
    leaveAll: (contactId: string, reason: string, now: number) => {
      for (const e of s.contactEnrollments.all(contactId)) {
        s.finish.run(e.seq, 'exited', reason, now)
        s.deleteRunOf.run(e.seq)
      }
    },
  }
}

export type JourneyQueue = ReturnType<typeof journeyQueue>
