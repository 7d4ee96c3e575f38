import type { Ctx } from '../../context'
import { invalidField } from '../../errors'
import { iso } from '../../lib/time'
import { countBeforeWrite, resolveAudience } from '../flows/audience'
import { sequenceFlow } from '../flows/definition'
import { type AudienceCount, enrollAudience } from '../flows/enroll'
import type { EnrollSequenceBody } from './inputs'
import { assertSequenceState, findSequenceRow } from './lifecycle'

// POST /sequences/{id}/enroll: contact_ids, a segment, a list, or any of them together (the
// union, each contact once). The state is checked first (409), then every reference (422,
// nobody enrolled). A contact who is or ever was in the sequence is skipped, and so is one who
// is not `subscribed`. Each run's first step is due after its delay.

async function resolveEnrollment(ctx: Ctx, id: string, input: EnrollSequenceBody) {
  const sequence = await findSequenceRow(ctx, id)
  assertSequenceState(sequence, 'enroll')
  if (!input.contact_ids?.length && input.segment_id === undefined && input.list_id === undefined)
    throw invalidField('contact_ids', 'give contact ids, a segment_id or a list_id (or several)')
  return { flow: sequenceFlow(sequence), audience: await resolveAudience(ctx, sequence.clientId, input) }
}

/** The enroll verb's `prepare`: the audience counted before the write transaction. */
export const countEnrollment = async (ctx: Ctx, id: string, input: EnrollSequenceBody) =>
  await countBeforeWrite(ctx, async () => await resolveEnrollment(ctx, id, input))

export async function enrollInSequence(
  ctx: Ctx,
  id: string,
  input: EnrollSequenceBody,
  /** countEnrollment's answer before the transaction; null = count here. */
  counted: AudienceCount | null = null,
  /** test/bench/sequences.ts passes Infinity to measure the one-transaction way against chunks. */
  syncLimit?: number,
) {
  // State and references are checked again here: they decide, and only the transaction sees
  // them as they are when runs are written.
  const { flow, audience } = await resolveEnrollment(ctx, id, input)
  const { enrolled, skipped, firstRunAt } = await enrollAudience(ctx, flow, audience, counted, syncLimit)
  return { sequence_id: flow.id, enrolled, skipped, first_run_at: iso(firstRunAt) }
}
