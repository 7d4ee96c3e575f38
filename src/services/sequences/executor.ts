import { eq, inArray } from 'drizzle-orm'
import type { AppContext } from '../../context'
import { type ContactRow, clients, contacts, type SequenceRow, sequences } from '../../db/schema'
import { type DueSequenceRun, sequenceQueue } from '../../db/sequence-queue'
import { inTransaction } from '../../db/transaction'
import { SLICE_MS } from '../../lib/cooperate'
import { createFailureHolds, pickDue } from '../../lib/due-picker'
import { newId } from '../../lib/ids'
import { nextUtcDay, nextWindowAt, utcDay } from '../../lib/sending-window'
import { iso } from '../../lib/time'
import { createSuppressionCheck } from '../suppressions/check'
import { enrollNextSequenceChunk, sequenceEnrollmentsPending } from './enroll'
import { delayMs, type SequenceStep } from './steps'

// The sequence executor. Each active run's next step is due at its
// enrollment's next_run_at. A batch of due runs of one sequence is stepped in ONE transaction:
// the step's message queued in the one outbox (sequence_id, its step and thread), the history
// entry, the daily count and the next step's due time (or the end) commit together, so a crash
// (kill -9) rolls the whole batch back: no step is lost and none repeats. A step outside the
// sending window, or over the sender's daily limit, moves its due time and changes nothing else.

export interface SequenceStepReport {
  stepped: number
  queued: number
  deferred: number
  /** Runs entered from chunked enrollments, and the chunks taken. */
  enrolled: number
  chunks: number
}

/** The daily limit's key: the sequence's sender, or the client's default one. */
export const senderKeyOf = (sequence: Pick<SequenceRow, 'senderId'>) => sequence.senderId ?? 'default'

export function createSequenceExecutor(app: AppContext) {
  const q = sequenceQueue(app.sqlite)
  const isSuppressed = createSuppressionCheck(app.db)

  function stepBatch(
    sequenceId: string,
    runs: DueSequenceRun[],
    report: SequenceStepReport,
    deadline: number,
  ): number {
    // The batch's figures reach `report` only once it committed: a throw rolls its steps back,
    // so they count for nothing.
    const tally = { queued: 0, deferred: 0 }
    const stepped = inTransaction(app.sqlite, () => {
      // The client's time zone comes with the sequence (one join, once a batch): the sending
      // window reads a contact without a zone of its own in it (else UTC).
      const found = app.db
        .select({ sequence: sequences, clientZone: clients.timezone })
        .from(sequences)
        .innerJoin(clients, eq(clients.id, sequences.clientId))
        .where(eq(sequences.id, sequenceId))
        .get()
      const sequence = found?.sequence
      // Paused or archived since the runs were read: they wait (or were ended).
      if (!sequence || sequence.status !== 'active') return 0
      const clientZone = found.clientZone
      const now = app.clock.now()
      const steps = sequence.steps as unknown as SequenceStep[]
      const byId = new Map(
        app.db
          .select()
          .from(contacts)
          .where(inArray(contacts.id, [...new Set(runs.map((r) => r.contact_id))]))
          .all()
          .map((c) => [c.id, c]),
      )
      const senderKey = senderKeyOf(sequence)
      const day = utcDay(now)
      let sentToday = sequence.dailyLimit === null ? 0 : q.dailyCount(sequence.clientId, senderKey, day)
      let stepped = 0
      for (const run of runs) {
        if (stepped > 0 && performance.now() >= deadline) break
        stepped++
        const step = steps[run.next_step]
        if (!step) {
          q.complete(run.seq, now)
          continue
        }
        const contact = byId.get(run.contact_id)
        const ended = endReason(contact)
        if (ended) {
          q.end(run.seq, ended.status, ended.reason, now)
          continue
        }
        const c = contact!
        if (step.channel === 'email' && isSuppressed(sequence.clientId, c.email)) {
          q.end(run.seq, 'exited', null, now)
          continue
        }
        // The window is the contact's local time, else the client's, else UTC.
        if (sequence.sendingWindow) {
          const open = nextWindowAt(now, sequence.sendingWindow, c.timezone ?? clientZone)
          if (open > now) {
            q.defer(run.seq, open)
            tally.deferred++
            continue
          }
        }
        const nextAt = (i: number) => (steps[i + 1] ? now + (delayMs(steps[i + 1]!.delay) ?? 0) : null)
        if (step.channel !== 'email' && !c.phone) {
          q.skip(
            run.seq,
            { step: run.next_step, message_id: null, skipped: 'no_phone', at: iso(now) },
            run.next_step,
            nextAt(run.next_step),
            now,
          )
          continue
        }
        if (step.channel === 'email' && sequence.dailyLimit !== null) {
          if (sentToday >= sequence.dailyLimit) {
            q.defer(run.seq, nextUtcDay(now))
            tally.deferred++
            continue
          }
          sentToday++
          q.bumpDaily(sequence.clientId, senderKey, day)
        }
        const history = JSON.parse(run.history) as { message_id?: string; channel?: string }[]
        const thread = history.filter((h) => h.channel === 'email' && h.message_id).map((h) => h.message_id!)
        const id = newId()
        q.queueMessage(
          id,
          sequence.clientId,
          sequence.id,
          c.id,
          step.channel,
          step.channel === 'email' ? c.email : c.phone!,
          run.next_step,
          step.channel === 'email' ? thread : [],
          now,
        )
        tally.queued++
        q.advance(
          run.seq,
          { step: run.next_step, message_id: id, channel: step.channel, at: iso(now) },
          run.next_step,
          nextAt(run.next_step),
          now,
        )
      }
      return stepped
    })
    report.stepped += stepped
    report.queued += tally.queued
    report.deferred += tally.deferred
    return stepped
  }

  // A flow whose batch threw is held back with a growing delay (src/lib/due-picker.ts).
  const holds = createFailureHolds()

  /**
   * One pass of about `budgetMs`: batches of due runs, each of the active sequence whose oldest
   * due run is the oldest, so one sequence's backlog never starves another.
   */
  function pass(batch = 200, budgetMs = SLICE_MS): SequenceStepReport & { nextAt: number | null } {
    const report: SequenceStepReport = { stepped: 0, queued: 0, deferred: 0, enrolled: 0, chunks: 0 }
    const deadline = performance.now() + budgetMs
    const active = new Set(q.activeSequences())
    let nextAt: number | null = null
    for (let first = true; first || performance.now() < deadline; first = false) {
      const now = app.clock.now()
      const due = pickDue(active, q.nextDue, now, holds)
      const pick = due.pick
      nextAt = due.nextAt
      if (pick === null) {
        // Nothing due: the next chunk of a large enrollment (./enroll.ts), so entering never
        // delays a due step, and the runs it enters are stepped before the chunk after.
        if (!sequenceEnrollmentsPending(app)) break
        const n = inTransaction(app.sqlite, () => enrollNextSequenceChunk(app))
        if (n === null) break
        report.enrolled += n
        report.chunks++
        continue
      }
      // A throw rolls the batch back (its runs stay due) and holds the sequence back, so the
      // other sequences go on.
      const stepped = holds.attempt(
        pick,
        now,
        () => stepBatch(pick, q.due(pick, now, batch), report, deadline),
        (retryAt, err) =>
          app.log.error('sequence step failed; its due runs wait', {
            sequence_id: pick,
            retry_at: iso(retryAt),
            error: String((err as Error)?.stack ?? err),
          }),
      )
      if (stepped === 0) active.delete(pick)
    }
    if (report.queued > 0) app.workers.wake('send')
    return { ...report, nextAt }
  }

  return { pass }
}

/** A contact who can no longer be written to ends the run: why. */
function endReason(
  contact: ContactRow | undefined,
): { status: 'stopped' | 'exited'; reason: 'bounced' | 'unsubscribed' | null } | null {
  if (!contact) return { status: 'exited', reason: null }
  switch (contact.status) {
    case 'subscribed':
      return null
    case 'bounced':
      return { status: 'stopped', reason: 'bounced' }
    case 'unsubscribed':
    case 'complained':
      // A spam complaint is the strongest opt-out (as when it is recorded: stops.ts).
      return { status: 'stopped', reason: 'unsubscribed' }
    default:
      // blocked by an operator: not the contact's answer to this sequence; it ends it.
      return { status: 'exited', reason: null }
  }
}
