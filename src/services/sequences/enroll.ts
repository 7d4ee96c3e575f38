import { and, count, eq, inArray, max, or, type SQL, sql } from 'drizzle-orm'
import type { AppContext, Ctx } from '../../context'
import { contacts, lists, type SequenceAudience, sequenceEnrollJobs, sequences } from '../../db/schema'
import { invalidField, ServiceError } from '../../errors'
import { newId, parseId } from '../../lib/ids'
import { iso } from '../../lib/time'
import { assertContactsOfClient } from '../lists/members'
import { findSegmentRow, segmentCondition } from '../segments/records'
import type { RuleGroup } from '../segments/rules'
import type { EnrollSequenceBody } from './inputs'
import { assertSequenceState, findSequenceRow } from './lifecycle'
import { delayMs, type SequenceStep } from './steps'

// POST /sequences/{id}/enroll: contact_ids, a segment, a list, or any of them together (the
// union, each contact once). The state is checked first (409), then every reference (422,
// nobody enrolled). A contact who is or ever was in the sequence is skipped, and so is one who
// is not `subscribed` (cold outreach never starts with someone who opted out or bounced). Each
// run's first step is due after its delay.
//
// Up to SYNC_ENROLL_LIMIT contacts enter in the call (one INSERT … SELECT). A larger audience
// is counted in the call and entered afterwards by the sequence executor, in chunks of contacts
// walked by seq, one short transaction each, between due steps: one INSERT … SELECT of 100,000
// held the write lock (and the event loop) for ~0.7 s, stalling every other writer and request
// (test/bench/sequences.ts). The contacts are those that existed at the call; a segment's rules
// are the ones it had then, read as of the call's time.

/** Up to this many new runs enter in the enroll call; more enter in chunks after it. */
export const SYNC_ENROLL_LIMIT = 5_000
/** Contacts (by seq, any client) one chunk looks at: a chunk enters at most this many. */
export const ENROLL_CHUNK_SEQS = 2_000

/**
 * The contacts of `clientId` the audience names (over `contacts`). A list is an IN over its
 * members for the whole audience, and a lookup per contact for a chunk (an IN would copy the
 * whole list for every chunk).
 */
function audienceWhere(
  ctx: Pick<AppContext, 'db'>,
  clientId: string,
  a: SequenceAudience,
  at: number,
  chunk = false,
): SQL {
  const parts: SQL[] = []
  if (a.contact_ids.length) parts.push(inArray(contacts.id, a.contact_ids))
  if (a.segment)
    parts.push(segmentCondition(ctx.db, clientId, a.segment.match, a.segment.rule_groups as RuleGroup[], at))
  if (a.list_id !== null)
    parts.push(
      chunk
        ? sql`EXISTS (SELECT 1 FROM list_members m WHERE m.list_id = ${a.list_id} AND m.contact_id = ${contacts.id})`
        : sql`${contacts.id} IN (SELECT contact_id FROM list_members WHERE list_id = ${a.list_id})`,
    )
  return and(eq(contacts.clientId, clientId), or(...parts))!
}

/** Not in the sequence now or ever, and subscribed: who enters. */
const newcomer = (sequenceId: string) =>
  sql`contacts.status = 'subscribed' AND NOT EXISTS (SELECT 1 FROM sequence_enrollments e WHERE e.sequence_id = ${sequenceId} AND e.contact_id = contacts.id)`

/** The runs of the contacts matching `where` who enter; how many. A range walks contacts by seq. */
function insertRuns(
  db: AppContext['db'],
  sequence: { id: string; clientId: string },
  where: SQL,
  firstDue: number,
  now: number,
  range?: { after: number; upTo: number },
): number {
  const r = db.run(sql`
    INSERT INTO sequence_enrollments (sequence_id, client_id, contact_id, status, current_step, next_step, next_run_at, stop_reason, history, entered_at, ended_at, updated_at)
    SELECT ${sequence.id}, ${sequence.clientId}, contacts.id, 'active', NULL, 0, ${firstDue}, NULL, '[]', ${now}, NULL, ${now}
    FROM contacts ${range ? sql`NOT INDEXED` : sql``}
    WHERE ${range ? sql`contacts.seq > ${range.after} AND contacts.seq <= ${range.upTo} AND ` : sql``}(${where}) AND ${newcomer(sequence.id)}
  `) as unknown as { changes: number }
  return r.changes
}

/** The sequence and the audience an enroll call names, every reference checked (409, 422). */
function resolveEnrollment(ctx: Ctx, id: string, input: EnrollSequenceBody, now: number) {
  const sequence = findSequenceRow(ctx, id)
  assertSequenceState(sequence, 'enroll')
  if (!input.contact_ids?.length && input.segment_id === undefined && input.list_id === undefined)
    throw invalidField('contact_ids', 'give contact ids, a segment_id or a list_id (or several)')
  const clientId = sequence.clientId
  const ids = [...new Set((input.contact_ids ?? []).map((c) => parseId(c) ?? c))]
  assertContactsOfClient(ctx.db, clientId, ids, 'contact_ids')
  const audience: SequenceAudience = { contact_ids: ids, segment: null, list_id: null }
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
    audience.segment = { match: segment.match, rule_groups: segment.ruleGroups as unknown[] }
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
    audience.list_id = list.id
  }
  return { sequence, audience, where: audienceWhere(ctx, clientId, audience, now) }
}

/** How many contacts an enroll call names, and how many of them would enter. */
export interface AudienceCount {
  candidates: number
  entering: number
}

const countAudience = (ctx: Ctx, sequenceId: string, where: SQL): AudienceCount =>
  ctx.db
    .select({ candidates: count(), entering: sql<number>`coalesce(sum(${newcomer(sequenceId)}), 0)` })
    .from(contacts)
    .where(where)
    .get()!

/**
 * The enroll verb's `prepare`: the audience counted before the write transaction opens. The
 * count reads the whole audience (~126 ms for 100,000 contacts) and, inside the transaction,
 * held the write lock that long. Nothing in the transaction must be exact by it: it chooses the
 * call's way (in the call, or chunks) and is the answer's figures where runs enter afterwards;
 * runs entering in the call are counted as they are inserted. A call that will be refused (or
 * might be: the sequence or a reference may change before the transaction) is counted there
 * instead (null here), so the refusal comes from the transaction, in its order.
 */
export function countEnrollment(ctx: Ctx, id: string, input: EnrollSequenceBody): AudienceCount | null {
  try {
    const { sequence, where } = resolveEnrollment(ctx, id, input, ctx.clock.now())
    return countAudience(ctx, sequence.id, where)
  } catch (err) {
    if (err instanceof ServiceError) return null
    throw err
  }
}

export function enrollInSequence(
  ctx: Ctx,
  id: string,
  input: EnrollSequenceBody,
  /** countEnrollment's answer before the transaction; null = count here. */
  counted: AudienceCount | null = null,
  /** test/bench/sequences.ts passes Infinity to measure the one-transaction way against chunks. */
  syncLimit = SYNC_ENROLL_LIMIT,
) {
  const now = ctx.clock.now()
  // State and references are checked again here: they decide, and only the transaction sees
  // them as they are when runs are written.
  const { sequence, audience, where } = resolveEnrollment(ctx, id, input, now)
  const clientId = sequence.clientId
  const { candidates, entering } = counted ?? countAudience(ctx, sequence.id, where)
  const steps = sequence.steps as unknown as SequenceStep[]
  const firstDue = now + (delayMs(steps[0]?.delay) ?? 0)
  let enrolled: number
  // A count a few milliseconds old may be off by what changed since: the call then enters a few
  // more runs itself, or leaves a few to the executor; who enters is decided by insertRuns alone.
  if (entering <= syncLimit) enrolled = insertRuns(ctx.db, sequence, where, firstDue, now)
  else {
    const maxSeq =
      ctx.db
        .select({ s: max(contacts.seq) })
        .from(contacts)
        .get()?.s ?? 0
    ctx.db
      .insert(sequenceEnrollJobs)
      .values({
        id: newId(),
        sequenceId: sequence.id,
        clientId,
        audience,
        maxContactSeq: maxSeq,
        firstRunAt: firstDue,
        enteredAt: now,
        createdAt: now,
      })
      .run()
    // Entered afterwards: what the count expects to enter (a contact who unsubscribes before
    // its chunk, or enters through another call, does not) — the answer was never more exact.
    enrolled = entering
  }
  if (enrolled > 0) ctx.workers.wake('sequences')
  return {
    sequence_id: sequence.id,
    enrolled,
    // Never below zero when contacts joined the audience between the count and the insert.
    skipped: Math.max(0, candidates - enrolled),
    first_run_at: iso(firstDue),
  }
}

/**
 * Whether a chunked enrollment can go on (or be dropped): one read, so an idle executor pass, or
 * one while the only job's sequence is paused, takes no write lock.
 */
export const sequenceEnrollmentsPending = (app: AppContext): boolean =>
  app.db
    .select({ id: sequenceEnrollJobs.id })
    .from(sequenceEnrollJobs)
    .leftJoin(sequences, eq(sequences.id, sequenceEnrollJobs.sequenceId))
    .where(sql`${sequences.status} IS NULL OR ${sequences.status} <> 'paused'`)
    .limit(1)
    .get() !== undefined

/**
 * One chunk of the oldest pending enrollment of an active sequence (the executor calls it in
 * its own transaction when no step is due): the next ENROLL_CHUNK_SEQS contacts by seq, those
 * of the audience entering. A job whose sequence is archived or gone is dropped; one of a paused
 * sequence waits. Returns how many entered, or null when no job can go on.
 */
export function enrollNextSequenceChunk(app: AppContext, seqs = ENROLL_CHUNK_SEQS): number | null {
  app.db
    .delete(sequenceEnrollJobs)
    .where(
      sql`NOT EXISTS (SELECT 1 FROM ${sequences} s WHERE s.id = ${sequenceEnrollJobs.sequenceId} AND s.status <> 'archived')`,
    )
    .run()
  const job = app.db
    .select({ job: sequenceEnrollJobs })
    .from(sequenceEnrollJobs)
    .innerJoin(sequences, eq(sequences.id, sequenceEnrollJobs.sequenceId))
    .where(eq(sequences.status, 'active'))
    .orderBy(sequenceEnrollJobs.createdAt, sequenceEnrollJobs.id)
    .limit(1)
    .get()?.job
  if (!job) return null
  const upTo = Math.min(job.cursorSeq + seqs, job.maxContactSeq)
  const where = audienceWhere(app, job.clientId, job.audience, job.enteredAt, true)
  const sequence = { id: job.sequenceId, clientId: job.clientId }
  const n = insertRuns(app.db, sequence, where, job.firstRunAt, app.clock.now(), {
    after: job.cursorSeq,
    upTo,
  })
  if (upTo >= job.maxContactSeq)
    app.db.delete(sequenceEnrollJobs).where(eq(sequenceEnrollJobs.id, job.id)).run()
  else
    app.db.update(sequenceEnrollJobs).set({ cursorSeq: upTo }).where(eq(sequenceEnrollJobs.id, job.id)).run()
  return n
}
