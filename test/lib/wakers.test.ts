import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { rawRows, rawRun } from '../../src/db/raw'
import { inTransaction } from '../../src/db/transaction'
import { createTestApp } from '../helpers/app'

// A worker woken from inside a transaction is woken once the transaction has ended. On
// PostgreSQL a worker reads on another connection than the transaction's: woken before the
// commit, it found nothing and slept until its next poll (a launched campaign's copy began a
// second late, a transactional email went out a second late).

const t = await createTestApp()
const { db, sqlite, workers } = t.ctx

/** Registers a worker's kick that notes whether the transaction was still open, and what it read. */
function watchedWorker(name: string) {
  const state = { open: false, kicks: [] as { open: boolean; seen: Promise<string[]> }[] }
  workers.register('imports', () => {
    state.kicks.push({
      open: state.open,
      // Read as the worker's loop would: in a later turn, outside the transaction's scope.
      seen: new Promise((resolve) => setImmediate(resolve)).then(async () =>
        (
          await rawRows<{ name: string }>(db, sql`SELECT name FROM webhook_dispatch WHERE name = ${name}`)
        ).map((r) => r.name),
      ),
    })
  })
  return state
}

const scenarios: { name: string; body: (state: { open: boolean }, mark: string) => Promise<void> }[] = [
  {
    name: 'committed',
    body: async (state, mark) => {
      await inTransaction(sqlite, async () => {
        state.open = true
        await rawRun(db, sql`INSERT INTO webhook_dispatch (name, last_event_seq) VALUES (${mark}, 0)`)
        workers.wake('imports')
        await rawRows(db, sql`SELECT 1 AS one`)
        state.open = false
      })
    },
  },
  {
    name: 'woken in a nested transaction',
    body: async (state, mark) => {
      await inTransaction(sqlite, async () => {
        state.open = true
        await inTransaction(sqlite, async () => {
          await rawRun(db, sql`INSERT INTO webhook_dispatch (name, last_event_seq) VALUES (${mark}, 0)`)
          workers.wake('imports')
        })
        await rawRows(db, sql`SELECT 1 AS one`)
        state.open = false
      })
    },
  },
]

for (const s of scenarios)
  test(`a wake inside a transaction (${s.name}) reaches the worker after the commit`, async () => {
    const state = watchedWorker(`wake-${s.name}`)
    await s.body(state, `wake-${s.name}`)
    expect(state.kicks.map((k) => k.open)).toEqual([false])
    expect(await state.kicks[0]!.seen).toEqual([`wake-${s.name}`])
  })

test('a wake inside a transaction that rolls back still reaches the worker, once it has ended', async () => {
  const state = watchedWorker('wake-rolled-back')
  await expect(
    inTransaction(sqlite, async () => {
      state.open = true
      workers.wake('imports')
      state.open = false
      throw new Error('rolled back')
    }),
  ).rejects.toThrow('rolled back')
  expect(state.kicks.map((k) => k.open)).toEqual([false])
  expect(await state.kicks[0]!.seen).toEqual([])
})

test('a wake outside a transaction, or from work a transaction left running, reaches the worker at once', async () => {
  const state = watchedWorker('wake-outside')
  workers.wake('imports')
  expect(state.kicks).toHaveLength(1)
  let later: Promise<void> | undefined
  await inTransaction(sqlite, async () => {
    later = new Promise((resolve) => setImmediate(resolve)).then(() => workers.wake('imports'))
  })
  await later
  expect(state.kicks).toHaveLength(2)
  await Promise.all(state.kicks.map((k) => k.seen))
})
