import { and, count, eq, inArray, type SQL, sql } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import type { Db } from '../../db/client'
import { journeyQueue } from '../../db/journey-queue'
import { contacts, type JourneyRow, journeyEnrollJobs, journeys } from '../../db/schema'
import { invalidField, invalidState } from '../../errors'
import { newId, parseId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { assertContactsOfClient } from '../lists/members'
import { findSegmentRow, segmentCondition } from '../segments/records'
import type { RuleGroup } from '../segments/rules'
import { findJourneyRow } from './lifecycle'
import type { JourneyNode } from './nodes'

// Entering a journey: one INSERT … SELECT of enrollments (history starting at the trigger) and
// one of their first runs, due now, whatever the door (the enroll verb, a trigger hook, the
// segment job), inside the caller's transaction. A contact who is or ever was in the journey
// is skipped, unless the journey allows re-entry (then only one who is in it now is).

const CHUNK = 5_000

/** Not in the journey now, nor ever unless it allows re-entry. */
const notIn = (journey: JourneyRow) =>
  sql`NOT EXISTS (SELECT 1 FROM journey_enrollments e WHERE e.journey_id = ${journey.id} AND e.contact_id = contacts.id ${
    journey.allowReentry ? sql`AND e.status = 'active'` : sql``
  })`

/** How many contacts matching `where` would enter now. */
export function countNotEnrolled(db: Db, journey: JourneyRow, where: SQL): number {
  return (
    db
      .select({ n: count() })
      .from(contacts)
      .where(and(eq(contacts.clientId, journey.clientId), where, notIn(journey)))
      .get()?.n ?? 0
  )
}

/** Enrolls the contacts of the journey's client matching `where` (over `contacts`); how many entered. */
export function enrollWhere(
  db: Db,
  journey: JourneyRow,
  where: SQL,
  now: number,
  /** A chunk: contacts with seq in (after, upTo], walked by rowid (no index may be preferred). */
  range?: { after: number; upTo: number },
): number {
  const trigger = (journey.nodes as JourneyNode[]).find((n) => n.type === 'trigger')
  if (!trigger) return 0
  const first = typeof trigger.next === 'string' ? trigger.next : null
  const history = JSON.stringify([{ node: trigger.id, at: iso(now) }])
  const before = journeyQueue(db.$client).maxEnrollmentSeq()
  const inserted = db.run(sql`
    INSERT INTO journey_enrollments (journey_id, client_id, contact_id, status, current_node, exit_reason, history, entered_at, ended_at, updated_at)
    SELECT ${journey.id}, ${journey.clientId}, contacts.id, ${first ? 'active' : 'completed'}, ${trigger.id}, NULL, ${history}, ${now}, ${first ? null : now}, ${now}
    FROM contacts ${range ? sql`NOT INDEXED` : sql``}
    WHERE ${range ? sql`contacts.seq > ${range.after} AND contacts.seq <= ${range.upTo} AND ` : sql``}contacts.client_id = ${journey.clientId} AND (${where})
      AND ${notIn(journey)}
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

/** Up to this many contacts from a segment enter in the enroll call; more enter in chunks after it. */
export const SYNC_ENROLL_LIMIT = 5_000

/**
 * POST /journeys/{id}/enroll: the state first (409), then the references (422), then the named
 * contacts at once. A segment's contacts enter at once too when they are few; a large segment
 * (a whole audience) is counted now and entered in chunks by the journey worker, so the call
 * answers in well under a second and each chunk is a short transaction. The contacts are those
 * matching the segment's rules as they are now, among the contacts that exist now.
 */
export function enrollVerb(ctx: Ctx, id: string, input: { contact_ids?: string[]; segment_id?: string }) {
  const journey = findJourneyRow(ctx, id)
  if (journey.status !== 'active')
    throw invalidState(
      `Only an active journey takes enrollments; this one is ${journey.status}`,
      journey.status,
      ['active'],
    )
  if (!input.contact_ids?.length && input.segment_id === undefined)
    throw invalidField('contact_ids', 'give at least one contact id, a segment_id, or both')
  const ids = [...new Set((input.contact_ids ?? []).map((c) => parseId(c) ?? c))]
  assertContactsOfClient(ctx.db, journey.clientId, ids, 'contact_ids')
  const now = ctx.clock.now()
  let segment: ReturnType<typeof findSegmentRow> | null = null
  if (input.segment_id !== undefined) {
    const segmentId = parseId(input.segment_id)
    try {
      segment = segmentId ? findSegmentRow(ctx, segmentId) : null
    } catch {
      segment = null
    }
    if (!segment || segment.clientId !== journey.clientId)
      throw invalidField('segment_id', 'no such segment in this client')
  }
  let enrolled = enrollContacts(ctx.db, journey, ids, now)
  let candidates = ids.length
  if (segment) {
    // The segment is matched once, into the scratch table: its size, who is not in the journey
    // yet, and (for a large one) the chunks the worker takes later.
    const where = segmentCondition(
      ctx.db,
      journey.clientId,
      segment.match,
      segment.ruleGroups as RuleGroup[],
      now,
    )
    const jobId = newId()
    const q = journeyQueue(ctx.sqlite)
    const maxSeq = q.maxContactSeq()
    const matched = fillScratch(ctx.db, jobId, journey, where, 0, maxSeq)
    q.markFilled(jobId)
    candidates += matched - countNamedIn(ctx.db, jobId, ids)
    const pending = countNotEnrolled(ctx.db, journey, inScratch(jobId, 0, maxSeq))
    if (pending <= SYNC_ENROLL_LIMIT) {
      enrolled += enrollWhere(ctx.db, journey, inScratch(jobId, 0, maxSeq), now)
      q.scratchClear(jobId)
    } else {
      ctx.db
        .insert(journeyEnrollJobs)
        .values({
          id: jobId,
          journeyId: journey.id,
          match: segment.match,
          ruleGroups: segment.ruleGroups,
          maxContactSeq: maxSeq,
          enteredAt: now,
          createdAt: now,
        })
        .run()
      enrolled += pending
    }
  }
  if (enrolled > 0) ctx.workers.wake('journeys')
  return { journey_id: journey.id, enrolled, skipped: candidates - enrolled }
}

/**
 * One chunk of a pending segment enrollment (the journey worker calls it in its own
 * transaction): the next `size` contacts by seq that match, enrolled; the job ends after the
 * last. Returns how many entered, or null when no job waits.
 */
export function enrollNextChunk(app: AppContext, size = 2_000): number | null {
  const job = app.db.select().from(journeyEnrollJobs).orderBy(journeyEnrollJobs.createdAt).limit(1).get()
  if (!job) return null
  const q = journeyQueue(app.sqlite)
  const journey = app.db.select().from(journeys).where(eq(journeys.id, job.journeyId)).get()
  const done = () => {
    app.db.delete(journeyEnrollJobs).where(eq(journeyEnrollJobs.id, job.id)).run()
    q.scratchClear(job.id)
  }
  if (!journey || journey.status === 'archived' || journey.status === 'draft') {
    done()
    return 0
  }
  // After a restart the scratch is empty: match the rest of the job again, once.
  if (!q.isFilled(job.id)) {
    const where = segmentCondition(
      app.db,
      journey.clientId,
      job.match as 'all' | 'any',
      job.ruleGroups as RuleGroup[],
      job.enteredAt,
    )
    fillScratch(app.db, job.id, journey, where, job.cursorSeq, job.maxContactSeq)
    q.markFilled(job.id)
  }
  const upTo = q.scratchChunkEnd(job.id, size)
  if (upTo === null) {
    done()
    return 0
  }
  const n = enrollWhere(app.db, journey, inScratch(job.id, job.cursorSeq, upTo), app.clock.now(), {
    after: job.cursorSeq,
    upTo,
  })
  q.scratchDrop(job.id, upTo)
  app.db.update(journeyEnrollJobs).set({ cursorSeq: upTo }).where(eq(journeyEnrollJobs.id, job.id)).run()
  return n
}

/** Puts the seqs of the contacts matching `where` in (after, upTo] into the job's scratch; how many. */
function fillScratch(
  db: Db,
  jobId: string,
  journey: JourneyRow,
  where: SQL,
  after: number,
  upTo: number,
): number {
  const scratch = sql.raw(journeyQueue(db.$client).scratch)
  const r = db.run(sql`INSERT INTO ${scratch} (job_id, seq)
    SELECT ${jobId}, contacts.seq FROM contacts
    WHERE contacts.client_id = ${journey.clientId} AND contacts.seq > ${after} AND contacts.seq <= ${upTo} AND (${where})`) as unknown as {
    changes: number
  }
  return r.changes
}

/** Contacts whose seq is in the job's scratch, within (after, upTo]. */
const inScratch = (jobId: string, after: number, upTo: number) =>
  sql`contacts.seq IN (SELECT seq FROM ${sql.raw('temp.journey_enroll_scratch')} WHERE job_id = ${jobId} AND seq > ${after} AND seq <= ${upTo})`

/** How many of the named contacts the segment also matched (counted once in the answer). */
function countNamedIn(db: Db, jobId: string, ids: readonly string[]): number {
  let n = 0
  for (let i = 0; i < ids.length; i += CHUNK)
    n += countWhere(
      db,
      and(
        inArray(contacts.id, ids.slice(i, i + CHUNK) as string[]),
        inScratch(jobId, 0, Number.MAX_SAFE_INTEGER),
      )!,
    )
  return n
}

const countWhere = (db: Db, where: SQL) => db.select({ n: count() }).from(contacts).where(where).get()?.n ?? 0
