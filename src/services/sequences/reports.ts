import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { flowQueue } from '../../db/flow-queue'
import { flowEnrollments, flowRuns } from '../../db/schema'
import { invalidState, notFound } from '../../errors'
import { parseId } from '../../lib/ids'
import { listFlowEnrollments } from '../flows/enrollments'
import type { ListSequenceEnrollmentsQuery } from './inputs'
import { findSequenceRow } from './lifecycle'
import { presentSequenceEnrollment } from './present'

// What a sequence did: each contact's run, and the manual stop.

export async function listSequenceEnrollments(ctx: Ctx, id: string, page: ListSequenceEnrollmentsQuery) {
  const sequence = await findSequenceRow(ctx, id)
  return await listFlowEnrollments(
    ctx,
    sequence.id,
    `sequence_enrollments:${sequence.id}`,
    page,
    presentSequenceEnrollment,
  )
}

/** Stops one contact's active run (stop_reason manual) and cancels its queued messages. */
export async function stopSequenceEnrollment(ctx: Ctx, id: string, contactIdRef: string) {
  const sequence = await findSequenceRow(ctx, id)
  const contactId = parseId(contactIdRef)
  const row =
    contactId &&
    (
      await ctx.db
        .select()
        .from(flowEnrollments)
        .where(and(eq(flowEnrollments.flowId, sequence.id), eq(flowEnrollments.contactId, contactId)))
        .limit(1)
    )[0]
  if (!row) throw notFound('Enrollment')
  if (row.status !== 'active')
    throw invalidState(`This run is ${row.status}; only an active run can be stopped`, row.status, ['active'])
  const q = flowQueue(ctx.db)
  await q.endEnrollment(row.seq, 'stopped', 'manual', ctx.clock.now())
  await q.cancelContact(sequence.id, row.contactId, 'sequence stopped: manual')
  const updated = (
    await ctx.db.select().from(flowEnrollments).where(eq(flowEnrollments.seq, row.seq)).limit(1)
  )[0]!
  const run = (await ctx.db.select().from(flowRuns).where(eq(flowRuns.enrollmentSeq, row.seq)).limit(1))[0]
  return presentSequenceEnrollment(updated, run?.nextRunAt ?? null)
}
