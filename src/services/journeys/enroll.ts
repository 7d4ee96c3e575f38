import type { Ctx } from '../../context'
import { invalidField, invalidState } from '../../errors'
import { countBeforeWrite, resolveAudience } from '../flows/audience'
import { journeyFlow } from '../flows/definition'
import { type AudienceCount, enrollAudience } from '../flows/enroll'
import { findJourneyRow } from './lifecycle'

// POST /journeys/{id}/enroll: the state first (409), then the references (422), then the named
// contacts and a segment's enter the flow engine (at once when few, in chunks after the call
// when many). The contacts are those matching the segment's rules as they are now, among the
// contacts that exist now.

interface EnrollJourneyBody {
  contact_ids?: string[]
  segment_id?: string
}

async function resolveEnrollment(ctx: Ctx, id: string, input: EnrollJourneyBody) {
  const journey = await findJourneyRow(ctx, id)
  if (journey.status !== 'active')
    throw invalidState(
      `Only an active journey takes enrollments; this one is ${journey.status}`,
      journey.status,
      ['active'],
    )
  if (!input.contact_ids?.length && input.segment_id === undefined)
    throw invalidField('contact_ids', 'give at least one contact id, a segment_id, or both')
  return { flow: journeyFlow(journey), audience: await resolveAudience(ctx, journey.clientId, input) }
}

/** The enroll verb's `prepare`: the audience counted before the write transaction. */
export const countJourneyEnrollment = async (ctx: Ctx, id: string, input: EnrollJourneyBody) =>
  await countBeforeWrite(ctx, async () => await resolveEnrollment(ctx, id, input))

export async function enrollVerb(
  ctx: Ctx,
  id: string,
  input: EnrollJourneyBody,
  counted: AudienceCount | null = null,
  syncLimit?: number,
) {
  const { flow, audience } = await resolveEnrollment(ctx, id, input)
  const { enrolled, skipped } = await enrollAudience(ctx, flow, audience, counted, syncLimit)
  return { journey_id: flow.id, enrolled, skipped }
}
