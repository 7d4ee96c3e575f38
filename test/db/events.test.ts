import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { appendEvent, batchedEvents, type EventInsert } from '../../src/db/events'
import { inTransaction } from '../../src/db/transaction'
import { newId } from '../../src/lib/ids'
import { createTestApp } from '../helpers/app'
import { rowsOf } from '../helpers/raw-sql'

// The event log hands out `seq` in commit order. Events appended inside batchedEvents (written
// in one statement at its end on PostgreSQL) take consecutive numbers in the order they were
// appended, after those before them, and before those after; a batch undone leaves none.

const t = await createTestApp()
const event = (type: string, n: number): EventInsert => ({
  id: newId(),
  clientId: t.defaultClientId,
  type,
  contactId: null,
  messageId: null,
  campaignId: null,
  journeyId: null,
  sequenceId: null,
  occurredAt: 1_795_000_000_000 + n,
  data: JSON.stringify({ n, text: `event "${n}" ✓` }),
})
const logged = async () =>
  await rowsOf<{ seq: number; type: string; data: string }>(
    t,
    sql`SELECT CAST(seq AS INTEGER) AS seq, type, CAST(data AS TEXT) AS data FROM events WHERE type LIKE 'probe.%' ORDER BY seq`,
  )

test('a batch of events takes consecutive numbers in append order, between the events around it', async () => {
  await inTransaction(t.ctx.sqlite, async () => await appendEvent(t.ctx.db, event('probe.before', 0)))
  await inTransaction(t.ctx.sqlite, async () => {
    await batchedEvents(t.ctx.db, async () => {
      for (let n = 1; n <= 5; n++) await appendEvent(t.ctx.db, event('probe.batch', n))
    })
  })
  await inTransaction(t.ctx.sqlite, async () => await appendEvent(t.ctx.db, event('probe.after', 6)))
  const rows = await logged()
  expect(rows.map((r) => r.type)).toEqual([
    'probe.before',
    'probe.batch',
    'probe.batch',
    'probe.batch',
    'probe.batch',
    'probe.batch',
    'probe.after',
  ])
  expect(rows.map((r) => r.seq - rows[0]!.seq)).toEqual([0, 1, 2, 3, 4, 5, 6])
  expect(rows.map((r) => (JSON.parse(r.data) as { n: number }).n)).toEqual([0, 1, 2, 3, 4, 5, 6])
  expect(JSON.parse(rows[3]!.data)).toEqual({ n: 3, text: 'event "3" ✓' })
})

test('a batch whose transaction is undone leaves no event and no gap the next event sees', async () => {
  const before = (await logged()).length
  await expect(
    inTransaction(t.ctx.sqlite, async () => {
      await batchedEvents(t.ctx.db, async () => {
        await appendEvent(t.ctx.db, event('probe.undone', 7))
        await appendEvent(t.ctx.db, event('probe.undone', 8))
      })
      throw new Error('undo')
    }),
  ).rejects.toThrow('undo')
  expect(await logged()).toHaveLength(before)
  await inTransaction(t.ctx.sqlite, async () => await appendEvent(t.ctx.db, event('probe.last', 9)))
  const rows = await logged()
  expect(rows.at(-1)!.seq).toBe(rows.at(-2)!.seq + 1)
})
