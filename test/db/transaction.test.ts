import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../src/db/dialect'
import { lostRace } from '../../src/db/postgres/errors'
import { rawRows, rawRun } from '../../src/db/raw'
import { inRetriedTransaction } from '../../src/db/transaction'
import { createTestApp } from '../helpers/app'

// A verb's transaction that loses a race with another process on PostgreSQL (a unique key the
// other committed first, a deadlock) runs again, whole, up to three runs; then, or for any other
// error, the error goes to the caller. SQLite has one writer: a transaction runs once.

const t = await createTestApp()
const { db, sqlite } = t.ctx

/** A unique key taken already: the error a lost race raises, from the store itself. */
const takenKey = () =>
  rawRun(db, sql`INSERT INTO webhook_dispatch (name, last_event_seq) VALUES ('events', 0)`)
const marks = async (prefix: string) =>
  (
    await rawRows<{ name: string }>(
      db,
      sql`SELECT name FROM webhook_dispatch WHERE name LIKE ${`${prefix}%`} ORDER BY name`,
    )
  ).map((r) => r.name)

test.skipIf(DIALECT !== 'postgres')('a run that lost a race runs again; what it wrote is gone', async () => {
  let runs = 0
  const result = await inRetriedTransaction(sqlite, async () => {
    runs++
    await rawRun(db, sql`INSERT INTO webhook_dispatch (name, last_event_seq) VALUES (${`again-${runs}`}, 0)`)
    if (runs === 1) await takenKey()
    return 'written'
  })
  expect([result, runs]).toEqual(['written', 2])
  expect(await marks('again-')).toEqual(['again-2'])
})

test.skipIf(DIALECT !== 'postgres')('a transaction that keeps losing gives up after three runs', async () => {
  let runs = 0
  const lost = inRetriedTransaction(sqlite, async () => {
    runs++
    await rawRun(db, sql`INSERT INTO webhook_dispatch (name, last_event_seq) VALUES (${`lost-${runs}`}, 0)`)
    await takenKey()
  })
  const err = await lost.catch((e: unknown) => e)
  expect(lostRace(err)).toBe(true)
  expect(runs).toBe(3)
  expect(await marks('lost-')).toEqual([])
})

test('any other error goes to the caller after one run', async () => {
  let runs = 0
  const failed = inRetriedTransaction(sqlite, async () => {
    runs++
    await rawRun(db, sql`INSERT INTO webhook_dispatch (name, last_event_seq) VALUES ('other', 0)`)
    throw new Error('the verb refused')
  })
  await expect(failed).rejects.toThrow('the verb refused')
  expect(runs).toBe(1)
  expect(await marks('other')).toEqual([])
})

test.skipIf(DIALECT !== 'sqlite')('on SQLite a unique key taken runs once and fails', async () => {
  let runs = 0
  const err = await inRetriedTransaction(sqlite, async () => {
    runs++
    await takenKey()
  }).catch((e: unknown) => e as Error)
  expect(String((err as Error).cause ?? err)).toContain('UNIQUE constraint failed')
  expect(runs).toBe(1)
})
