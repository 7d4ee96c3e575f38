import { and, count, desc, eq, lt, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { cursorSeq, pageFrom } from '../../db/paginate'
import { type SequenceRow, sequenceEnrollments } from '../../db/schema'
import { sequenceQueue } from '../../db/sequence-queue'
import { invalidState, notFound } from '../../errors'
import { parseId } from '../../lib/ids'
import { idFilter } from '../id-filter'
import type { ListSequenceEnrollmentsQuery } from './inputs'
import { findSequenceRow } from './lifecycle'
import { presentSequenceEnrollment, type StepStats } from './present'

// What a sequence did: per-step message stats, each contact's run, and the manual stop.

/** Per step: messages sent, delivered, opened, clicked, replied, bounced (each message once). */
export function stepStats(db: Db, row: SequenceRow): StepStats[] {
  const counted = new Map(
    db
      .all<Omit<StepStats, 'step'> & { step: number }>(
        sql`SELECT sm.step AS step, count(m.sent_at) AS sent, count(m.delivered_at) AS delivered,
              count(m.opened_at) AS opened, count(m.clicked_at) AS clicked, count(m.replied_at) AS replied,
              count(m.bounced_at) AS bounced
            FROM sequence_messages sm JOIN messages m ON m.seq = sm.message_seq
            WHERE sm.sequence_id = ${row.id} GROUP BY sm.step`,
      )
      .map((r) => [r.step, r]),
  )
  return row.steps.map((_, step) => {
    const c = counted.get(step)
    return {
      step,
      sent: c?.sent ?? 0,
      delivered: c?.delivered ?? 0,
      opened: c?.opened ?? 0,
      clicked: c?.clicked ?? 0,
      replied: c?.replied ?? 0,
      bounced: c?.bounced ?? 0,
    }
  })
}

export function listSequenceEnrollments(ctx: Ctx, id: string, page: ListSequenceEnrollmentsQuery) {
  const sequence = findSequenceRow(ctx, id)
  const limit = page.limit ?? 50
  const after = cursorSeq(ctx.secretKey, page.cursor, `sequence_enrollments:${sequence.id}`, page)
  const where: (SQL | undefined)[] = [eq(sequenceEnrollments.sequenceId, sequence.id)]
  if (page.status) where.push(eq(sequenceEnrollments.status, page.status))
  const contactId = idFilter('contact_id', 'contact', page.contact_id)
  if (contactId) where.push(eq(sequenceEnrollments.contactId, contactId))
  const filter = and(...where)
  const rows = ctx.db
    .select()
    .from(sequenceEnrollments)
    .where(and(filter, after === null ? undefined : lt(sequenceEnrollments.seq, after)))
    .orderBy(desc(sequenceEnrollments.seq))
    .limit(limit + 1)
    .all()
  const total = ctx.db.select({ n: count() }).from(sequenceEnrollments).where(filter).get()?.n ?? 0
  return pageFrom(ctx.secretKey, rows, limit, {
    collection: `sequence_enrollments:${sequence.id}`,
    position: (r) => String(r.seq),
    present: presentSequenceEnrollment,
    total,
    query: page,
  })
}

/** Stops one contact's active run (stop_reason manual) and cancels its queued messages. */
export function stopSequenceEnrollment(ctx: Ctx, id: string, contactIdRef: string) {
  const sequence = findSequenceRow(ctx, id)
  const contactId = parseId(contactIdRef)
  const row =
    contactId &&
    ctx.db
      .select()
      .from(sequenceEnrollments)
      .where(
        and(eq(sequenceEnrollments.sequenceId, sequence.id), eq(sequenceEnrollments.contactId, contactId)),
      )
      .get()
  if (!row) throw notFound('Enrollment')
  if (row.status !== 'active')
    throw invalidState(`This run is ${row.status}; only an active run can be stopped`, row.status, ['active'])
  const q = sequenceQueue(ctx.sqlite)
  const now = ctx.clock.now()
  q.end(row.seq, 'stopped', 'manual', now)
  q.cancelContact(sequence.id, row.contactId, 'sequence stopped: manual')
  const updated = ctx.db.select().from(sequenceEnrollments).where(eq(sequenceEnrollments.seq, row.seq)).get()!
  return presentSequenceEnrollment(updated)
}
