import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { Ctx } from '../../context'
import type { Db } from '../../db/client'
import { journeyQueue } from '../../db/journey-queue'
import { contacts, type JourneyRow } from '../../db/schema'
import { invalidField, invalidState } from '../../errors'
import { parseId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { assertContactsOfClient } from '../lists/members'
import { findSegmentRow, segmentCondition } from '../segments/manage'
import type { RuleGroup } from '../segments/rules'
import { findJourneyRow } from './manage'
import type { JourneyNode } from './nodes'

// Entering a journey: one INSERT … SELECT of enrollments (history starting at the trigger) and
// one of their first runs, due now, whatever the door (the enroll verb, a trigger hook, the
// segment job), inside the caller's transaction. A contact who is or ever was in the journey
// is skipped, unless the journey allows re-entry (then only one who is in it now is).

const CHUNK = 5_000

/** Enrolls the contacts of the journey's client matching `where` (over `contacts`); how many entered. */
export function enrollWhere(db: Db, journey: JourneyRow, where: SQL, now: number): number {
  const trigger = (journey.nodes as JourneyNode[]).find((n) => n.type === 'trigger')
  if (!trigger) return 0
  const first = typeof trigger.next === 'string' ? trigger.next : null
  const history = JSON.stringify([{ node: trigger.id, at: iso(now) }])
  const already = journey.allowReentry ? sql`AND e.status = 'active'` : sql``
  const before = journeyQueue(db.$client).maxEnrollmentSeq()
  const inserted = db.run(sql`
    INSERT INTO journey_enrollments (journey_id, client_id, contact_id, status, current_node, exit_reason, history, entered_at, ended_at, updated_at)
    SELECT ${journey.id}, ${journey.clientId}, contacts.id, ${first ? 'active' : 'completed'}, ${trigger.id}, NULL, ${history}, ${now}, ${first ? null : now}, ${now}
    FROM contacts
    WHERE contacts.client_id = ${journey.clientId} AND (${where})
      AND NOT EXISTS (SELECT 1 FROM journey_enrollments e WHERE e.journey_id = ${journey.id} AND e.contact_id = contacts.id ${already})
  `) as unknown as { changes: number }
  const n = inserted.changes
  if (n === 0) return 0
  if (first)
    db.run(sql`
      INSERT INTO journey_runs (enrollment_seq, journey_id, contact_id, node_id, next_run_at)
      SELECT seq, journey_id, contact_id, ${first}, ${now} FROM journey_enrollments
      WHERE seq > ${before} AND journey_id = ${journey.id}
    `)
  journeyQueue(db.$client).bumpNode(journey.id, trigger.id, n)
  return n
}

/** Enrolls the given contacts (ids of the journey's client; others are ignored). */
export function enrollContacts(
  db: Db,
  journey: JourneyRow,
  contactIds: readonly string[],
  now: number,
): number {
  let n = 0
  for (let i = 0; i < contactIds.length; i += CHUNK)
    n += enrollWhere(db, journey, inArray(contacts.id, contactIds.slice(i, i + CHUNK) as string[]), now)
  return n
}

/** POST /journeys/{id}/enroll: the state first (409), then the references (422), then everyone at once. */
export function enrollVerb(ctx: Ctx, id: string, input: { contact_ids?: string[]; segment_id?: string }) {
  const journey = findJourneyRow(ctx, id)
  if (journey.status !== 'active')
    throw invalidState(
      `Only an active journey takes enrollments; this one is ${journey.status}`,
      journey.status,
      ['active'],
    )
  if (input.contact_ids === undefined && input.segment_id === undefined)
    throw invalidField('contact_ids', 'give contact_ids, segment_id or both')
  const ids = [...new Set((input.contact_ids ?? []).map((c) => parseId(c) ?? c))]
  assertContactsOfClient(ctx.db, journey.clientId, ids, 'contact_ids')
  const parts: SQL[] = []
  if (input.segment_id !== undefined) {
    const segmentId = parseId(input.segment_id)
    let segment: ReturnType<typeof findSegmentRow> | null = null
    try {
      segment = segmentId ? findSegmentRow(ctx, segmentId) : null
    } catch {
      segment = null
    }
    if (!segment || segment.clientId !== journey.clientId)
      throw invalidField('segment_id', 'no such segment in this client')
    parts.push(
      segmentCondition(
        ctx.db,
        journey.clientId,
        segment.match,
        segment.ruleGroups as RuleGroup[],
        ctx.clock.now(),
      ),
    )
  }
  for (let i = 0; i < ids.length; i += CHUNK) parts.push(inArray(contacts.id, ids.slice(i, i + CHUNK)))
  const where = sql`(${sql.join(parts, sql` OR `)})`
  const candidates =
    ctx.db
      .select({ n: count() })
      .from(contacts)
      .where(and(eq(contacts.clientId, journey.clientId), where))
      .get()?.n ?? 0
  const enrolled = enrollWhere(ctx.db, journey, where, ctx.clock.now())
  if (enrolled > 0) ctx.workers.wake('journeys')
  return { journey_id: journey.id, enrolled, skipped: candidates - enrolled }
}
