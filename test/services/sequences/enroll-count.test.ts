import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { withActor } from '../../../src/context'
import { inTransaction } from '../../../src/db/transaction'
import { systemActor } from '../../../src/services/actors/actor'
import { SYNC_ENROLL_LIMIT } from '../../../src/services/flows/enroll'
import { enrollSequenceVerb } from '../../../src/services/sequences/verbs'
import { createTestApp } from '../../helpers/app'
import { journeyTenant, testClock } from '../../helpers/journey'
import { rowOf } from '../../helpers/raw-sql'

// The enroll call counts its audience in the verb's `prepare`, before the write transaction:
// the count reads the whole audience (~126 ms for 100,000 contacts) and held the write lock that
// long. Inside the transaction nothing must be exact by it: who enters is what the INSERT finds
// then, and the count only chooses the way (in the call or in chunks) and answers `skipped`
// (and `enrolled` of a chunked call, whose runs enter afterwards).

const t = await createTestApp({ clock: testClock() })
const acme = await journeyTenant(t, 'Acme')
const ctx = withActor(t.ctx, systemActor('test'), 'test')
const emails = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `p${from + i}@example.com`)
const joinList = async (from: number, to: number) => {
  const ids = await Promise.all(emails(from, to).map((e) => acme.contact(e)))
  await acme.call('POST', `/api/v1/lists/${acme.list.id}/contacts`, { contact_ids: ids })
  return ids
}
const present = await joinList(0, 10)
await acme.call('PATCH', `/api/v1/contacts/${present[0]}`, { status: 'unsubscribed' })
const sequence = async () => {
  const s = await acme.call('POST', '/api/v1/sequences', {
    name: 'S',
    steps: [{ subject: 'Hi', body_text: 'Hi' }],
  })
  await acme.call('POST', `/api/v1/sequences/${s.id}/activate`)
  return s.id as string
}
const runs = async (id: string) =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM flow_enrollments WHERE flow_id = ${id}`,
  ))!.n
const jobs = async (id: string) =>
  (await rowOf<{ n: number }>(
    t,
    sql`SELECT CAST(count(*) AS INTEGER) AS n FROM flow_enroll_jobs WHERE flow_id = ${id}`,
  ))!.n

test('prepare counts the audience while another connection holds the write lock', async () => {
  const id = await sequence()
  // On PostgreSQL: another session's open transaction that blocks every writer of the tables.
  const pg = await t.ctx.store.postgres?.reserve()
  const other = pg ? null : new Database(`${t.dataDir}/herald.db`)
  if (pg) {
    await pg`BEGIN`
    await pg`LOCK TABLE contacts, list_members, flow_enrollments IN SHARE ROW EXCLUSIVE MODE`
  } else await other!.run('BEGIN IMMEDIATE')
  try {
    const counted = await enrollSequenceVerb.prepare!(ctx, { id, list_id: acme.list.id }, {})
    expect(counted).toEqual({ candidates: 10, entering: 9 })
  } finally {
    if (pg) {
      await pg`ROLLBACK`
      pg.release()
    } else {
      await other!.run('ROLLBACK')
      other!.close()
    }
  }
})

test('who enters is decided in the transaction: contacts that joined after the count enter too', async () => {
  const id = await sequence()
  const counted = await enrollSequenceVerb.prepare!(ctx, { id, list_id: acme.list.id }, {})
  expect(counted).toEqual({ candidates: 10, entering: 9 })
  await joinList(10, 14) // between prepare and the transaction
  const answer = await inTransaction(t.ctx.sqlite, () =>
    enrollSequenceVerb.run(ctx, { id, list_id: acme.list.id }, counted, {}),
  )
  // Entered in the call: the runs inserted (13), not the count's 9; `skipped` never below zero.
  expect(answer).toMatchObject({ enrolled: 13, skipped: 0 })
  expect(await runs(id)).toBe(13)
})

test('the way is chosen by the count: over SYNC_ENROLL_LIMIT the runs enter afterwards, from a job', async () => {
  const id = await sequence()
  const counted = { candidates: SYNC_ENROLL_LIMIT + 2, entering: SYNC_ENROLL_LIMIT + 1 }
  const answer = await inTransaction(t.ctx.sqlite, () =>
    enrollSequenceVerb.run(ctx, { id, list_id: acme.list.id }, counted, {}),
  )
  // The call did not count again: a chunked call answers the count it was given.
  expect(answer).toMatchObject({ enrolled: SYNC_ENROLL_LIMIT + 1, skipped: 1 })
  expect(await runs(id)).toBe(0)
  expect(await jobs(id)).toBe(1)
})

test('a call prepare sees refused is counted nowhere and refused by the transaction, in its order', async () => {
  const draft = (
    await acme.call('POST', '/api/v1/sequences', { name: 'D', steps: [{ subject: 'x', body_text: 'x' }] })
  ).id as string
  expect(await enrollSequenceVerb.prepare!(ctx, { id: draft, list_id: acme.list.id }, {})).toBeNull()
  const refused = await t.call('POST', `/api/v1/sequences/${draft}/enroll`, {
    key: acme.key,
    body: { list_id: acme.list.id },
  })
  expect(refused.status).toBe(409)
  const id = await sequence()
  const bad = await t.call('POST', `/api/v1/sequences/${id}/enroll`, {
    key: acme.key,
    body: { segment_id: crypto.randomUUID() },
  })
  expect(bad.status).toBe(422)
  expect(bad.body.error.details[0].field).toBe('segment_id')
})

// The list has 14 now (four joined in the second test), one unsubscribed.
test('through the API: the prepared count answers, the runs enter', async () => {
  const id = await sequence()
  const r = await t.call('POST', `/api/v1/sequences/${id}/enroll`, {
    key: acme.key,
    body: { list_id: acme.list.id },
  })
  expect(r.status).toBe(200)
  expect(r.body.data).toMatchObject({ enrolled: 13, skipped: 1 })
  expect(await runs(id)).toBe(13)
})
