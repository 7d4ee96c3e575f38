import { describe, expect, setDefaultTimeout, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { DIALECT } from '../../../src/db/dialect'
import { flowQueue } from '../../../src/db/flow-queue'
import { clients, contacts, flowEnrollJobs } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import {
  ENROLL_CHUNK,
  enterNextChunk as enrollNextSequenceChunk,
  SYNC_ENROLL_LIMIT,
} from '../../../src/services/flows/enroll'
import { createFlowWorker } from '../../../src/services/flows/worker'
import { adminApi } from '../../helpers/admin-api'
import { createTestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'
import { rowOf, rowsOf, runSql } from '../../helpers/raw-sql'

// An enrollment over SYNC_ENROLL_LIMIT new runs is counted in the call and entered afterwards by
// the sequence executor in chunks (one short transaction each, between due steps), from a
// durable job: the answer's `enrolled` is what enters, each contact enters once, the unsubscribed
// and another client's contacts never do, contacts created after the call do not, a paused
// sequence's job waits and an archived one's is dropped, and a job carries on from its cursor
// after a restart (a new executor on the same database).

const N = SYNC_ENROLL_LIMIT + 500
// On PostgreSQL each step is a few round trips to the server (on SQLite, calls into the
// process): stepping thousands of runs takes seconds there.
if (DIALECT === 'postgres') setDefaultTimeout(120_000)
const clock = testClock()
const t = await createTestApp({ clock })
const clientId = await t.client('Big')
const other = await t.client('Other')
const key = await t.key({ scopes: ['admin:*'], clientId, tier: 'unlimited' })
const call = await adminApi(t, key)

// N contacts of the client interleaved with N / 5 of another (so chunks by seq hold both), every
// 100th unsubscribed, all with plan pro, all on one list.
const list = await call('POST', '/api/v1/lists', { name: 'Prospects' })
const noOf = async (id: string) =>
  (await t.ctx.db.select({ no: clients.no }).from(clients).where(eq(clients.id, id)))[0]!.no
const nos = { [clientId]: await noOf(clientId), [other]: await noOf(other) }
const insertContacts = async (from: number, to: number) => {
  for (let start = from; start <= to; start += 500)
    await t.ctx.db.insert(contacts).values(
      Array.from({ length: Math.min(500, to - start + 1) }, (_, k) => {
        const i = start + k
        const owner = i % 6 === 0 ? other : clientId
        return {
          id: `01a00000-0000-7000-8000-${String(i).padStart(12, '0')}`,
          clientId: owner,
          clientNo: nos[owner]!,
          email: `p${i}@example.com`,
          firstName: `P${i}`,
          status: i % 100 === 1 ? ('unsubscribed' as const) : ('subscribed' as const),
          customFields: { plan: 'pro' },
          createdAt: clock.now(),
          updatedAt: clock.now(),
        }
      }),
    )
}
const TOTAL = Math.ceil((N * 6) / 5)
await insertContacts(1, TOTAL)
await runSql(
  t,
  sql`INSERT INTO list_members (list_id, contact_id, added_at) SELECT ${list.id}, id, CAST(${clock.now()} AS BIGINT) FROM contacts WHERE client_id = ${clientId}`,
)
const ours = (await rowOf<{ n: number; subscribed: number }>(
  t,
  sql`SELECT CAST(count(*) AS INTEGER) AS n, CAST(sum(CASE WHEN status = 'subscribed' THEN 1 ELSE 0 END) AS INTEGER) AS subscribed
      FROM contacts WHERE client_id = ${clientId}`,
))!
const segment = await call('POST', '/api/v1/segments', {
  name: 'Pros',
  rule_groups: [{ match: 'all', rules: [{ field: 'custom.plan', operator: 'eq', value: 'pro' }] }],
})

let n = 0
async function sequence() {
  const s = await call('POST', '/api/v1/sequences', {
    name: `S${++n}`,
    steps: [
      { subject: 'Hello', body_text: 'Hi' },
      { body_text: 'Following up', delay: 'P2D' },
    ],
  })
  await call('POST', `/api/v1/sequences/${s.id}/activate`)
  return s.id as string
}
const runs = async (id: string) =>
  (await rowOf<{ n: number; distinct_contacts: number; other_client: number; unsubscribed: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n, CAST(count(DISTINCT e.contact_id) AS INTEGER) AS distinct_contacts,
         CAST(coalesce(sum(CASE WHEN c.client_id <> e.client_id THEN 1 ELSE 0 END), 0) AS INTEGER) AS other_client,
         CAST(coalesce(sum(CASE WHEN c.status <> 'subscribed' THEN 1 ELSE 0 END), 0) AS INTEGER) AS unsubscribed
       FROM flow_enrollments e JOIN contacts c ON c.id = e.contact_id WHERE e.flow_id = ${id}`,
  ))!
/** What `runs` gives once the whole audience has entered: each subscribed contact of ours, once. */
const EVERY_SUBSCRIBED_ONCE = {
  n: ours.subscribed,
  distinct_contacts: ours.subscribed,
  other_client: 0,
  unsubscribed: 0,
}
const jobs = async (id: string) =>
  await t.ctx.db
    .select({ id: flowEnrollJobs.id, cursor: flowEnrollJobs.cursorSeq })
    .from(flowEnrollJobs)
    .where(eq(flowEnrollJobs.flowId, id))

describe('a large enrollment enters in chunks', () => {
  test('from a segment: counted in the call, entered by the executor, each contact once', async () => {
    expect(ours.subscribed).toBeGreaterThan(SYNC_ENROLL_LIMIT)
    const id = await sequence()
    const answer = await call('POST', `/api/v1/sequences/${id}/enroll`, { segment_id: segment.id })
    expect(answer).toMatchObject({ enrolled: ours.subscribed, skipped: ours.n - ours.subscribed })
    expect((await runs(id)).n).toBe(0)
    expect((await jobs(id)).map((j) => j.cursor)).toEqual([0])

    const reports: { chunks: number; stepped: number }[] = []
    const worker = createFlowWorker(t.ctx, { onPass: (r) => reports.push(r) })
    await worker.drain()
    expect(await runs(id)).toEqual(EVERY_SUBSCRIBED_ONCE)
    expect(await jobs(id)).toEqual([])
    expect(reports.reduce((a, r) => a + r.chunks, 0)).toBe(Math.ceil(ours.n / ENROLL_CHUNK))
    // Every run's first step was taken (the message queued), the entering paced by the steps.
    const stepped = (await rowOf<{ n: number }>(
      t,
      sql`SELECT CAST(count(*) AS INTEGER) AS n FROM messages WHERE source_id = ${id} AND source_step = 'step-0'`,
    ))!.n
    expect(stepped).toBe(ours.subscribed)
    await worker.stop()
  })

  test('from a list; contacts created after the call stay out; a job resumes from its cursor', async () => {
    const id = await sequence()
    const answer = await call('POST', `/api/v1/sequences/${id}/enroll`, { list_id: list.id })
    expect(answer.enrolled).toBe(ours.subscribed)
    // A contact made (and put on the list) after the call is not part of this enrollment.
    const lateId = `01a00000-0000-7000-8000-${String(TOTAL + 2).padStart(12, '0')}` // ours, subscribed
    await insertContacts(TOTAL + 2, TOTAL + 2)
    await runSql(
      t,
      sql`INSERT INTO list_members (list_id, contact_id, added_at) VALUES (${list.id}, ${lateId}, 0)`,
    )
    // One chunk, then "a restart": the job's cursor is in the database, nothing in memory.
    const first = (await inTransaction(t.ctx.sqlite, async () => await enrollNextSequenceChunk(t.ctx)))!
    expect(first).toBeGreaterThan(ENROLL_CHUNK * 0.9)
    const [job] = await jobs(id)
    expect(job!.cursor).toBeGreaterThan(0)
    await flowQueue(t.ctx.db).scratchClear(job!.id)
    const worker = createFlowWorker(t.ctx)
    await worker.drain()
    await worker.stop()
    expect(await runs(id)).toEqual(EVERY_SUBSCRIBED_ONCE)
    const lateRuns = await rowsOf(t, sql`SELECT 1 AS one FROM flow_enrollments WHERE contact_id = ${lateId}`)
    expect(lateRuns).toHaveLength(0)
    // A new call takes it (and only it).
    expect((await call('POST', `/api/v1/sequences/${id}/enroll`, { list_id: list.id })).enrolled).toBe(1)
    // Out of the way of the next tests (unsubscribed: never enters).
    await runSql(t, sql`UPDATE contacts SET status = 'unsubscribed' WHERE id = ${lateId}`)
  })

  test('a chunk whose transaction rolled back is entered again, and the job goes on', async () => {
    const id = await sequence()
    const answer = await call('POST', `/api/v1/sequences/${id}/enroll`, { segment_id: segment.id })
    expect(answer.enrolled).toBe(ours.subscribed)
    // The first chunk's transaction fails after the chunk was matched (a full disk, say).
    await expect(
      inTransaction(t.ctx.sqlite, async () => {
        expect(await enrollNextSequenceChunk(t.ctx)).toBeGreaterThan(0)
        throw new Error('the chunk could not be written')
      }),
    ).rejects.toThrow('the chunk could not be written')
    expect((await runs(id)).n).toBe(0)
    expect((await jobs(id)).map((j) => j.cursor)).toEqual([0])
    const worker = createFlowWorker(t.ctx)
    await worker.drain()
    await worker.stop()
    expect(await runs(id)).toEqual(EVERY_SUBSCRIBED_ONCE)
    expect(await jobs(id)).toEqual([])
  })

  test('a contact enrolled by another call meanwhile enters once', async () => {
    const id = await sequence()
    await call('POST', `/api/v1/sequences/${id}/enroll`, { segment_id: segment.id })
    const late = `01a00000-0000-7000-8000-${String(TOTAL - 1).padStart(12, '0')}`
    expect((await call('POST', `/api/v1/sequences/${id}/enroll`, { contact_ids: [late] })).enrolled).toBe(1)
    const worker = createFlowWorker(t.ctx)
    await worker.drain()
    await worker.stop()
    expect((await runs(id)).distinct_contacts).toBe((await runs(id)).n)
    expect((await runs(id)).n).toBe(ours.subscribed)
  })

  test('a paused sequence’s job waits; an archived one’s is dropped', async () => {
    const paused = await sequence()
    const archived = await sequence()
    await call('POST', `/api/v1/sequences/${paused}/enroll`, { segment_id: segment.id })
    await call('POST', `/api/v1/sequences/${archived}/enroll`, { segment_id: segment.id })
    await call('POST', `/api/v1/sequences/${paused}/pause`)
    await call('POST', `/api/v1/sequences/${archived}/archive`)
    const worker = createFlowWorker(t.ctx)
    await worker.drain()
    expect((await runs(paused)).n).toBe(0)
    expect((await jobs(paused)).map((j) => j.cursor)).toEqual([0])
    expect((await runs(archived)).n).toBe(0)
    expect(await jobs(archived)).toEqual([])
    await call('POST', `/api/v1/sequences/${paused}/activate`)
    await worker.drain()
    await worker.stop()
    expect((await runs(paused)).n).toBe(ours.subscribed)
    expect(await jobs(paused)).toEqual([])
  })

  test('at most SYNC_ENROLL_LIMIT new runs enter in the call itself', async () => {
    const id = await sequence()
    const few = (
      await rowsOf<{ id: string }>(
        t,
        sql`SELECT id FROM contacts WHERE client_id = ${clientId} AND status = 'subscribed' ORDER BY seq LIMIT 10`,
      )
    ).map((r) => r.id)
    const answer = await call('POST', `/api/v1/sequences/${id}/enroll`, { contact_ids: few })
    expect(answer.enrolled).toBe(10)
    expect((await runs(id)).n).toBe(10)
    expect(await jobs(id)).toEqual([])
  })
})
