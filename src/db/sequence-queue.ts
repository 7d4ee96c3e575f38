import type { Database } from 'bun:sqlite'
import { perConnection } from './prepared'

// The sequence executor's statements: due runs of
// `sequence_enrollments` per active sequence, the step writes (a message in the one outbox with
// sequence_id, its step and thread, the run moved on), the daily count per sender, the stops
// (reply, bounce, unsubscribe, manual) and the sequence lane of the send queue. Prepared once
// per connection; the executor calls them inside its step transactions.

export interface DueSequenceRun {
  seq: number
  contact_id: string
  next_step: number
  next_run_at: number
  history: string
}

const statements = perConnection((sqlite: Database) => ({
  activeSequences: sqlite.prepare<{ id: string }, []>(
    "SELECT id FROM sequences WHERE status = 'active' ORDER BY id",
  ),
  due: sqlite.prepare<DueSequenceRun, [string, number, number]>(
    `SELECT seq, contact_id, next_step, next_run_at, history FROM sequence_enrollments
     WHERE sequence_id = ?1 AND status = 'active' AND next_run_at <= ?2 ORDER BY next_run_at, seq LIMIT ?3`,
  ),
  nextDue: sqlite.prepare<{ at: number | null }, [string]>(
    "SELECT min(next_run_at) AS at FROM sequence_enrollments WHERE sequence_id = ?1 AND status = 'active'",
  ),
  defer: sqlite.prepare<never, [number, number]>(
    'UPDATE sequence_enrollments SET next_run_at = ?2 WHERE seq = ?1',
  ),
  // A step ran: its history entry, the next step and when it is due, or the end.
  advance: sqlite.prepare<
    never,
    [number, string, number, number, number | null, string, number | null, number]
  >(
    `UPDATE sequence_enrollments SET history = json_insert(history, '$[#]', json(?2)), current_step = ?3,
       next_step = ?4, next_run_at = ?5, status = ?6, ended_at = ?7, updated_at = ?8
     WHERE seq = ?1 AND status = 'active'`,
  ),
  complete: sqlite.prepare<never, [number, number]>(
    `UPDATE sequence_enrollments SET status = 'completed', next_run_at = NULL, ended_at = ?2, updated_at = ?2
     WHERE seq = ?1 AND status = 'active'`,
  ),
  skip: sqlite.prepare<never, [number, string, number, number | null, number]>(
    `UPDATE sequence_enrollments SET history = json_insert(history, '$[#]', json(?2)), next_step = ?3 + 1,
       next_run_at = ?4, status = CASE WHEN ?4 IS NULL THEN 'completed' ELSE status END,
       ended_at = CASE WHEN ?4 IS NULL THEN ?5 ELSE ended_at END, updated_at = ?5
     WHERE seq = ?1 AND status = 'active'`,
  ),
  end: sqlite.prepare<never, [number, string, string | null, number]>(
    `UPDATE sequence_enrollments SET status = ?2, stop_reason = ?3, next_run_at = NULL, ended_at = ?4, updated_at = ?4
     WHERE seq = ?1 AND status = 'active'`,
  ),
  queueMessage: sqlite.prepare<{ seq: number }, [string, string, string, string, string, string, number]>(
    `INSERT INTO messages (id, client_id, sequence_id, contact_id, channel, to_address, status, next_attempt_at, created_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'queued', ?7, ?7) RETURNING seq`,
  ),
  storeStep: sqlite.prepare<never, [number, string, number, string]>(
    'INSERT INTO sequence_messages (message_seq, sequence_id, step, thread) VALUES (?1, ?2, ?3, ?4)',
  ),
  stepOf: sqlite.prepare<{ step: number; thread: string }, [number]>(
    'SELECT step, thread FROM sequence_messages WHERE message_seq = ?1',
  ),
  dailyCount: sqlite.prepare<{ n: number }, [string, string, number]>(
    'SELECT queued AS n FROM sequence_daily_counts WHERE client_id = ?1 AND sender_key = ?2 AND day = ?3',
  ),
  bumpDaily: sqlite.prepare<never, [string, string, number]>(
    `INSERT INTO sequence_daily_counts (client_id, sender_key, day, queued) VALUES (?1, ?2, ?3, 1)
     ON CONFLICT (client_id, sender_key, day) DO UPDATE SET queued = queued + 1`,
  ),
  // Stops every active run of a contact (in sequences that stop on replies, for a reply).
  stopContact: sqlite.prepare<{ sequence_id: string }, [string, string, number, number]>(
    `UPDATE sequence_enrollments SET status = 'stopped', stop_reason = ?2, next_run_at = NULL, ended_at = ?3, updated_at = ?3
     WHERE contact_id = ?1 AND status = 'active'
       AND (?4 = 0 OR sequence_id IN (SELECT id FROM sequences WHERE stop_on_reply = 1))
     RETURNING sequence_id`,
  ),
  cancelContact: sqlite.prepare<never, [string, string, string]>(
    "UPDATE messages SET status = 'cancelled', error = ?3 WHERE sequence_id = ?1 AND contact_id = ?2 AND status = 'queued'",
  ),
  cancelQueued: sqlite.prepare<never, [string, string]>(
    "UPDATE messages SET status = 'cancelled', error = ?2 WHERE sequence_id = ?1 AND status = 'queued'",
  ),
  // The send queue's sequence lane: queued messages of active sequences, by due time.
  laneDue: sqlite.prepare<{ id: string; at: number | null }, []>(
    `SELECT s.id AS id, (SELECT min(m.next_attempt_at) FROM messages m
       WHERE m.sequence_id = s.id AND m.status = 'queued') AS at
     FROM sequences s WHERE s.status = 'active' ORDER BY s.id`,
  ),
  claimMessages: sqlite.prepare<{ seq: number }, [number, string, number, number]>(
    `UPDATE messages SET status = 'sending', attempts = attempts + 1, next_attempt_at = ?1
     WHERE seq IN (
       SELECT seq FROM messages WHERE sequence_id = ?2 AND status = 'queued' AND next_attempt_at <= ?3
       ORDER BY next_attempt_at LIMIT ?4
     ) RETURNING seq`,
  ),
  status: sqlite.prepare<{ status: string }, [string]>('SELECT status FROM sequences WHERE id = ?1'),
}))

export const sequenceQueue = (sqlite: Database) => {
  const s = statements(sqlite)
  return {
    activeSequences: () => s.activeSequences.all().map((r) => r.id),
    due: (sequenceId: string, now: number, limit: number) => s.due.all(sequenceId, now, limit),
    nextDue: (sequenceId: string) => s.nextDue.get(sequenceId)?.at ?? null,
    /** The run waits (sending window, daily limit) until `at`; nothing else changes. */
    defer: (seq: number, at: number) => void s.defer.run(seq, at),
    /** A step ran: history entry, then the next step due at `nextAt`, or completed when null. */
    advance: (
      seq: number,
      entry: Record<string, unknown>,
      step: number,
      nextAt: number | null,
      now: number,
    ) =>
      void s.advance.run(
        seq,
        JSON.stringify(entry),
        step,
        step + 1,
        nextAt,
        nextAt === null ? 'completed' : 'active',
        nextAt === null ? now : null,
        now,
      ),
    /** The run has no step left (the steps were shortened while it waited). */
    complete: (seq: number, now: number) => void s.complete.run(seq, now),
    /** A step that could not send (no phone): noted, and the run goes on to the next. */
    skip: (seq: number, entry: Record<string, unknown>, step: number, nextAt: number | null, now: number) =>
      void s.skip.run(seq, JSON.stringify(entry), step, nextAt, now),
    end: (seq: number, status: 'stopped' | 'exited', reason: string | null, now: number) =>
      void s.end.run(seq, status, reason, now),
    /** A message of the step in the outbox (sequence_id set, campaign_id null); its seq. */
    queueMessage: (
      id: string,
      clientId: string,
      sequenceId: string,
      contactId: string,
      channel: string,
      to: string,
      step: number,
      thread: string[],
      now: number,
    ) => {
      const seq = s.queueMessage.get(id, clientId, sequenceId, contactId, channel, to, now)!.seq
      s.storeStep.run(seq, sequenceId, step, JSON.stringify(thread))
      return seq
    },
    stepOf: (messageSeq: number) => {
      const r = s.stepOf.get(messageSeq)
      return r ? { step: r.step, thread: JSON.parse(r.thread) as string[] } : null
    },
    dailyCount: (clientId: string, senderKey: string, day: number) =>
      s.dailyCount.get(clientId, senderKey, day)?.n ?? 0,
    bumpDaily: (clientId: string, senderKey: string, day: number) =>
      void s.bumpDaily.run(clientId, senderKey, day),
    /**
     * Stops a contact's active runs (`replyOnly`: only in sequences that stop on a reply) and
     * cancels their queued messages; the sequences whose runs stopped.
     */
    stopContact: (contactId: string, reason: string, now: number, replyOnly: boolean) => {
      const stopped = s.stopContact.all(contactId, reason, now, replyOnly ? 1 : 0).map((r) => r.sequence_id)
      for (const id of new Set(stopped)) s.cancelContact.run(id, contactId, `sequence stopped: ${reason}`)
      return stopped
    },
    cancelContact: (sequenceId: string, contactId: string, reason: string) =>
      void s.cancelContact.run(sequenceId, contactId, reason),
    cancelQueued: (sequenceId: string, reason: string) => void s.cancelQueued.run(sequenceId, reason),
    laneDue: () => s.laneDue.all(),
    claimMessages: (sequenceId: string, now: number, leaseUntil: number, limit: number) =>
      s.claimMessages.all(leaseUntil, sequenceId, now, limit).map((r) => r.seq),
    status: (sequenceId: string) => s.status.get(sequenceId)?.status ?? null,
  }
}

export type SequenceQueue = ReturnType<typeof sequenceQueue>
