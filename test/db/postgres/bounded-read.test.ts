import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { boundedAll, ReadTimeout } from '../../../src/db/bounded-read'
import { WITHIN_DEADLINE } from '../../../src/db/deadline'
import { DIALECT } from '../../../src/db/dialect'
import { createTestApp } from '../../helpers/app'

// On PostgreSQL a bounded read runs on the pool under a statement_timeout: within its budget it
// answers its rows, past it the server cancels it and the caller gets ReadTimeout; the pool
// connection is usable afterwards (the timeout was local to the read's transaction).

describe.skipIf(DIALECT !== 'postgres')('bounded reads on PostgreSQL', async () => {
  const t = DIALECT === 'postgres' ? await createTestApp() : null

  test('rows within the budget; ReadTimeout past it; the next read unaffected', async () => {
    const db = t!.ctx.db
    const rows = await boundedAll<{ n: number }>(
      db,
      sql`SELECT n::int AS n FROM generate_series(1, 3) AS n WHERE ${WITHIN_DEADLINE} ORDER BY n`,
      1000,
    )
    expect(rows).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }])
    const started = performance.now()
    const err = await boundedAll(db, sql`SELECT pg_sleep(5)`, 100).catch((e) => e)
    expect(err).toBeInstanceOf(ReadTimeout)
    expect(performance.now() - started).toBeLessThan(2000)
    // A slow statement afterwards on the same pool is not cut at the old budget.
    expect(await boundedAll(db, sql`SELECT pg_sleep(0.3) IS NULL AS slept`, 5000)).toEqual([{ slept: false }])
  })
})
