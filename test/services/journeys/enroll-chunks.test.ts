import { expect, setDefaultTimeout, test } from 'bun:test'
import { eq, sql } from 'drizzle-orm'
import { DIALECT } from '../../../src/db/dialect'
import { flowQueue } from '../../../src/db/flow-queue'
import { clients, contacts, flowEnrollJobs } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import { ENROLL_CHUNK, enterNextChunk, SYNC_ENROLL_LIMIT } from '../../../src/services/flows/enroll'
import { createFlowWorker } from '../../../src/services/flows/worker'
import { journeyApp } from '../../helpers/journey'
import { rowOf } from '../../helpers/raw-sql'

// A segment too large to enroll in the call: it answers with the count, and the journey worker
// enters the contacts in chunks (each its own transaction) — exactly those that matched and
// existed at the call, each once, contacts named in contact_ids too.

const N = SYNC_ENROLL_LIMIT + 1_500
// On PostgreSQL each step is a few round trips to the server (on SQLite, calls into the
// process): stepping thousands of runs takes seconds there.
if (DIALECT === 'postgres') setDefaultTimeout(120_000)
const j = await journeyApp()
const { t } = j
const now = j.clock.now()
const clientNo = (
  await t.ctx.db.select({ no: clients.no }).from(clients).where(eq(clients.id, j.clientId))
)[0]!.no
await inTransaction(t.ctx.sqlite, async () => {
  for (let from = 0; from < N; from += 500)
    await t.ctx.db.insert(contacts).values(
      Array.from({ length: Math.min(500, N - from) }, (_, k) => {
        const i = from + k
        return {
          id: Bun.randomUUIDv7(),
          clientId: j.clientId,
          clientNo,
          email: `bulk${i}@example.com`,
          createdAt: now,
          updatedAt: now,
          customFields: { bulk: i % 10 === 0 ? 'no' : 'yes' },
        }
      }),
    )
})
const matching = N - Math.ceil(N / 10)
const segment = await j.call('POST', '/api/v1/segments', {
  name: 'Bulk',
  rule_groups: [{ match: 'all', rules: [{ field: 'custom.bulk', operator: 'eq', value: 'yes' }] }],
})
const count = async (id: string) =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM flow_enrollments WHERE flow_id = ${id}`,
  ))!.n
const distinct = async (id: string) =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(DISTINCT contact_id) AS INTEGER) AS n FROM flow_enrollments WHERE flow_id = ${id}`,
  ))!.n

test('a large segment: the call answers with the count, the worker enters them in chunks, each once', async () => {
  const id = await j.journey([
    { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
    { id: 'w', type: 'wait', duration: 'P1D' },
  ])
  const named = await j.contact('named@example.com')
  const r = await j.call('POST', `/api/v1/journeys/${id}/enroll`, {
    segment_id: segment.id,
    contact_ids: [named],
  })
  expect(r).toEqual({ journey_id: id, enrolled: matching + 1, skipped: 0 })
  // Nobody is in at the answer: the whole audience (named and matched) enters in chunks.
  expect(await count(id)).toBe(0)
  // A contact created after the call is not part of it, though it matches.
  await j.contact('late@example.com', { custom_fields: { bulk: 'yes' } })
  // One chunk (what a pass starts with): the next ENROLL_CHUNK contacts of the audience by seq.
  expect(await inTransaction(t.ctx.sqlite, async () => await enterNextChunk(t.ctx))).toBe(ENROLL_CHUNK)
  expect(await count(id)).toBe(ENROLL_CHUNK)
  // As after a restart: the matched contacts (a TEMP table) are gone; the job's cursor is in the
  // database, and the job matches its audience again from there.
  const job = (await t.ctx.db.select().from(flowEnrollJobs).limit(1))[0]!
  expect(job.cursorSeq).toBeGreaterThan(0)
  await flowQueue(t.ctx.db).scratchClear(job.id)
  await createFlowWorker(t.ctx).drain()
  expect(await count(id)).toBe(matching + 1)
  expect(await distinct(id)).toBe(matching + 1)
  expect(await t.ctx.db.$count(flowEnrollJobs)).toBe(0)
  // Enrolling again skips them all.
  expect(await j.call('POST', `/api/v1/journeys/${id}/enroll`, { segment_id: segment.id })).toMatchObject({
    enrolled: 1,
    skipped: matching,
  })
})

test('archiving a journey drops its pending enrollment', async () => {
  const id = await j.journey([
    { id: 't', type: 'trigger', trigger: 'manual', next: 'w' },
    { id: 'w', type: 'wait', duration: 'P1D' },
  ])
  await j.call('POST', `/api/v1/journeys/${id}/enroll`, { segment_id: segment.id })
  await j.call('POST', `/api/v1/journeys/${id}/archive`)
  await j.journeys.drain()
  expect(await count(id)).toBe(0)
  expect(await t.ctx.db.$count(flowEnrollJobs)).toBe(0)
})
