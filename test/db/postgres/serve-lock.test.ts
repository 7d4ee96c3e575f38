import { afterAll, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { holdPgServeLock } from '../../../src/db/postgres/serve-lock'
import { blankDatabase } from '../../helpers/postgres'

// Two `herald serve` processes on one database, each with its own pool, as the lock sees them.
const url = await blankDatabase()
const first = new SQL({ url, max: 2 })
const second = new SQL({ url, max: 2 })
afterAll(async () => {
  await first.close()
  await second.close()
})

test('one process at a time holds the serve lock; it is free again once released', async () => {
  const held = await holdPgServeLock(first)
  expect(held).not.toBeNull()
  expect(await holdPgServeLock(second)).toBeNull()
  // The refused attempt gave its connection back: the pool still answers.
  expect(await second`SELECT 1 AS one`).toEqual([{ one: 1 }])
  await held!.release()
  const next = await holdPgServeLock(second)
  expect(next).not.toBeNull()
  await next!.release()
})

test('a process that ends without releasing (kill -9) leaves the lock free', async () => {
  const gone = new SQL({ url, max: 1 })
  expect(await holdPgServeLock(gone)).not.toBeNull()
  await gone.close({ timeout: 0 }) // its connection is cut, as with a killed process
  const held = await holdPgServeLock(first)
  expect(held).not.toBeNull()
  await held!.release()
})
