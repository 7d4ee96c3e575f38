import { and, eq } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { type FlowAudience, lists } from '../../db/schema'
import { invalidField, ServiceError } from '../../errors'
import type { Awaitable } from '../../lib/awaitable'
import { parseId } from '../../lib/ids'
import { assertContactsOfClient } from '../lists/members'
import { findSegmentRow } from '../segments/records'
import type { Flow } from './definition'
import { type AudienceCount, audienceWhere, countAudience } from './enroll'

// Who an enroll call names, each reference checked against the flow's client (422 naming the
// member, nobody enrolled): contact ids, a segment (its rules as they are now), a list.

export interface AudienceInput {
  contact_ids?: string[]
  segment_id?: string
  list_id?: string
}

export async function resolveAudience(
  ctx: Ctx,
  clientId: string,
  input: AudienceInput,
): Promise<FlowAudience> {
  const ids = [...new Set((input.contact_ids ?? []).map((c) => parseId(c) ?? c))]
  await assertContactsOfClient(ctx.db, clientId, ids, 'contact_ids')
  const audience: FlowAudience = { contact_ids: ids, segment: null, list_id: null }
  if (input.segment_id !== undefined) {
    const segmentId = parseId(input.segment_id)
    let segment: Awaited<ReturnType<typeof findSegmentRow>> | null = null
    try {
      segment = segmentId ? await findSegmentRow(ctx, segmentId) : null
    } catch {
      segment = null
    }
    if (!segment || segment.clientId !== clientId)
      throw invalidField('segment_id', 'no such segment in this client')
    audience.segment = { match: segment.match, rule_groups: segment.ruleGroups as unknown[] }
  }
  if (input.list_id !== undefined) {
    const listId = parseId(input.list_id)
    const list =
      listId &&
      (
        await ctx.db
          .select({ id: lists.id })
          .from(lists)
          .where(and(eq(lists.id, listId), eq(lists.clientId, clientId)))
          .limit(1)
      )[0]
    if (!list) throw invalidField('list_id', 'no such list in this client')
    audience.list_id = list.id
  }
  return audience
}

/**
 * An enroll verb's `prepare`: the audience counted before the write transaction opens (the
 * count reads the whole audience, ~126 ms for 100,000 contacts, and inside the transaction held
 * the write lock that long). It only chooses the call's way (at once, or chunks) and is the
 * answer's figure for runs entering afterwards. A call that will be refused (or might be: the
 * flow or a reference may change before the transaction) is counted there instead (null here),
 * so the refusal comes from the transaction, in its order.
 */
export async function countBeforeWrite(
  ctx: Ctx,
  resolve: () => Awaitable<{ flow: Flow; audience: FlowAudience }>,
): Promise<AudienceCount | null> {
  try {
    const { flow, audience } = await resolve()
    return await countAudience(
      ctx.db,
      flow,
      await audienceWhere(ctx.db, flow.clientId, audience, ctx.clock.now()),
    )
  } catch (err) {
    if (err instanceof ServiceError) return null
    throw err
  }
}
