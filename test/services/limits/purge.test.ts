import { expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { registerJobs } from '../../../src/jobs'
import { createTestApp } from '../../helpers/app'
import { rowsOf, runSql } from '../../helpers/raw-sql'

// The limits.purge job deletes shared sending windows some time after they ended (each kind
// after its own length) and rate buckets untouched for a day, and keeps the ones still counting.

const t = await createTestApp()
registerJobs(t.ctx)

test('limits.purge deletes windows long over and idle buckets, and keeps the current ones', async () => {
  const now = Date.now()
  const old = now - 3 * 86_400_000
  await runSql(
    t,
    sql`INSERT INTO send_windows (key, start, count, granted) VALUES ('minute|old.example', ${old}, 5, 1),
      ('minute|new.example', ${now - 60_000}, 5, 1), ('minute|hours.example', ${now - 7_200_000}, 5, 1),
      ('hour|c1', ${now - 7_200_000}, 5, 1), ('day|d1', ${now - 86_400_000}, 5, 1)`,
  )
  await runSql(
    t,
    sql`INSERT INTO rate_buckets (key, tokens, at, granted) VALUES ('key:old', 3, ${old}, 1), ('key:new', 3, ${now}, 1)`,
  )
  await t.ctx.jobs.runNow('limits.purge')
  expect(t.ctx.jobs.list().find((j) => j.name === 'limits.purge')?.last_outcome).toBe('ok')
  expect(
    (await rowsOf<{ key: string }>(t, sql`SELECT key FROM send_windows`)).map((r) => r.key).sort(),
  ).toEqual(['day|d1', 'hour|c1', 'minute|new.example'])
  expect((await rowsOf<{ key: string }>(t, sql`SELECT key FROM rate_buckets`)).map((r) => r.key)).toEqual([
    'key:new',
  ])
})
