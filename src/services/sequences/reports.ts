import { and, eq, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { flowQueue } from '../../db/flow-queue'
import { flowEnrollments, flowRuns, type SequenceRow } from '../../db/schema'
import { invalidState, notFound } from '../../errors'
import { parseId } from '../../lib/ids'
import { listFlowEnrollments } from '../flows/enrollments'
import { stepOfNode } from '../flows/linear'
import type { ListSequenceEnrollmentsQuery } from './inputs'
import { findSequenceRow } from './lifecycle'
import { presentSequenceEnrollment, type StepStats } from './present'

// What a sequence did: per-step message stats, each contact's run, and the manual stop.

/** Per step: messages sent, delivered, opened, clicked, replied, bounced (each message once). */
export function stepStats(db: Db, row: SequenceRow): StepStats[] {
  const counted = new Map(
    db
      .all<Omit<StepStats, 'step'> & { node: string }>(
        sql`SELECT source_step AS node, count(sent_at) AS sent, count(delivered_at) AS delivered,
              count(opened_at) AS opened, count(clicked_at) AS clicked, count(replied_at) AS replied,
              count(bounced_at) AS bounced
            FROM messages WHERE source_id = ${row.id} GROUP BY source_step`,
      )
      .map((r) => [stepOfNode(r.node), r]),
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
  return listFlowEnrollments(
    ctx,
    sequence.id,
    `sequence_enrollments:${sequence.id}`,
    page,
    presentSequenceEnrollment,
  )
}

/** Stops one contact's active run (stop_reason manual) and cancels its queued messages. */
export function stopSequenceEnrollment(ctx: Ctx, id: string, contactIdRef: string) {
  const sequence = findSequenceRow(ctx, id)
  const contactId = parseId(contactIdRef)
  const row =
    contactId &&
    ctx.db
      .select()
      .from(flowEnrollments)
      .where(and(eq(flowEnrollments.flowId, sequence.id), eq(flowEnrollments.contactId, contactId)))
      .get()
  if (!row) throw notFound('Enrollment')
  if (row.status !== 'active')
    throw invalidState(`This run is ${row.status}; only an active run can be stopped`, row.status, ['active'])
  const q = flowQueue(ctx.sqlite)
  q.endEnrollment(row.seq, 'stopped', 'manual', ctx.clock.now())
  q.cancelContact(sequence.id, row.contactId, 'sequence stopped: manual')
  const updated = ctx.db.select().from(flowEnrollments).where(eq(flowEnrollments.seq, row.seq)).get()!
  const run = ctx.db.select().from(flowRuns).where(eq(flowRuns.enrollmentSeq, row.seq)).get()
  return presentSequenceEnrollment(updated, run?.nextRunAt ?? null)
}
