import { and, count, eq, inArray, or, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import { contacts, lists } from '../../db/schema'
import { invalidField } from '../../errors'
import { parseId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { assertContactsOfClient } from '../lists/members'
import { findSegmentRow, segmentCondition } from '../segments/manage'
import type { RuleGroup } from '../segments/rules'
import type { EnrollSequenceBody } from './inputs'
import { assertSequenceState, findSequenceRow } from './manage'
import { delayMs, type SequenceStep } from './steps'

// POST /sequences/{id}/enroll: contact_ids, a segment, a list, or any of them together (the
// union, each contact once). The state is checked first (409), then every reference (422,
// nobody enrolled). One INSERT … SELECT enters the contacts, each run's first step due after
// its delay. A contact who is or ever was in the sequence is skipped, and so is one who is not
// `subscribed` (cold outreach never starts with someone who opted out or bounced).

export function enrollInSequence(ctx: Ctx, id: string, input: EnrollSequenceBody) {
  const sequence = findSequenceRow(ctx, id)
  assertSequenceState(sequence, 'enroll')
  if (!input.contact_ids?.length && input.segment_id === undefined && input.list_id === undefined)
    throw invalidField('contact_ids', 'give contact ids, a segment_id or a list_id (or several)')
  const clientId = sequence.clientId
  const ids = [...new Set((input.contact_ids ?? []).map((c) => parseId(c) ?? c))]
  assertContactsOfClient(ctx.db, clientId, ids, 'contact_ids')
  const now = ctx.clock.now()
  const audience: SQL[] = []
  if (ids.length) audience.push(inArray(contacts.id, ids))
  if (input.segment_id !== undefined) {
    const segmentId = parseId(input.segment_id)
    let segment: ReturnType<typeof findSegmentRow> | null = null
    try {
      segment = segmentId ? findSegmentRow(ctx, segmentId) : null
    } catch {
      segment = null
    }
    if (!segment || segment.clientId !== clientId)
      throw invalidField('segment_id', 'no such segment in this client')
    audience.push(segmentCondition(ctx.db, clientId, segment.match, segment.ruleGroups as RuleGroup[], now))
  }
  if (input.list_id !== undefined) {
    const listId = parseId(input.list_id)
    const list =
      listId &&
      ctx.db
        .select({ id: lists.id })
        .from(lists)
        .where(and(eq(lists.id, listId), eq(lists.clientId, clientId)))
        .get()
    if (!list) throw invalidField('list_id', 'no such list in this client')
    audience.push(sql`${contacts.id} IN (SELECT contact_id FROM list_members WHERE list_id = ${list.id})`)
  }
  const where = and(eq(contacts.clientId, clientId), or(...audience))!
  const candidates = ctx.db.select({ n: count() }).from(contacts).where(where).get()?.n ?? 0
  const steps = sequence.steps as unknown as SequenceStep[]
  const firstDue = now + (delayMs(steps[0]?.delay) ?? 0)
  const inserted = ctx.db.run(sql`
    INSERT INTO sequence_enrollments (sequence_id, client_id, contact_id, status, current_step, next_step, next_run_at, stop_reason, history, entered_at, ended_at, updated_at)
    SELECT ${sequence.id}, ${clientId}, contacts.id, 'active', NULL, 0, ${firstDue}, NULL, '[]', ${now}, NULL, ${now}
    FROM contacts WHERE ${where} AND contacts.status = 'subscribed'
      AND NOT EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.sequence_id = ${sequence.id} AND e.contact_id = contacts.id)
  `) as unknown as { changes: number }
  const enrolled = inserted.changes
  if (enrolled > 0) ctx.workers.wake('sequences')
  return { sequence_id: sequence.id, enrolled, skipped: candidates - enrolled, first_run_at: iso(firstDue) }
}
