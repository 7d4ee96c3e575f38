import { describe, expect, test } from 'bun:test'
import { SQL } from 'bun'
import { sql } from 'drizzle-orm'
import { DIALECT } from '../../../src/db/dialect'
import { rawRows } from '../../../src/db/raw'
import type { Logger } from '../../../src/lib/log'
import { snapshotChunk } from '../../../src/services/campaigns/audience'
import { createImportWorker } from '../../../src/services/imports/runner'
import { createTestApp } from '../../helpers/app'
import { tenant } from '../../helpers/campaign'

// PostgreSQL plans the two statements a large campaign repeats most, the audience copy's chunk
// and the send claim, so that each reads only what it returns: the copy walks the list's key in
// order (which needs statistics that know how large the import made the list), the claim walks
// the due index in its own order. Sorting instead makes every chunk or claim read the whole
// campaign: a 100,000-contact send spent a third of its database time there.

const ROWS = 3_000

describe.skipIf(DIALECT !== 'postgres')('plans on PostgreSQL', async () => {
  const t = DIALECT === 'postgres' ? await createTestApp() : null
  const plan = async (q: ReturnType<typeof sql>) =>
    (await rawRows<{ 'QUERY PLAN': string }>(t!.ctx.db, sql`EXPLAIN ${q}`))
      .map((r) => r['QUERY PLAN'])
      .join('\n')

  test('an import leaves statistics behind; the copy and the claim then read in index order', async () => {
    const { call, key } = await tenant(t!)
    const list = await call('POST', '/api/v1/lists', { name: 'Imported' })
    const lines = ['email,first_name']
    for (let i = 1; i <= ROWS; i++) lines.push(`p${i}@example.com,P${i}`)
    const res = await t!.call('POST', `/api/v1/contacts/imports?list_id=${list.id}`, {
      key,
      raw: `${lines.join('\n')}\n`,
      headers: { 'content-type': 'text/csv' },
    })
    expect(res.status).toBe(200)
    expect(await createImportWorker(t!.ctx).runOnce()).toEqual({ worked: true })

    const analyzed = await rawRows<{ relname: string; analyze_count: string }>(
      t!.ctx.db,
      sql`SELECT relname, analyze_count FROM pg_stat_user_tables
          WHERE relname IN ('contacts', 'list_members') ORDER BY relname`,
    )
    expect(analyzed.map((r) => [r.relname, Number(r.analyze_count) > 0])).toEqual([
      ['contacts', true],
      ['list_members', true],
    ])
    // The copy's chunk, as src/services/campaigns/audience.ts asks it.
    const copy = await plan(
      sql`SELECT c.id, c.email, c.phone, c.timezone FROM list_members lm JOIN contacts c ON c.id = lm.contact_id
          WHERE lm.list_id = ${list.id} AND lm.contact_id > '' AND lm.status = 'confirmed' AND lm.confirmed_at <= ${Date.now() + 60_000}
          ORDER BY lm.contact_id LIMIT 1000`,
    )
    expect(copy).not.toContain('Sort')

    const campaign = await call('POST', '/api/v1/campaigns', {
      name: 'Everyone',
      list_id: list.id,
      subject: 'Hello {{ contact.first_name }}',
      body_html: '<p>Hi {{ contact.first_name }}</p>',
    })
    await call('POST', `/api/v1/campaigns/${campaign.id}/launch`, { confirm: true })
    while ((await snapshotChunk(t!.ctx, campaign.id)) !== 'done') {}
    await rawRows(t!.ctx.db, sql`ANALYZE messages`)
    // The claim's selection, as src/db/postgres/outbox.ts asks it.
    const claim = await plan(
      sql`SELECT seq FROM messages WHERE campaign_id = ${campaign.id} AND status = 'queued' AND next_attempt_at <= ${Date.now() + 60_000}
          ORDER BY next_attempt_at, seq LIMIT 250 FOR UPDATE SKIP LOCKED`,
    )
    expect(claim).toContain('messages_campaign_due_idx')
    expect(claim).not.toContain('Sort')
  }, 60_000)

  test('statistics that cannot be refreshed in time leave the import completed', async () => {
    const warnings: string[] = []
    const log: Logger = { info() {}, error() {}, warn: (msg) => void warnings.push(msg) }
    const app = await createTestApp({ log })
    const { call, key } = await tenant(app)
    const list = await call('POST', '/api/v1/lists', { name: 'Imported' })
    const res = await app.call('POST', `/api/v1/contacts/imports?list_id=${list.id}`, {
      key,
      raw: 'email\nq1@example.com\nq2@example.com\n',
      headers: { 'content-type': 'text/csv' },
    })
    // An operator's VACUUM holds the lock ANALYZE needs for as long as it runs.
    const operator = new SQL({ url: app.ctx.config.databaseUrl!, max: 1 })
    try {
      await operator.begin(async (tx) => {
        await tx`LOCK TABLE list_members IN SHARE UPDATE EXCLUSIVE MODE`
        expect(await createImportWorker(app.ctx).runOnce()).toEqual({ worked: true })
      })
    } finally {
      await operator.close()
    }
    const job = await call('GET', `/api/v1/contacts/imports/${res.body.data.id}`)
    expect([job.status, job.inserted]).toEqual(['completed', 2])
    expect(warnings).toEqual(['import statistics not refreshed'])
  }, 30_000)
})
