import { describe, expect, test } from 'bun:test'
import { sql } from 'drizzle-orm'
import { rawRows, rawRun } from '../../../src/db/raw'
import { listMembers } from '../../../src/db/schema'
import { inTransaction } from '../../../src/db/transaction'
import { registerJobs } from '../../../src/jobs'
import { DAY_MS } from '../../../src/lib/time'
import { UNCONFIRMED_KEPT_MS } from '../../../src/services/lists/purge-unconfirmed'
import { createTestApp } from '../../helpers/app'
import { testClock } from '../../helpers/journey'

// The lists.purge-unconfirmed job on the injected clock: unconfirmed memberships older than 30
// days go (one millisecond younger stays), confirmed ones never, counts stay exact, and a
// backlog larger than a chunk goes in one run.

const clock = testClock()
const t = await createTestApp({ clock })
registerJobs(t.ctx)
const acme = await t.client('Acme')
const key = await t.key({ scopes: ['lists:write', 'contacts:write'], clientId: acme })
const call = (method: string, path: string, body?: unknown) => t.call(method, path, { key, body })

const list = (await call('POST', '/api/v1/lists', { name: 'News' })).body.data.id as string
const contact = async (email: string) =>
  (await call('POST', '/api/v1/contacts', { email })).body.data.id as string
const statuses = async () =>
  await rawRows<{ status: string; n: number }>(
    t.ctx.db,
    sql`SELECT status, CAST(count(*) AS INTEGER) AS n FROM list_members WHERE list_id = ${list} GROUP BY status ORDER BY status`,
  )

describe('lists.purge-unconfirmed', () => {
  test('is a named daily job', () => {
    expect(t.ctx.jobs.list().map((j) => j.name)).toContain('lists.purge-unconfirmed')
  })

  test('removes unconfirmed members past 30 days, in chunks, keeping confirmed ones and the counts', async () => {
    const confirmed = await contact('kept@example.com')
    await call('POST', `/api/v1/lists/${list}/contacts`, { contact_ids: [confirmed] })
    const old = await contact('old@example.com')
    await call('POST', `/api/v1/lists/${list}/contacts?double_opt_in=true`, { contact_ids: [old] })
    // A backlog over one chunk (5,000), added in one statement at the same time.
    const at = clock.t
    await inTransaction(t.ctx.sqlite, async () => {
      for (let i = 0; i < 5_100; i += 1_000)
        await t.ctx.db.insert(listMembers).values(
          Array.from({ length: Math.min(1_000, 5_100 - i) }, () => ({
            listId: list,
            contactId: Bun.randomUUIDv7(),
            status: 'unconfirmed' as const,
            addedAt: at,
          })),
        )
      await rawRun(
        t.ctx.db,
        sql`UPDATE lists SET unconfirmed_count = unconfirmed_count + 5100 WHERE id = ${list}`,
      )
    })
    clock.t += DAY_MS
    const young = await contact('young@example.com')
    await call('POST', `/api/v1/lists/${list}/contacts?double_opt_in=true`, { contact_ids: [young] })
    clock.t += UNCONFIRMED_KEPT_MS - DAY_MS
    await t.ctx.jobs.runNow('lists.purge-unconfirmed')
    expect(await statuses()).toEqual([
      { status: 'confirmed', n: 1 },
      { status: 'unconfirmed', n: 5_102 },
    ])
    clock.t += 1
    await t.ctx.jobs.runNow('lists.purge-unconfirmed')
    expect(await statuses()).toEqual([
      { status: 'confirmed', n: 1 },
      { status: 'unconfirmed', n: 1 },
    ])
    const counts = (
      await rawRows<{ member_count: number; unconfirmed_count: number }>(
        t.ctx.db,
        sql`SELECT CAST(member_count AS INTEGER) AS member_count, CAST(unconfirmed_count AS INTEGER) AS unconfirmed_count FROM lists WHERE id = ${list}`,
      )
    )[0]
    expect(counts).toEqual({ member_count: 1, unconfirmed_count: 1 })
  })
})
