import { and, count, eq, inArray, or, type SQL, sql } from 'drizzle-orm'
import type { AppContext } from '../../context'
import type { Db } from '../../db/client'
import { DIALECT } from '../../db/dialect'
import { flowQueue, flowsWhere } from '../../db/flow-queue'
import { audienceChunkEnd } from '../../db/postgres/flow-queue'
import { rawRows, rawRun } from '../../db/raw'
import { contacts, type FlowAudience, flowEnrollJobs } from '../../db/schema'
import { eqUnindexed } from '../../db/tenant'
import { newId } from '../../lib/ids'
import { segmentCondition } from '../segments/records'
import type { RuleGroup } from '../segments/rules'
import { entryOf, type Flow, flowKindOf, loadFlow } from './definition'

// Entering a flow, whatever the door (an enroll call, a trigger hook, the segment job): one
// INSERT … SELECT of enrollments and one of their first runs, inside the caller's transaction.
// A contact who is or ever was in the flow is skipped, unless it allows re-entry (then only one
// who is in it now is); an outreach flow also skips contacts who are not `subscribed`.
//
// Up to SYNC_ENROLL_LIMIT contacts enter in the enroll call. A larger audience is counted in the
// call and entered afterwards by the flow worker, in chunks of contacts walked by seq, one short
// transaction each, between due steps: one INSERT … SELECT of 100,000 held the write lock (and
// the event loop) for ~0.7 s. The contacts are those that existed at the call; a segment's rules
// are the ones it had then, read as of the call's time.

/** Up to this many new runs enter in the enroll call; more enter in chunks after it. */
export const SYNC_ENROLL_LIMIT = 5_000
/**
 * Contacts of the audience one chunk enters. Their first steps come due together, so the chunk
 * bounds how late the last of them starts (a chunk's work, ~0.1 s) and how long the entry holds
 * the write lock.
 */
export const ENROLL_CHUNK = 2_000
const IDS_PER_STATEMENT = 5_000

/** Who may enter: not in the flow now, nor ever unless it allows re-entry. */
const newcomer = (flow: Flow) =>
  sql`${flow.options.subscribedOnly ? sql`contacts.status = 'subscribed' AND ` : sql``}NOT EXISTS (SELECT 1 FROM flow_enrollments e WHERE e.flow_id = ${flow.id} AND e.contact_id = contacts.id${
    flow.options.allowReentry ? sql` AND e.status = 'active'` : sql``
  })`

/**
 * Enrolls the contacts of the flow's client matching `where` (over `contacts`); how many
 * entered. `at` overrides when the first step is due (a chunk of an earlier call).
 */
export async function enterWhere(
  db: Db,
  flow: Flow,
  where: SQL,
  now: number,
  options: { at?: number; range?: { after: number; upTo: number } } = {},
): Promise<number> {
  const entry = entryOf(flow, now)
  const entering = { flow, where, now, entry, at: options.at ?? entry.at, range: options.range }
  const n = DIALECT === 'postgres' ? await enterWherePg(db, entering) : await enterWhereSqlite(db, entering)
  if (n === 0) return 0
  if (entry.current) await flowQueue(db).bumpNode(flow.id, entry.current, n)
  return n
}

/** What enterWhere's statements take: who enters, when, and where the first step is. */
interface Entering {
  flow: Flow
  where: SQL
  now: number
  entry: ReturnType<typeof entryOf>
  at: number
  range: { after: number; upTo: number } | undefined
}

/**
 * The INSERT … SELECT of the newcomers' enrollments, both stores. PostgreSQL: parameters in a
 * SELECT list have no type it can infer, hence the casts; contacts enter in id order, so two
 * processes entering the same contacts wait on each other in one order, never in a cycle. SQLite:
 * a chunk's contacts are walked by seq, not by the client's index (NOT INDEXED).
 */
function insertEnrollments({ flow, where, now, entry, range }: Entering): SQL {
  const pg = DIALECT === 'postgres'
  const as = (value: unknown, type: string) => (pg ? sql`${value}${sql.raw(`::${type}`)}` : sql`${value}`)
  return sql`INSERT INTO flow_enrollments (flow_kind, flow_id, client_id, contact_id, status, current_node, end_reason, history, entered_at, ended_at, updated_at)
    SELECT ${as(flow.kind, 'text')}, ${as(flow.id, 'text')}, ${as(flow.clientId, 'text')}, contacts.id, ${as(entry.node ? 'active' : 'completed', 'text')}, ${as(entry.current, 'text')}, NULL, ${as(JSON.stringify(entry.history), pg ? 'text::jsonb' : 'text')}, ${as(now, 'bigint')}, ${as(entry.node ? null : now, 'bigint')}, ${as(now, 'bigint')}
    FROM contacts ${range && !pg ? sql`NOT INDEXED` : sql``}
    WHERE ${range ? sql`contacts.seq > ${range.after} AND contacts.seq <= ${range.upTo} AND ` : sql``}contacts.client_id = ${flow.clientId} AND (${where})
      AND ${newcomer(flow)}${pg ? sql` ORDER BY contacts.id` : sql``}`
}

/**
 * PostgreSQL: another process may be entering the same flow. A contact it is entering and has
 * not committed makes this insert wait for its commit and then skip the contact (the unique index
 * of active passes); the first runs are those of the rows this statement inserted, not of any
 * committed meanwhile.
 */
async function enterWherePg(db: Db, e: Entering): Promise<number> {
  const runs = e.entry.node
    ? sql`, runs AS (
      INSERT INTO flow_runs (enrollment_seq, flow_id, contact_id, node_id, next_run_at)
      SELECT seq, flow_id, contact_id, ${e.entry.node}::text, ${e.at}::bigint FROM entered)`
    : sql``
  const [r] = await rawRows<{ n: number }>(
    db,
    sql`WITH entered AS (${insertEnrollments(e)}
      ON CONFLICT (flow_id, contact_id) WHERE status = 'active' DO NOTHING
      RETURNING seq, flow_id, contact_id)${runs}
    SELECT count(*)::int AS n FROM entered`,
  )
  return r?.n ?? 0
}

/** SQLite: the one writer enters; the first runs are those of the enrollments past the last seq. */
async function enterWhereSqlite(db: Db, e: Entering): Promise<number> {
  const before = await flowQueue(db).maxEnrollmentSeq()
  const n = ((await db.run(insertEnrollments(e))) as unknown as { changes: number }).changes
  if (n > 0 && e.entry.node)
    await rawRun(
      db,
      sql`
      INSERT INTO flow_runs (enrollment_seq, flow_id, contact_id, node_id, next_run_at)
      SELECT seq, flow_id, contact_id, ${e.entry.node}, ${e.at} FROM flow_enrollments
      WHERE seq > ${before} AND flow_id = ${e.flow.id}
    `,
    )
  return n
}

/** Enrolls the given contacts (ids of the flow's client; others are ignored). */
export async function enterContacts(
  db: Db,
  flow: Flow,
  contactIds: readonly string[],
  now: number,
): Promise<number> {
  let n = 0
  for (let i = 0; i < contactIds.length; i += IDS_PER_STATEMENT)
    n += await enterWhere(
      db,
      flow,
      inArray(contacts.id, contactIds.slice(i, i + IDS_PER_STATEMENT) as string[]),
      now,
    )
  return n
}

/** The contacts of `clientId` an audience names (over `contacts`). */
export async function audienceWhere(db: Db, clientId: string, a: FlowAudience, at: number): Promise<SQL> {
  const parts: SQL[] = []
  if (a.contact_ids.length) parts.push(inArray(contacts.id, a.contact_ids))
  if (a.segment)
    parts.push(
      await segmentCondition(db, clientId, a.segment.match, a.segment.rule_groups as RuleGroup[], at),
    )
  if (a.list_id !== null)
    parts.push(
      sql`${contacts.id} IN (SELECT contact_id FROM list_members WHERE list_id = ${a.list_id} AND status = 'confirmed')`,
    )
  // Ids and a list are read through their own indexes, the client only checked (it may hold
  // many more contacts); a segment's rules are read over the client's contacts.
  return and(
    a.segment ? eq(contacts.clientId, clientId) : eqUnindexed(contacts.clientId, clientId),
    or(...parts),
  )!
}

/** How many contacts an enroll call names, and how many of them would enter. */
export interface AudienceCount {
  candidates: number
  entering: number
}

export const countAudience = async (db: Db, flow: Flow, where: SQL): Promise<AudienceCount> =>
  (
    await db
      .select({
        candidates: count(),
        // A boolean has no sum on PostgreSQL; count() is read as a number there.
        entering:
          DIALECT === 'postgres'
            ? sql<number>`count(*) FILTER (WHERE ${newcomer(flow)})`.mapWith(Number)
            : sql<number>`coalesce(sum(${newcomer(flow)}), 0)`,
      })
      .from(contacts)
      .where(where)
      .limit(1)
  )[0]!

/**
 * An enroll call's audience enters: at once when few (counted as inserted), else as a job the
 * worker takes in chunks (counted by `counted`, which may be a few milliseconds old: the call then
 * enters a few more itself, or leaves a few to the worker; who enters is decided by enterWhere).
 */
export async function enrollAudience(
  app: Pick<AppContext, 'db' | 'clock' | 'workers'>,
  flow: Flow,
  audience: FlowAudience,
  counted: AudienceCount | null,
  syncLimit = SYNC_ENROLL_LIMIT,
): Promise<{ enrolled: number; skipped: number; firstRunAt: number }> {
  const now = app.clock.now()
  const where = await audienceWhere(app.db, flow.clientId, audience, now)
  const { candidates, entering } = counted ?? (await countAudience(app.db, flow, where))
  const firstRunAt = entryOf(flow, now).at
  let enrolled: number
  if (entering <= syncLimit) enrolled = await enterWhere(app.db, flow, where, now)
  else {
    await app.db.insert(flowEnrollJobs).values({
      id: newId(),
      flowId: flow.id,
      clientId: flow.clientId,
      audience,
      maxContactSeq: await flowQueue(app.db).maxContactSeq(),
      firstRunAt,
      enteredAt: now,
      createdAt: now,
    })
    enrolled = entering
  }
  if (enrolled > 0) app.workers.wake('flows')
  // Never below zero when contacts joined the audience between the count and the insert.
  return { enrolled, skipped: Math.max(0, candidates - enrolled), firstRunAt }
}

/** Flows whose jobs wait (paused, drafts); any other job goes on, or is dropped when its flow is gone. */
const WAITING = sql.raw(`SELECT id FROM (${flowsWhere("status IN ('paused', 'draft')")}) f`)
const LIVE = sql.raw(`SELECT id FROM (${flowsWhere("status <> 'archived'")}) f`)

/** Whether a chunked enrollment can go on (or be dropped): one read, so an idle pass takes no write lock. */
export const enrollmentsPending = async (db: Db): Promise<boolean> =>
  (
    await db
      .select({ id: flowEnrollJobs.id })
      .from(flowEnrollJobs)
      .where(sql`${flowEnrollJobs.flowId} NOT IN (${WAITING})`)
      .limit(1)
  )[0] !== undefined

/**
 * One chunk of the oldest pending enrollment of an active flow (the worker calls it in its own
 * transaction when no step is due). The job's audience is matched once, into the connection's
 * scratch table (a segment's rules may read a whole list: matched per chunk they would be read
 * again for every chunk); each chunk then enters the next ENROLL_CHUNK of those contacts by seq.
 * A job whose flow is archived or gone is dropped; one of a paused flow waits. Returns how many
 * entered, or null when no job can go on.
 */
export async function enterNextChunk(
  app: Pick<AppContext, 'db' | 'clock'>,
  size = ENROLL_CHUNK,
): Promise<number | null> {
  const q = flowQueue(app.db)
  for (const gone of await app.db
    .delete(flowEnrollJobs)
    .where(sql`${flowEnrollJobs.flowId} NOT IN (${LIVE})`)
    .returning({ id: flowEnrollJobs.id }))
    await q.scratchClear(gone.id)
  const job = (
    await app.db
      .select()
      .from(flowEnrollJobs)
      .where(sql`${flowEnrollJobs.flowId} NOT IN (${WAITING})`)
      .orderBy(flowEnrollJobs.createdAt, flowEnrollJobs.id)
      .limit(1)
  )[0]
  if (!job) return null
  const kind = await flowKindOf(app.db, job.flowId)
  const found = kind && (await loadFlow(app.db, kind, job.flowId))
  if (!found) return null
  const done = async () => {
    await app.db.delete(flowEnrollJobs).where(eq(flowEnrollJobs.id, job.id))
    await q.scratchClear(job.id)
  }
  if (DIALECT === 'postgres') return await enterMatchedChunk(app, job, found.flow, size, done)
  // An empty scratch with the job not done: after a restart, or when the transaction that filled
  // it rolled back. Match the rest of the job again. (What the scratch holds always goes with the
  // job's cursor: both are written, and rolled back, in the same transactions.)
  let upTo = await q.scratchChunkEnd(job.id, size)
  if (upTo === null) {
    const where = await audienceWhere(app.db, job.clientId, job.audience, job.enteredAt)
    await app.db.run(sql`INSERT INTO ${sql.raw(q.scratch)} (job_id, seq)
      SELECT ${job.id}, contacts.seq FROM contacts
      WHERE contacts.seq > ${job.cursorSeq} AND contacts.seq <= ${job.maxContactSeq} AND (${where})`)
    upTo = await q.scratchChunkEnd(job.id, size)
  }
  if (upTo === null) {
    await done()
    return 0
  }
  const now = app.clock.now()
  const chunk = sql`contacts.seq IN (SELECT seq FROM ${sql.raw(q.scratch)} WHERE job_id = ${job.id} AND seq > ${job.cursorSeq} AND seq <= ${upTo})`
  // Due when the call said (a sequence's first delay), or now: a chunk entering later than its
  // call is not late by the time its predecessors took.
  const n = await enterWhere(app.db, found.flow, chunk, now, {
    at: Math.max(job.firstRunAt, now),
    range: { after: job.cursorSeq, upTo },
  })
  await q.scratchDrop(job.id, upTo)
  if (upTo >= job.maxContactSeq || (await q.scratchChunkEnd(job.id, 1)) === null) await done()
  else await app.db.update(flowEnrollJobs).set({ cursorSeq: upTo }).where(eq(flowEnrollJobs.id, job.id))
  return n
}

/**
 * enterNextChunk on PostgreSQL: the pool's connections share no TEMP table, so each chunk
 * matches the job's audience again (as of the call's time) over the contacts after its cursor.
 */
async function enterMatchedChunk(
  app: Pick<AppContext, 'db' | 'clock'>,
  job: typeof flowEnrollJobs.$inferSelect,
  flow: Flow,
  size: number,
  done: () => Promise<void>,
): Promise<number> {
  const where = await audienceWhere(app.db, job.clientId, job.audience, job.enteredAt)
  const after = (from: number) =>
    sql`contacts.seq > ${from} AND contacts.seq <= ${job.maxContactSeq} AND (${where})`
  const upTo = await audienceChunkEnd(app.db, after(job.cursorSeq), size - 1)
  if (upTo === null) {
    await done()
    return 0
  }
  const now = app.clock.now()
  const n = await enterWhere(app.db, flow, where, now, {
    at: Math.max(job.firstRunAt, now),
    range: { after: job.cursorSeq, upTo },
  })
  if (upTo >= job.maxContactSeq || (await audienceChunkEnd(app.db, after(upTo), 0)) === null) await done()
  else await app.db.update(flowEnrollJobs).set({ cursorSeq: upTo }).where(eq(flowEnrollJobs.id, job.id))
  return n
}
