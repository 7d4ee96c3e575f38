import { Database } from 'bun:sqlite'
import { expect, test } from 'bun:test'
import { isPgHandle, withPgTransaction } from '../../../src/db/postgres/in-transaction'

// A PostgreSQL twin reached with a SQLite connection is a bug in the caller's choice of twin: it
// fails at once, naming what it needed, and runs nothing.

test('withPgTransaction with a SQLite connection throws naming the handle it needs; fn never runs', async () => {
  const sqlite = new Database(':memory:')
  let ran = false
  expect(isPgHandle(sqlite)).toBe(false)
  await expect(
    withPgTransaction(sqlite, async () => {
      ran = true
    }),
  ).rejects.toThrow('withPgTransaction needs the PostgreSQL store handle')
  expect(ran).toBe(false)
  sqlite.close()
})
